//! `magichunt export`: the store as Rust, C or JSON for an engine.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::atomic::write_atomic;
use crate::export::{render, Format, Layout, Options, Source};
use crate::store::Store;

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// rust, c or json.
    #[arg(long, value_parser = |s: &str| s.parse::<Format>())]
    format: Format,
    /// The results store to export.
    #[arg(long, default_value = "results/best.json")]
    store: PathBuf,
    /// Write here (atomically) instead of stdout; `-` is stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Give each square max_index + 1 entries instead of 2^bits.
    #[arg(long)]
    tight: bool,
    /// Rust and C: add the table fill by ray walk and rook_attacks / bishop_attacks.
    #[arg(long)]
    with_lookup: bool,
}

/// Runs `export`.
pub(super) fn run(args: &ExportArgs) -> anyhow::Result<Outcome> {
    let store = Store::load(&args.store)?;
    if !args.store.exists() {
        eprintln!(
            "{}: no such store; every square is filled at popcount bits",
            args.store.display()
        );
    }
    if args.with_lookup && args.format == Format::Json {
        eprintln!("--with-lookup adds code to Rust and C only; the JSON export has none");
    }
    let layout = Layout::build(&store, args.tight)?;
    for s in layout.filled() {
        eprintln!(
            "{}: not in the store; filled with a {}-bit magic {} found now",
            s.entry.target,
            s.entry.bits,
            crate::magic::format_magic(s.entry.magic)
        );
    }
    let source = Source::of(&store, &args.store.display().to_string());
    let options = Options {
        with_lookup: args.with_lookup,
    };
    let text = render(args.format, &layout, &source, options);
    match &args.out {
        Some(path) if path.as_os_str() != "-" => write_atomic(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?,
        _ => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    eprintln!(
        "{} layout: {}",
        if args.tight { "tight" } else { "2^bits" },
        layout.totals()
    );
    Ok(Outcome::Success)
}
