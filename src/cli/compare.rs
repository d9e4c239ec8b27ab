//! `magichunt compare`: the store side by side with the published records or another table.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::Outcome;
use crate::compare::{render_markdown, render_text, Report, Theirs};
use crate::table::Table;

/// Output style of `compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Style {
    /// 8x8 grids for a terminal.
    Text,
    /// Tables to paste into an issue or a README.
    Markdown,
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The results store.
    #[arg(long, default_value = super::stores::DEFAULT_STORE)]
    store: PathBuf,
    /// `published` (the shipped records) or a FILE in the table format (write ./published
    /// for a file of that name).
    #[arg(long, default_value = "published")]
    against: String,
    /// text or markdown.
    #[arg(long, value_enum, default_value_t = Style::Text)]
    format: Style,
    /// A packed table of ours (from `magichunt pack`), checked and shown in the sizes by
    /// layout when it is smaller than the store's quick packing; may be repeated.
    #[arg(long)]
    packed: Vec<PathBuf>,
    /// Compare an empty store when there is no file at `--store` (without it, a missing
    /// store is an error: a mistyped path would show every square missing).
    #[arg(long)]
    allow_missing: bool,
    /// Count every proof the store records as proven, also those only claimed (not checked
    /// here: no certificate checked, exhaustive search not run here nor audited).
    #[arg(long)]
    count_claimed: bool,
}

/// Runs `compare`.
pub(super) fn run(args: &CompareArgs) -> anyhow::Result<Outcome> {
    let store_path = super::stores::for_reading(&args.store);
    let missing =
        std::fs::metadata(&store_path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
    if missing && !args.allow_missing {
        anyhow::bail!(
            "no store at {} (a mistyped --store? --allow-missing compares an empty store)",
            store_path.display()
        );
    }
    let store = super::stores::load_counting(&store_path, args.count_claimed)?;
    let theirs = if args.against == "published" {
        Theirs::published()
    } else {
        let path = PathBuf::from(&args.against);
        Theirs::from_table(&Table::read(&path)?, &args.against)
    };
    let mut packed = Vec::new();
    for path in &args.packed {
        let name = path.display().to_string();
        let table = crate::layout::PackedTable::from_table(&Table::read(path)?)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let fill = table.check().map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        packed.push((name, table, fill));
    }
    let report = Report::with_packed(&store, &store_path.display().to_string(), &theirs, &packed);
    let text = match args.format {
        Style::Text => render_text(&report),
        Style::Markdown => render_markdown(&report),
    };
    use std::io::Write as _;
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(Outcome::Success)
}
