//! `magichunt compare`: the store side by side with the published records or another table.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::Outcome;
use crate::compare::{
    compare, render_json, render_markdown, render_svg, render_text, CompareConfig,
};
use crate::progress::Lines;

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
    let to_stdout = args.svg.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if args.json && to_stdout {
        anyhow::bail!("--svg - and --json both write to stdout: give --svg a FILE");
    }
    let cfg = CompareConfig {
        store: args.store.clone(),
        against: (args.against != "published").then(|| PathBuf::from(&args.against)),
        packed: args.packed.clone(),
        allow_missing: args.allow_missing,
        count_claimed: args.count_claimed,
        svg: args.svg.clone().filter(|_| !to_stdout),
    };
    let report = compare(&cfg, &mut Lines::new(None))?;
    let text = match args.format {
        _ if to_stdout => render_svg(&report),
        _ if args.json => render_json(&report),
        Style::Text => render_text(&report),
        Style::Markdown => render_markdown(&report),
    };
    match args.format {
        _ if to_stdout => super::out::document(text.as_bytes())?,
        _ if args.json => super::out::json(&text)?,
        Style::Text => super::out::text(&text)?,
        Style::Markdown => super::out::document(text.as_bytes())?,
    }
    Ok(Outcome::Success)
}
