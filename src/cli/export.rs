//! `magichunt export`: the store as Rust, C or JSON for an engine.

use std::path::PathBuf;

use clap::Args;

use super::{formula_arg, Outcome};
use crate::export::{export, ExportConfig, Format, Layout, Options, Prefix};
use crate::progress::Lines;
use crate::question::Formula;

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// rust, c or json.
    #[arg(long, value_parser = |s: &str| s.parse::<Format>())]
    format: Format,
    /// The results store to export; a given one must exist (see --allow-missing)
    /// [default: results/mine.json in a checkout, else your own store in the data folder; when
    /// it does not exist yet, the shipped results/best.json or the table built into magichunt;
    /// MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Export even if the store does not exist: every square filled at popcount bits.
    #[arg(long)]
    allow_missing: bool,
    /// Write here (atomically) instead of stdout; `-` is stdout. Never a store.
    #[arg(long)]
    out: Option<PathBuf>,
    /// fancy (each square 2^bits entries in its piece's table), tight (max_index - min_index + 1
    /// entries), packed (one table shared by rooks and bishops, offsets chosen by the packer:
    /// first-fit decreasing, then 20000 seeded annealing steps, as `magichunt pack`) or indexed
    /// (the packed offsets with one-byte ids into shared lists of attack sets; with --packed,
    /// a packed table's offsets so).
    #[arg(long, value_parser = |s: &str| s.parse::<Layout>(), conflicts_with = "tight")]
    layout: Option<Layout>,
    /// The same as --layout tight.
    #[arg(long)]
    tight: bool,
    /// Export the store's magics of this formula: plain, or black (index
    /// ((occ | ~mask) * magic) >> (64 - bits)).
    #[arg(long, default_value = "plain", value_parser = formula_arg)]
    formula: Formula,
    /// Export this packed or indexed table (written by `magichunt pack`) as it is, instead of a
    /// store: checked as a whole first (every subset of every square in the shared array).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["store", "allow_missing", "formula", "tight"])]
    packed: Option<PathBuf>,
    /// Count every proof the store records as proven in the header, also those only claimed
    /// (not checked here).
    #[arg(long, conflicts_with = "packed")]
    count_claimed: bool,
    /// Rust and C: add rook_attacks / bishop_attacks and the tables they read (Rust: computed
    /// at compile time, no std; C: filled by init_attack_tables(); indexed: data in both).
    #[arg(long)]
    with_lookup: bool,
    /// Rust: fill the attack table at run time in a std OnceLock instead of
    /// computing it at compile time: a smaller binary and a faster compile, but it needs std
    /// and an allocator. The indexed layout's tables are data either way.
    #[arg(long, requires = "with_lookup")]
    runtime_fill: bool,
    /// Rust and C: put P in front of every public name (C: P lower-case for functions and
    /// types, upper-case for macros and constants; `mh_` gives mh_rook_attacks, MH_ROOK_MAGICS).
    #[arg(long, value_name = "P", value_parser = |s: &str| s.parse::<Prefix>())]
    prefix: Option<Prefix>,
}

/// Runs `export`.
pub(super) fn run(args: &ExportArgs) -> anyhow::Result<Outcome> {
    let cfg = ExportConfig {
        store: args.store.clone(),
        packed: args.packed.clone(),
        allow_missing: args.allow_missing,
        out: args.out.clone().filter(|p| p.as_os_str() != "-"),
        layout: args.layout.or(args.tight.then_some(Layout::Tight)),
        formula: args.formula,
        count_claimed: args.count_claimed,
        options: Options {
            with_lookup: args.with_lookup,
            prefix: args.prefix.clone().unwrap_or_default(),
            runtime_fill: args.runtime_fill,
        },
        ..ExportConfig::new(args.format)
    };
    if let Some(text) = export(&cfg, &mut Lines::new(None))? {
        super::out::document(text.as_bytes())?;
    }
    Ok(Outcome::Success)
}
