//! `magichunt pack`: magics in one shared array (the packed layout), written as a packed
//! table in the table format. The magics come from a store, or from a packed table to
//! improve (`--from`); with `--pool` every square may also take any magic of a pool, and the
//! packer chooses magics and offsets together. Optionally it hunts magics that fit the
//! array's holes (`--hunt`). `--layout indexed` makes an indexed table (one-byte ids) the
//! same way.

use std::path::PathBuf;

use clap::Args;

use super::{formula_arg, threads_or_all, Outcome};
use crate::interrupt::{self, Stop};
use crate::layout::pack_indexed::ListsMode;
use crate::layout::Layout;
use crate::pool::pack::{pack, PackConfig};
use crate::progress::Lines;
use crate::question::Formula;
use crate::timefmt::parse_duration;

/// Arguments of `pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The results store whose magics are packed [default: results/mine.json in a checkout,
    /// else your own store in the data folder; when it does not exist yet, the shipped
    /// results/best.json or the table built into magichunt; MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Pack the store's magics of this formula (plain or black).
    #[arg(long, default_value = "plain", value_parser = formula_arg)]
    formula: Formula,
    /// Start from this packed table (its magics and offsets) instead of the store: resumes an
    /// earlier `pack`; the result is never larger.
    #[arg(long, conflicts_with_all = ["store", "formula"])]
    from: Option<PathBuf>,
    /// Let every square also take any magic of this pool (`hunt --objective slots`): the
    /// packer chooses magics and offsets together.
    #[arg(long)]
    pool: Option<PathBuf>,
    /// With `--pool`: magics per square the packer chooses among at most, the best by
    /// footprint of the source's and the pool's (a `--from` table's magic always among them).
    #[arg(long, default_value_t = 24)]
    choices: usize,
    /// Fixed shift: every rook at 12 bits, every bishop at 9 (one shift per piece, written
    /// into the lookup's code); a store's magic at fewer bits is taken at those bits.
    #[arg(long)]
    fixed_shift: bool,
    /// With `--pool`: rank magics by their slots plus their holes of at most this many slots
    /// (default: the pool's own gap).
    #[arg(long)]
    gap: Option<u32>,
    /// Where to write the packed table (`-`: stdout); written whenever the table shrinks
    /// during a long run, so that `--from` resumes it.
    #[arg(long, default_value = "-")]
    out: PathBuf,
    /// Annealing steps after first-fit decreasing (0: none).
    /// [default: 20000 without --time; with --time, as many as fit in it]
    #[arg(long)]
    steps: Option<u64>,
    /// Stop the annealing after this long (90s, 10m); the temperature falls over it.
    #[arg(long)]
    time: Option<String>,
    /// Starting temperature of the annealing, in entries (lower it to refine a good table).
    #[arg(long, default_value_t = 100.0)]
    hot: f64,
    /// Hunt, for this long, new magics for the squares at the top of the array that fit the
    /// holes below (10m, 8h); the table is saved to `--out` whenever it shrinks.
    #[arg(long)]
    hunt: Option<String>,
    /// Bits above a square's own that the hunt may try (0: the same bits only).
    #[arg(long, default_value_t = 0)]
    spread: u32,
    /// Worker threads of the hunt (default: available cores; at most 1024).
    #[arg(long, value_parser = super::threads_arg)]
    threads: Option<usize>,
    /// Seed of the packer's and the hunt's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The layout to make: packed (one array of 8-byte attack sets) or indexed (one array of
    /// one-byte ids into lists of attack sets; `--from` an indexed table resumes it).
    #[arg(long, default_value = "packed", value_parser = layout_arg)]
    layout: Layout,
    /// Indexed: shared lists (one list array, the lookup keeps the square's rays of an entry)
    /// or each square's own (lists[list + id], no mask; 8 bytes for each of the 6,328 attack
    /// sets, and the packer numbers each square's ids to share slots).
    #[arg(long, default_value = "shared", value_parser = lists_arg)]
    lists: ListsMode,
    /// Indexed: taken slots a square may meet where it is placed, sharing them where the ids
    /// are equal (0: none; more is slower).
    #[arg(long, default_value_t = default_hits())]
    hits: u32,
}

const fn default_hits() -> u32 {
    crate::layout::ids::DEFAULT_HITS
}

fn layout_arg(s: &str) -> Result<Layout, String> {
    s.parse()
        .map_err(|e: crate::error::ParseError| e.to_string())
}

fn lists_arg(s: &str) -> Result<ListsMode, String> {
    s.parse()
        .map_err(|e: crate::error::ParseError| e.to_string())
}

impl TryFrom<&PackArgs> for PackConfig {
    type Error = anyhow::Error;

    fn try_from(a: &PackArgs) -> anyhow::Result<PackConfig> {
        let duration = |s: &Option<String>| s.as_deref().map(parse_duration).transpose();
        Ok(PackConfig {
            store: a.store.clone(),
            formula: a.formula,
            from: a.from.clone(),
            pool: a.pool.clone(),
            choices: a.choices,
            fixed_shift: a.fixed_shift,
            gap: a.gap,
            out: Some(a.out.clone()).filter(|p| p.as_os_str() != "-"),
            steps: a.steps,
            time: duration(&a.time)?,
            hot: a.hot,
            hunt: duration(&a.hunt)?,
            spread: a.spread,
            threads: a.threads.unwrap_or_else(|| threads_or_all(None)),
            seed: a.seed,
            command: command_line(),
            layout: a.layout,
            lists: a.lists,
            hits: a.hits,
        })
    }
}

/// Runs `pack`: exit 0 when done, 130 after Ctrl-C (the best table so far written).
pub(super) fn run(args: &PackArgs) -> anyhow::Result<Outcome> {
    let cfg = PackConfig::try_from(args)?;
    let stop = Stop::new();
    interrupt::install(&stop)?;
    let packed = pack(&cfg, &stop, &mut Lines::new(None))?;
    if let Some(text) = &packed.text {
        super::out::document(text.as_bytes())?;
    }
    Ok(if packed.interrupted {
        Outcome::Interrupted
    } else {
        Outcome::Success
    })
}

/// The command line as run, for the table's record of how it was made.
fn command_line() -> String {
    let mut words = vec!["magichunt".to_string()];
    words.extend(std::env::args().skip(1));
    words.join(" ")
}
