//! `magichunt compare`: the store side by side with the published records or another table.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, ValueEnum};

use super::Outcome;
use crate::compare::{render_json, render_markdown, render_svg, render_text, Report, Theirs};
use crate::output::{self, Writes};
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
    /// The results store [default: results/mine.json in a checkout, else your own store in
    /// the data folder; when it does not exist yet, the shipped results/best.json or the table
    /// built into magichunt; MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// `published` (the shipped records) or a FILE in the table format (write ./published
    /// for a file of that name).
    #[arg(long, default_value = "published")]
    against: String,
    /// text or markdown.
    #[arg(long, value_enum, default_value_t = Style::Text)]
    format: Style,
    /// Print one JSON document instead of the text: every figure the text shows, and per
    /// square its status, bits, record, proof and slots (described in docs/format.md).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// A packed table of ours (from `magichunt pack`), checked and shown in the sizes by
    /// layout when it is smaller than the store's quick packing; may be repeated.
    #[arg(long)]
    packed: Vec<PathBuf>,
    /// Compare an empty store when there is no file at `--store` (without it, a missing
    /// store is an error: a mistyped path would show every square missing).
    #[arg(long)]
    allow_missing: bool,
    /// Also draw both boards as an SVG picture into FILE (written atomically; never onto a
    /// store): bits per square, ours and theirs, coloured proven optimal, open, ahead or
    /// behind. `-` writes the picture to stdout instead of the text.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Count every proof the store records as proven, also those only claimed (not checked
    /// here: no certificate checked, exhaustive search not run here nor audited).
    #[arg(long)]
    count_claimed: bool,
}

/// Runs `compare`.
pub(super) fn run(args: &CompareArgs) -> anyhow::Result<Outcome> {
    let from = super::stores::for_reading(args.store.as_deref());
    // The output guard, before the work and again as it is written: never the store it reads,
    // never another store or packed table; through symlinks.
    let guarded = from.guarded_path();
    let svg = args.svg.as_ref().filter(|p| p.as_os_str() != "-");
    if args.json && svg.is_none() && args.svg.is_some() {
        anyhow::bail!("--svg - and --json both write to stdout: give --svg a FILE");
    }
    if let Some(path) = svg {
        output::check(path, Writes::Other, &[&guarded])?;
    }
    if from.missing() && !args.allow_missing {
        anyhow::bail!(
            "no store at {} (a mistyped --store? --allow-missing compares an empty store)",
            from.name()
        );
    }
    let store = super::stores::load_counting(&from, args.count_claimed)?;
    let theirs = if args.against == "published" {
        Theirs::published()
    } else {
        let path = PathBuf::from(&args.against);
        Theirs::from_table(&Table::read(&path)?, &args.against)
    };
    let mut packed = Vec::new();
    for path in &args.packed {
        let name = path.display().to_string();
        let table = crate::layout::PackedTable::from_table(&Table::read_as(
            path,
            crate::input::Kind::PackedTable,
        )?)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let fill = table.check().map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        packed.push((name, table, fill));
    }
    let report = Report::with_packed(&store, &from.name(), &theirs, &packed);
    let text = match (args.format, &args.svg) {
        (_, Some(p)) if p.as_os_str() == "-" => render_svg(&report),
        _ if args.json => render_json(&report),
        (Style::Text, _) => render_text(&report),
        (Style::Markdown, _) => render_markdown(&report),
    };
    if let Some(path) = svg {
        output::write(
            path,
            render_svg(&report).as_bytes(),
            Writes::Other,
            &[&guarded],
        )
        .with_context(|| format!("cannot write {}", path.display()))?;
        crate::say!("magichunt: drew both boards into {}", path.display());
    }
    use std::io::Write as _;
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(Outcome::Success)
}
