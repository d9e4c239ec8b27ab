//! Auditing an exhaustive search: re-run a random sample of the blocks of a finished part and
//! compare each with the block sum its residue records. An honest part matches on every
//! block; a part whose blocks were invented, copied or corrupted fails on each block that
//! differs, so an audit of `n` of a part's `B` blocks catches a part with a fraction `f` of
//! its blocks wrong with probability `1 - (1 - f)^n` (about, for `n` much smaller than `B`;
//! see `docs/trust.md` for what was measured).

use std::fmt;
use std::time::Instant;

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::exhaust::campaign::residue::{BlockSum, Residue};
use crate::exhaust::campaign::run::{run_part, Ending, PartState, RunConfig, REPORT};
use crate::exhaust::Plan;
use crate::interrupt::Stop;
use crate::table::wire::PartWire;
use crate::table::Exhaust;

use super::Cache;

/// What cuts a re-run short: Ctrl-C (`stop`), or the deadline of the command that asked for
/// it (`exhaust --time`, which re-runs a claimed part's blocks before it searches).
#[derive(Clone, Copy, Debug)]
pub struct Halt<'a> {
    /// Set by Ctrl-C.
    pub stop: &'a Stop,
    /// When the command's time runs out, if it has a limit.
    pub deadline: Option<Instant>,
}

impl<'a> Halt<'a> {
    /// Only Ctrl-C: no deadline.
    #[must_use]
    pub fn on(stop: &'a Stop) -> Halt<'a> {
        Halt {
            stop,
            deadline: None,
        }
    }
}

/// What re-running one block gave.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockRun {
    /// The block.
    pub block: u64,
    /// Its sum in the record.
    pub recorded: BlockSum,
    /// What the re-run gave now.
    pub got: Rerun,
}

/// What a block's re-run gave: its sum, or the point where it passed the recorded node count
/// and was stopped (the search is deterministic, so it could no longer match).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rerun {
    /// The block ran to its end: its sum.
    Sum(BlockSum),
    /// Stopped after this many nodes, more than the record claims for the whole block.
    Overran(u64),
}

impl fmt::Display for Rerun {
    /// The sum in the store's spelling, or where the re-run was stopped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rerun::Sum(s) => s.fmt(f),
            Rerun::Overran(n) => write!(f, "stopped past the recorded nodes, at {n}"),
        }
    }
}

impl BlockRun {
    /// Whether the re-run matches the record.
    #[must_use]
    pub fn matches(&self) -> bool {
        self.got == Rerun::Sum(self.recorded)
    }
}

/// `n` distinct blocks of `0..count`, drawn from `seed` (every block when `n >= count`),
/// in increasing order.
#[must_use]
pub fn sample(count: u64, n: u64, seed: u64) -> Vec<u64> {
    let mut all: Vec<u64> = (0..count).collect();
    if n >= count {
        return all;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    for i in 0..n {
        let left = all.len() - i;
        let j = i + usize::try_from(rng.next_u64() % left as u64).unwrap_or(0);
        all.swap(i, j);
    }
    all.truncate(n);
    all.sort_unstable();
    all
}

/// Re-runs block `b` of the part whose residue is `residue` (its search and plan) on
/// `threads` threads; `None` when `halt` cut it short (Ctrl-C, or its deadline passed). A
/// re-run that passes the block's recorded node count is stopped there
/// ([`Rerun::Overran`]): a forged record that claims little costs little to refute.
///
/// # Errors
/// When a worker thread cannot be started.
///
/// # Panics
/// If `b` is not a block the residue records.
pub fn rerun_block(
    plan: &Plan,
    residue: &Residue,
    b: u64,
    threads: usize,
    halt: Halt<'_>,
) -> std::io::Result<Option<BlockRun>> {
    let recorded = residue.blocks[usize::try_from(b).expect("a block index")];
    let time_limit = halt
        .deadline
        .map(|d| d.saturating_duration_since(Instant::now()));
    let positions = residue.positions(b);
    let mut state = PartState {
        done: positions.start,
        residue: Some(Residue::new(residue.search, plan.tasks())),
        ..PartState::default()
    };
    let cfg = RunConfig {
        threads,
        time_limit,
        report: REPORT,
        until: Some(positions.end),
        node_limit: Some(recorded.nodes),
    };
    let mut seen = 0;
    let ending = run_part(
        plan,
        residue.search.shard,
        &mut state,
        &cfg,
        halt.stop,
        |_, p| seen = p.nodes_seen,
    )?;
    let got = match ending {
        Ending::Finished => Rerun::Sum(
            state
                .residue
                .and_then(|r| r.blocks.first().copied())
                .expect("a finished block is closed"),
        ),
        Ending::Overran => Rerun::Overran(seen),
        Ending::Stopped | Ending::TimeUp => return Ok(None),
    };
    Ok(Some(BlockRun {
        block: b,
        recorded,
        got,
    }))
}

/// What auditing one finished part gave ([`audit_part`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartAudit {
    /// Its residue does not fit its record: why.
    Unfit(String),
    /// It has no residue: nothing to re-run (searched before parts carried evidence).
    NoResidue,
    /// A block re-ran to another sum than recorded (of the part's `blocks`).
    Wrong {
        /// The block that differs.
        run: BlockRun,
        /// Blocks in the part's residue.
        blocks: usize,
    },
    /// Every block re-run matched; fewer than were drawn when Ctrl-C or the deadline came
    /// first.
    Matched {
        /// The blocks re-run, in order.
        matched: Vec<u64>,
        /// How many were drawn.
        drawn: usize,
        /// Blocks in the part's residue.
        blocks: usize,
    },
}

/// Audits one finished part of the exhaustive search `x`: re-runs `n` of its blocks drawn
/// from `seed` (mixed with the part, so that the parts of one audit draw differently), and
/// records in `cache` the blocks that matched, or forgets the part when one does not.
///
/// # Errors
/// When a worker thread cannot be started.
pub fn audit_part(
    x: &Exhaust,
    part: &PartWire,
    n: u64,
    seed: u64,
    threads: usize,
    halt: Halt<'_>,
    cache: &mut Cache,
) -> std::io::Result<PartAudit> {
    let (plan, residue) = match super::part_residue(x, part) {
        Err(why) => return Ok(PartAudit::Unfit(why)),
        Ok(None) => return Ok(PartAudit::NoResidue),
        Ok(Some(r)) => r,
    };
    let key = super::part_key(x, part);
    let blocks = residue.blocks.len();
    let drawn = sample(
        blocks as u64,
        n,
        seed ^ u64::from(part.shard)
            ^ (u64::from(x.bits) << 8)
            ^ (x.target.square.index() as u64) << 16,
    );
    let mut matched = Vec::new();
    for &b in &drawn {
        match rerun_block(&plan, &residue, b, threads, halt)? {
            None => break,
            Some(run) if run.matches() => matched.push(b),
            Some(run) => {
                cache.forget_part(&key);
                return Ok(PartAudit::Wrong { run, blocks });
            }
        }
    }
    if !matched.is_empty() {
        cache.add_audited(&key, matched.iter().copied());
    }
    Ok(PartAudit::Matched {
        matched,
        drawn: drawn.len(),
        blocks,
    })
}

/// What [`done_part_stands`] found of a part recorded done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Checked by this build, or its blocks re-run to their record: it may be skipped.
    Stands,
    /// A block did not re-run to its record, or nothing can be re-run: search it again.
    SearchAgain,
    /// Ctrl-C or the deadline came before the re-run decided: nothing is known yet.
    CutShort,
}

/// Whether a part of `x` that the store `name` records as done may be skipped (what `exhaust`
/// asks before it searches a part): only when this build checked it (searched here, or
/// audited). One only claimed has two of its blocks re-run first, as `magichunt audit` does
/// (said on stderr), within `halt`: it stands when they match; when one does not, or it has
/// no residue to re-run, it must be searched again. A claim never makes the search be skipped
/// unchecked.
///
/// # Errors
/// When a worker thread of the re-run cannot be started.
pub fn done_part_stands(
    x: &Exhaust,
    p: &PartWire,
    name: &str,
    threads: usize,
    halt: Halt<'_>,
    cache: &mut Cache,
) -> std::io::Result<Standing> {
    if super::part_checked(x, p, cache) {
        return Ok(Standing::Stands);
    }
    let what = format!(
        "part {}/{} of {} at {} bits",
        p.shard, x.shards, x.target, x.bits
    );
    if p.residue.is_none() {
        crate::say!(
            "note: {what} is recorded done in {name} without a residue (written before parts carried evidence): only claimed, and nothing can check it, so it is searched again"
        );
        return Ok(Standing::SearchAgain);
    }
    crate::say!(
        "note: {what} is recorded done in {name}, but was not searched here nor audited (only claimed): re-running 2 of its blocks first, as `magichunt audit` does"
    );
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let audit = audit_part(x, p, 2, seed, threads, halt, cache)?;
    cache.save();
    Ok(match audit {
        PartAudit::Matched { matched, drawn, .. } if matched.len() == drawn => {
            crate::say!(
                "note: blocks {} matched their record: the part stands (`magichunt audit --sample N` re-runs more)",
                matched
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" and ")
            );
            Standing::Stands
        }
        PartAudit::Matched { .. } => Standing::CutShort,
        PartAudit::Wrong { run, blocks } => {
            crate::say!(
                "note: block {} of {blocks} does not re-run to its record (recorded {}, re-run {}): the record is false; searching the part again",
                run.block,
                run.recorded,
                run.got
            );
            Standing::SearchAgain
        }
        PartAudit::Unfit(why) => {
            crate::say!("note: its record does not hold together ({why}); searching it again");
            Standing::SearchAgain
        }
        PartAudit::NoResidue => Standing::SearchAgain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exhaust::campaign::residue::{Search, TaskResult};
    use crate::exhaust::campaign::shard::Shard;
    use crate::exhaust::Searcher;
    use crate::{Piece, Square, Target};
    use std::sync::atomic::AtomicBool;

    #[test]
    fn samples_are_distinct_sorted_and_repeatable() {
        let s = sample(256, 8, 42);
        assert_eq!(s.len(), 8);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(s, sample(256, 8, 42));
        assert_ne!(s, sample(256, 8, 43));
        assert_eq!(sample(5, 9, 1), vec![0, 1, 2, 3, 4]);
        assert!(sample(0, 3, 1).is_empty());
    }

    #[test]
    fn a_block_re_runs_to_its_record_and_a_forged_one_does_not() {
        let t = Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap());
        let plan = Plan::new(t, 6).with_task_bits(14);
        let shard = Shard { index: 1, count: 2 };
        let search = Search::of(t, &plan, shard);
        let stop = AtomicBool::new(false);
        let mut s = Searcher::new(&plan);
        let mut r = Residue::new(search, plan.tasks());
        for j in 0..r.len {
            let task = shard.task_at(j, plan.tasks());
            let tally = s.run_task(task, &stop).unwrap();
            r.push(j, &TaskResult { task, tally });
        }
        let b = 3;
        let run = rerun_block(&plan, &r, b, 2, Halt::on(&Stop::new()))
            .unwrap()
            .unwrap();
        assert!(run.matches(), "{run:?}");
        let mut forged = r.clone();
        forged.blocks[3].digest ^= 1;
        let run = rerun_block(&plan, &forged, b, 1, Halt::on(&Stop::new()))
            .unwrap()
            .unwrap();
        assert!(!run.matches());
        assert!(matches!(run.got, Rerun::Sum(_)), "{run:?}");
        // A record that claims fewer nodes than the block takes: the re-run stops once it
        // passes them, and does not match. On one thread it stops at the task that passes
        // them, not at the end of the chunk that task was in.
        let tasks: Vec<u64> = r
            .positions(b)
            .map(|j| {
                s.run_task(shard.task_at(j, plan.tasks()), &stop)
                    .unwrap()
                    .nodes
            })
            .collect();
        assert!(tasks.len() >= 8 && tasks[4] > 0, "{tasks:?}");
        let mut small = r.clone();
        let whole = small.blocks[3].nodes;
        small.blocks[3].nodes = tasks[..4].iter().sum();
        let run = rerun_block(&plan, &small, b, 1, Halt::on(&Stop::new()))
            .unwrap()
            .unwrap();
        assert!(!run.matches());
        let five: u64 = tasks[..5].iter().sum();
        match run.got {
            Rerun::Overran(n) => assert!(n == five && n < whole, "{n}, {five} of {whole}"),
            Rerun::Sum(s) => panic!("ran to its end: {s}"),
        }
    }
}
