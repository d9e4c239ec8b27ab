//! Exhaustive search of one period of magics, low bits first: it proves that no magic exists,
//! or counts every magic of the period.
//!
//! Only `m mod P` matters, where `P = 2^(64 - l)` and `l` is the lowest mask square: every
//! blocker subset is a multiple of `2^l`. More precisely, a subset whose lowest square is `k`
//! gets an index that depends only on `m mod 2^(64 - k)`. So the mask squares, taken from the
//! highest down, cut the bits of `m` into *levels*: level `i` holds the bits of `m` from
//! `64 - s_(i-1)` up to `64 - s_i` (with `s_(-1) = 64`), and fixing them determines the index
//! of every subset whose lowest square is `s_i`. The search fixes level after level, places
//! the newly determined subsets into the table and goes deeper only while no destructive
//! collision appears. A collision prunes the whole subtree above it.
//!
//! The space is cut into *tasks*: the values of the lowest [`Plan::task_bits`] bits of `m`.
//! Tasks are independent, deterministic and searched in a fixed order, so a part of the space
//! (a shard, see [`shard`]) is a list of tasks and a checkpoint is a position in that list.

pub mod run;
pub mod shard;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::attacks::Occupancies;
use crate::magic;
use crate::piece::Target;

/// The most task bits: 2^18 tasks is fine-grained enough for many machines and for
/// checkpoints, and cheap to walk.
pub const MAX_TASK_BITS: u32 = 18;

/// One level of the search: the bits of `m` it fixes and the subsets they determine.
#[derive(Clone, Debug)]
struct Level {
    /// First bit of `m` fixed by this level.
    lo: u32,
    /// One past the last bit of `m` fixed by this level.
    hi: u32,
    /// The subsets whose lowest square is this level's square: (occupancy, attack id + 1).
    subsets: Vec<(u64, u16)>,
}

/// What the exhaustive search needs of one (target, bits), built once.
#[derive(Clone, Debug)]
pub struct Plan {
    bits: u32,
    period_bits: u32,
    task_bits: u32,
    levels: Vec<Level>,
    empty_att: u16,
}

impl Plan {
    /// The plan of `target` at `bits` index bits (1 to 12).
    ///
    /// # Panics
    /// If `bits` is not 1 to 12.
    #[must_use]
    pub fn new(target: Target, bits: u32) -> Plan {
        let o = Occupancies::new(target);
        let pairs: Vec<(u64, u64)> = o.pairs.iter().map(|p| (p.0 .0, p.1 .0)).collect();
        Plan::from_pairs(o.mask.0, &pairs, bits)
    }

    /// A plan from raw (subset, attack set) pairs over `mask`: every subset of `mask` must
    /// appear once. Only whether two attack sets are equal matters, so tests can build
    /// instances with small periods (a real mask shifted up the board).
    ///
    /// # Panics
    /// If `bits` is not 1 to 12, `mask` is empty, or a subset is missing.
    #[must_use]
    pub fn from_pairs(mask: u64, pairs: &[(u64, u64)], bits: u32) -> Plan {
        assert!((1..=12).contains(&bits), "bits {bits}");
        assert!(mask != 0, "empty mask");
        assert_eq!(
            pairs.len(),
            1usize << mask.count_ones(),
            "every subset once"
        );
        let mut atts: Vec<u64> = pairs.iter().map(|p| p.1).collect();
        atts.sort_unstable();
        atts.dedup();
        let id = |a: u64| -> u16 {
            let i = atts.binary_search(&a).expect("attack set listed");
            u16::try_from(i + 1).expect("at most 4096 attack sets")
        };
        let mut squares: Vec<u32> = (0..64).filter(|s| mask >> s & 1 == 1).collect();
        squares.reverse();
        let mut levels = Vec::with_capacity(squares.len());
        let mut lo = 0;
        for &s in &squares {
            let hi = 64 - s;
            let subsets = pairs
                .iter()
                .filter(|p| p.0 != 0 && p.0.trailing_zeros() == s)
                .map(|p| (p.0, id(p.1)))
                .collect();
            levels.push(Level { lo, hi, subsets });
            lo = hi;
        }
        let empty = pairs.iter().find(|p| p.0 == 0).expect("empty subset");
        let period_bits = 64 - mask.trailing_zeros();
        Plan {
            bits,
            period_bits,
            task_bits: period_bits.min(MAX_TASK_BITS),
            levels,
            empty_att: id(empty.1),
        }
    }

    /// The same plan cut into `2^task_bits` tasks (at most the period bits); the magics found
    /// do not depend on it, only how the work is split.
    #[must_use]
    pub fn with_task_bits(mut self, task_bits: u32) -> Plan {
        self.task_bits = task_bits.min(self.period_bits);
        self
    }

    /// Index bits.
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// `log2` of the period: only the low `period_bits` bits of a magic matter.
    #[must_use]
    pub fn period_bits(&self) -> u32 {
        self.period_bits
    }

    /// Bits of `m` that name a task: the tasks are `0 .. 2^task_bits`.
    #[must_use]
    pub fn task_bits(&self) -> u32 {
        self.task_bits
    }

    /// Number of tasks.
    #[must_use]
    pub fn tasks(&self) -> u64 {
        1 << self.task_bits
    }
}

/// The best magic of a search so far: the smallest highest index, then the smallest magic.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Best {
    /// Highest slot used.
    pub max_index: u32,
    /// The magic, reduced modulo the period.
    pub magic: u64,
}

/// What searching some tasks gave.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Magics found (residues modulo the period).
    pub magics: u64,
    /// Partial magics tested.
    pub nodes: u64,
    /// The best magic found, if any.
    pub best: Option<Best>,
}

impl Tally {
    /// Adds another tally.
    pub fn add(&mut self, other: &Tally) {
        self.magics += other.magics;
        self.nodes += other.nodes;
        self.best = match (self.best, other.best) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// A task stopped before it finished, after testing `nodes` partial magics.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// Partial magics tested before the stop.
    pub nodes: u64,
}

/// A worker's state: the slot table with an undo log, reused for every task.
#[derive(Clone, Debug)]
pub struct Searcher<'p> {
    plan: &'p Plan,
    shift: u32,
    slots: Vec<u16>,
    undo: Vec<u16>,
    tally: Tally,
    task: u64,
    task_mask: u64,
    stopped: bool,
    collect: Option<Vec<u64>>,
}

/// How often (in nodes) a worker looks at the stop flag.
const POLL: u64 = 1 << 16;

impl<'p> Searcher<'p> {
    /// A searcher for `plan`.
    #[must_use]
    pub fn new(plan: &'p Plan) -> Searcher<'p> {
        Searcher {
            plan,
            shift: 64 - plan.bits,
            slots: vec![0; 1 << plan.bits],
            undo: Vec::with_capacity(1 << 13),
            tally: Tally::default(),
            task: 0,
            task_mask: (1u64 << plan.task_bits) - 1,
            stopped: false,
            collect: None,
        }
    }

    /// Searches task `task` (the magics whose low [`Plan::task_bits`] bits equal it).
    ///
    /// # Errors
    /// [`Stopped`] with the nodes tested so far when `stop` was set before it finished.
    pub fn run_task(&mut self, task: u64, stop: &AtomicBool) -> Result<Tally, Stopped> {
        debug_assert!(task <= self.task_mask);
        self.task = task;
        self.tally = Tally::default();
        self.stopped = false;
        self.slots.fill(0);
        self.slots[0] = self.plan.empty_att;
        self.undo.clear();
        self.descend(0, 0, 0, stop);
        if self.stopped {
            Err(Stopped {
                nodes: self.tally.nodes,
            })
        } else {
            Ok(self.tally)
        }
    }

    /// Keeps every magic (reduced modulo the period) of the tasks run from now on; see
    /// [`Searcher::collected`].
    pub fn collect_magics(&mut self) {
        self.collect.get_or_insert_with(Vec::new);
    }

    /// The magics kept since [`Searcher::collect_magics`], in search order.
    #[must_use]
    pub fn collected(&self) -> &[u64] {
        self.collect.as_deref().unwrap_or_default()
    }

    fn descend(&mut self, depth: usize, prefix: u64, max_index: u32, stop: &AtomicBool) {
        let plan = self.plan;
        let level = &plan.levels[depth];
        let fixed_hi = level.hi.min(plan.task_bits);
        let fixed = prefix | (self.task & low_mask(fixed_hi));
        let from = level.lo.max(plan.task_bits).min(level.hi);
        let count = 1u64 << (level.hi - from);
        let last = depth + 1 == plan.levels.len();
        for v in 0..count {
            if self.stopped {
                return;
            }
            self.tally.nodes += 1;
            if self.tally.nodes.is_multiple_of(POLL) && stop.load(Ordering::Relaxed) {
                self.stopped = true;
                return;
            }
            let m = fixed | v << from;
            let mark = self.undo.len();
            let Some(max) = self.place(&level.subsets, m, max_index, mark) else {
                continue;
            };
            if last {
                self.tally.magics += 1;
                let b = Best {
                    max_index: max,
                    magic: m,
                };
                self.tally.best = Some(match self.tally.best {
                    Some(old) if old < b => old,
                    _ => b,
                });
                if let Some(c) = self.collect.as_mut() {
                    c.push(m);
                }
            } else {
                self.descend(depth + 1, m, max, stop);
            }
            for &i in &self.undo[mark..] {
                self.slots[usize::from(i)] = 0;
            }
            self.undo.truncate(mark);
        }
    }

    /// Places `subsets` under `m`; on a destructive collision undoes what it wrote and
    /// returns `None`, else the new highest slot.
    #[inline]
    fn place(&mut self, subsets: &[(u64, u16)], m: u64, mut max: u32, mark: usize) -> Option<u32> {
        for &(occ, att) in subsets {
            let i = magic::index_masked(occ, m, self.shift);
            let held = self.slots[i];
            if held == 0 {
                self.slots[i] = att;
                self.undo.push(i as u16);
                max = max.max(i as u32);
            } else if held != att {
                for &j in &self.undo[mark..] {
                    self.slots[usize::from(j)] = 0;
                }
                self.undo.truncate(mark);
                return None;
            }
        }
        Some(max)
    }
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Searches the whole period on one thread: the tally of every task.
#[must_use]
pub fn search_all(plan: &Plan) -> Tally {
    let stop = AtomicBool::new(false);
    let mut s = Searcher::new(plan);
    let mut total = Tally::default();
    for t in 0..plan.tasks() {
        let tally = s.run_task(t, &stop).expect("never stopped");
        total.add(&tally);
    }
    total
}

/// Every magic of the period (reduced modulo it), sorted; for small periods and tests.
#[must_use]
pub fn all_magics(plan: &Plan) -> Vec<u64> {
    let stop = AtomicBool::new(false);
    let mut s = Searcher::new(plan);
    s.collect_magics();
    for t in 0..plan.tasks() {
        s.run_task(t, &stop).expect("never stopped");
    }
    let mut found = s.collected().to_vec();
    found.sort_unstable();
    found
}

#[cfg(test)]
mod tests;
