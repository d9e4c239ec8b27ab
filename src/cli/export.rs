//! `magichunt export`: the store as Rust, C or JSON for an engine.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::atomic::write_atomic;
use crate::export::out::{check_out, real_path};
use crate::export::{render, Format, Layout, Options, Prefix, Source};
use crate::store::Store;

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// rust, c or json.
    #[arg(long, value_parser = |s: &str| s.parse::<Format>())]
    format: Format,
    /// The results store to export; it must exist (see --allow-missing).
    #[arg(long, default_value = "results/best.json")]
    store: PathBuf,
    /// Export even if the store does not exist: every square filled at popcount bits.
    #[arg(long)]
    allow_missing: bool,
    /// Write here (atomically) instead of stdout; `-` is stdout. Never a store.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Give each square max_index + 1 entries instead of 2^bits.
    #[arg(long)]
    tight: bool,
    /// Rust and C: add the table fill by ray walk and rook_attacks / bishop_attacks.
    #[arg(long)]
    with_lookup: bool,
    /// Rust and C: put P in front of every public name (C: P lower-case for functions and
    /// types, upper-case for macros and constants; `mh_` gives mh_rook_attacks, MH_ROOK_MAGICS).
    #[arg(long, value_name = "P", value_parser = |s: &str| s.parse::<Prefix>())]
    prefix: Option<Prefix>,
}

/// Runs `export`.
pub(super) fn run(args: &ExportArgs) -> anyhow::Result<Outcome> {
    // Through symlinks: the export replaces the file a link names, and the link stays.
    let out = args
        .out
        .as_ref()
        .filter(|p| p.as_os_str() != "-")
        .map(|p| real_path(p));
    if let Some(path) = &out {
        check_out(path, &args.store)?;
    }
    let missing = matches!(std::fs::metadata(&args.store), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    if missing && !args.allow_missing {
        anyhow::bail!(
            "{}: no such store (--allow-missing exports popcount-filled tables from nothing)",
            args.store.display()
        );
    }
    let store = Store::load(&args.store)?;
    if missing {
        eprintln!(
            "{}: no such store; every square is filled at popcount bits (--allow-missing)",
            args.store.display()
        );
    }
    if args.format == Format::Json {
        if args.with_lookup {
            eprintln!("--with-lookup adds code to Rust and C only; the JSON export has none");
        }
        if args.prefix.is_some() {
            eprintln!("--prefix names the Rust and C items only; the JSON export has none");
        }
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
        prefix: args.prefix.clone().unwrap_or_default(),
    };
    let text = render(args.format, &layout, &source, &options);
    match &out {
        Some(path) => write_atomic(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    eprintln!(
        "{} layout: {}",
        if args.tight { "tight" } else { "2^bits" },
        layout.totals()
    );
    Ok(Outcome::Success)
}
