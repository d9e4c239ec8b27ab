//! Verify a store and export its table to a string: what `magichunt verify --file STORE`
//! and `magichunt export --format c --store STORE` do, from the library.
//!
//! ```sh
//! cargo run --release --example verify_export                       # the built-in table
//! cargo run --release --example verify_export -- results/best.json  # a store of yours
//! ```

use std::path::PathBuf;

use magichunt::export::{export, ExportConfig, Format};
use magichunt::progress::Quiet;
use magichunt::shipped;
use magichunt::verify::TableReport;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The store: the one named, or the table built into magichunt written to a scratch
    // folder.
    let scratch = tempfile::tempdir()?;
    let store = match std::env::args_os().nth(1) {
        Some(path) => PathBuf::from(path),
        None => {
            let path = scratch.path().join("store.json");
            shipped::store().save(&path)?;
            path
        }
    };
    // Every entry checked against the slow reference, then the table's figures.
    let report = TableReport::read(Some(&store), None, false, &mut Quiet)?;
    print!("{}", report.render_text());
    if !report.is_valid() {
        return Err(format!("{}: an entry fails", store.display()).into());
    }
    // The C header of its best plain magics, fancy layout, as a string (`out: None`).
    let cfg = ExportConfig {
        store: Some(store.clone()),
        ..ExportConfig::new(Format::C)
    };
    let header = export(&cfg, &mut Quiet)?.ok_or("the export was written, not returned")?;
    assert!(header.contains("ROOK_MAGICS[64]"));
    println!(
        "exported {}: {} lines of C, starting:",
        store.display(),
        header.lines().count()
    );
    for line in header.lines().take(6) {
        println!("  {line}");
    }
    Ok(())
}
