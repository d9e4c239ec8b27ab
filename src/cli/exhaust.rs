//! `magichunt exhaust`: search one period completely, or one part of it, into the store
//! ([`crate::settle::exhaustive::run_part`]).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use super::progress::Display;
use super::{piece_arg, square_arg, threads_or_all, Outcome};
use crate::exhaust::campaign::run::Ending;
use crate::exhaust::campaign::shard::Shard;
use crate::exhaust::Order;
use crate::interrupt::{install, Stop};
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};
use crate::settle::exhaustive::{add_found, run_part, FoundConfig, PartConfig, PartOutcome};
use crate::square::Square;
use crate::timefmt::parse_duration;

/// How often a log hears of the progress (a terminal sees it redrawn).
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Arguments of `exhaust`.
#[derive(Debug, Args)]
pub struct ExhaustArgs {
    /// rook or bishop.
    #[arg(long, value_parser = piece_arg)]
    piece: Piece,
    /// a1..h8 or 0..63.
    #[arg(long, value_parser = square_arg)]
    square: Square,
    /// Index bits to settle.
    #[arg(long)]
    bits: u32,
    /// Search part K of M (1-based), e.g. 3/8; the parts are deterministic.
    #[arg(long, default_value = "1/1", value_parser = shard_arg)]
    shard: Shard,
    /// The results store holding progress, proofs and magics [default: results/mine.json in a
    /// checkout, else your own store in the data folder, started from the shipped store;
    /// MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Worker threads (0: all cores; at most 1024).
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
    threads: usize,
    /// Stop after this long (e.g. 5m), save, and print the projected total time.
    #[arg(long, value_parser = duration_arg)]
    time: Option<Duration>,
    /// Search again even if this store already holds a proof of none at these bits.
    #[arg(long)]
    recheck: bool,
    /// Cut the period into 2^N subtrees, 1 to 32 [default: 18, fewer on short periods]. A
    /// subtree is what threads share and the most a kill can lose: the rank-1 rooks want 20 to
    /// 24 (docs/cluster.md). All parts of one search use the same N; a search already begun
    /// keeps its own.
    #[arg(long, value_name = "N", value_parser = task_bits_arg)]
    task_bits: Option<u32>,
    /// The order the bits of the magic are fixed in: `low` (lowest first; fast on rooks of
    /// ranks 5 to 8 and on bishops), `high` (the period's highest bits first, with the
    /// carries of the low ones bounded; up to millions of times fewer nodes on the rooks of
    /// ranks 1 to 4), `trim` (as high, each window trimmed to where every family of subsets
    /// fits; 3 to 7 times cheaper than high on those rooks) or `fold` (as trim over half the
    /// period, each value standing for itself and its negation; about 1.8 times cheaper than
    /// trim) [default: fold for the rooks of ranks 1 to 4, low otherwise]. `bench --estimate
    /// Q --order O` projects any. A search already begun keeps its own.
    #[arg(long)]
    order: Option<Order>,
    /// Index formula: only `plain` can be enumerated (a black key is odd, so every bit of
    /// the magic matters and the low-bits-first pruning has nothing to prune); black
    /// questions are settled by `prove --formula black` (SAT).
    #[arg(long, default_value = "plain", value_parser = super::formula_arg)]
    formula: Formula,
    /// Search nothing: add to the search's record the magics FILE lists (one a line, blank
    /// and `#` lines skipped), found by another walk of the same search (as
    /// `scripts/research/check-store.py` writes them), where its parts do not list them. Each
    /// is verified; none may make a part list more magics than it counted. Then the tightest
    /// magic of the search is offered to the store.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["time", "recheck", "task_bits", "order"])]
    add_found: Option<PathBuf>,
}

pub(super) fn shard_arg(s: &str) -> Result<Shard, crate::error::ParseError> {
    s.parse()
}

pub(super) fn duration_arg(s: &str) -> Result<Duration, crate::error::ParseError> {
    parse_duration(s)
}

fn task_bits_arg(s: &str) -> Result<u32, crate::error::ParseError> {
    let max = crate::exhaust::MAX_TASK_BITS;
    s.trim()
        .parse()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| {
            crate::error::ParseError::Other(format!(
                "invalid task bits '{s}' (expected 1 to {max})"
            ))
        })
}

impl TryFrom<ExhaustArgs> for PartConfig {
    type Error = anyhow::Error;

    fn try_from(a: ExhaustArgs) -> anyhow::Result<PartConfig> {
        let question = Question::new(Target::new(a.piece, a.square), a.bits, a.formula)?;
        Ok(PartConfig {
            threads: threads_or_all(Some(a.threads)),
            time: a.time,
            recheck: a.recheck,
            task_bits: a.task_bits,
            order: a.order,
            ..PartConfig::new(
                question,
                a.shard,
                crate::locate::writing(a.store.as_deref())?,
            )
        })
    }
}

/// Runs `exhaust`: exit 0 when the part is done (or was), 1 when `--time` ran out first, 130
/// after Ctrl-C (the checkpoint saved either way).
pub(super) fn run(mut args: ExhaustArgs) -> anyhow::Result<Outcome> {
    if let Some(file) = args.add_found.take() {
        let cfg = FoundConfig {
            question: Question::new(
                Target::new(args.piece, args.square),
                args.bits,
                args.formula,
            )?,
            shards: args.shard.count,
            store: crate::locate::writing(args.store.as_deref())?,
            file,
        };
        print!("{}", add_found(&cfg)?.render_text());
        return Ok(Outcome::Success);
    }
    let cfg = PartConfig::try_from(args)?;
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    let outcome = run_part(&cfg, &stop, &mut Display::new(false, Some(LOG_EVERY)))?;
    super::out::text(&outcome.render_text())?;
    Ok(part_outcome(&outcome))
}

/// The exit code of a part: 0 done, 1 out of time, 130 stopped.
pub(super) fn part_outcome(outcome: &PartOutcome) -> Outcome {
    match outcome {
        PartOutcome::Interrupted { .. } => Outcome::Interrupted,
        PartOutcome::Ran(r) if r.ending == Ending::Stopped => Outcome::Interrupted,
        PartOutcome::Ran(r) if r.ending == Ending::TimeUp => Outcome::Failure,
        PartOutcome::OutOfTime { .. } => Outcome::Failure,
        _ => Outcome::Success,
    }
}
