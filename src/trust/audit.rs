//! Auditing an exhaustive search: re-run a random sample of the blocks of a finished part and
//! compare each with the block sum its residue records. An honest part matches on every
//! block; a part whose blocks were invented, copied or corrupted fails on each block that
//! differs, so an audit of `n` of a part's `B` blocks catches a part with a fraction `f` of
//! its blocks wrong with probability `1 - (1 - f)^n` (about, for `n` much smaller than `B`;
//! see `docs/trust.md` for what was measured).

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::exhaust::campaign::residue::{BlockSum, Residue};
use crate::exhaust::campaign::run::{run_part, Ending, PartState, RunConfig, REPORT};
use crate::exhaust::Plan;
use crate::interrupt::Stop;

/// What re-running one block gave.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockRun {
    /// The block.
    pub block: u64,
    /// Its sum in the record.
    pub recorded: BlockSum,
    /// Its sum re-run now.
    pub got: BlockSum,
}

impl BlockRun {
    /// Whether the re-run matches the record.
    #[must_use]
    pub fn matches(&self) -> bool {
        self.recorded == self.got
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
/// `threads` threads; `None` when `stop` cut it short.
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
    stop: &Stop,
) -> std::io::Result<Option<BlockRun>> {
    let recorded = residue.blocks[usize::try_from(b).expect("a block index")];
    let positions = residue.positions(b);
    let mut state = PartState {
        done: positions.start,
        residue: Some(Residue::new(residue.search, plan.tasks())),
        ..PartState::default()
    };
    let cfg = RunConfig {
        threads,
        time_limit: None,
        report: REPORT,
        until: Some(positions.end),
    };
    let ending = run_part(
        plan,
        residue.search.shard,
        &mut state,
        &cfg,
        stop,
        |_, _| {},
    )?;
    if ending != Ending::Finished {
        return Ok(None);
    }
    let got = state
        .residue
        .and_then(|r| r.blocks.first().copied())
        .expect("a finished block is closed");
    Ok(Some(BlockRun {
        block: b,
        recorded,
        got,
    }))
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
        let plan = Plan::new(t, 6).with_task_bits(10);
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
        let run = rerun_block(&plan, &r, b, 2, &Stop::new()).unwrap().unwrap();
        assert!(run.matches(), "{run:?}");
        let mut forged = r.clone();
        forged.blocks[3].digest ^= 1;
        let run = rerun_block(&plan, &forged, b, 1, &Stop::new())
            .unwrap()
            .unwrap();
        assert!(!run.matches());
    }
}
