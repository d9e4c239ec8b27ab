//! Exhaustive search of one period of magics: it proves that no magic exists, or counts every
//! magic of the period.
//!
//! Only `m mod P` matters, where `P = 2^(64 - l)` and `l` is the lowest mask square: every
//! blocker subset is a multiple of `2^l`. The period is searched as a tree whose nodes fix some
//! bits of `m`; a destructive collision among the subsets whose indices those bits determine
//! prunes the whole subtree. Four orders walk it, each an engine in this folder beside the
//! others ([`Order`] chooses; the magics found never depend on it, the nodes do):
//!
//! - **low** ([`Order::Low`]), the lowest bits first. A subset whose lowest square is `k` gets
//!   an index that depends only on `m mod 2^(64 - k)`, so the mask squares, taken from the
//!   highest down, cut the bits of `m` into *levels*: level `i` holds the bits of `m` from
//!   `64 - s_(i-1)` up to `64 - s_i` (with `s_(-1) = 64`), and fixing them determines the index
//!   of every subset whose lowest square is `s_i`. The engines are `word.rs` (the table in one
//!   machine word), `ring.rs` (larger tables, one residue class at a time) and the bit sets
//!   they share, `bits.rs`. Fast on the rooks of ranks 5 to 8 and on bishops.
//! - **high** ([`Order::High`], `topdown.rs`), the period's highest bits first, with the
//!   carries of the unknown low bits bounded: a subset is fixed by its highest square. Fast on
//!   the rooks of ranks 1 to 4.
//! - **trim** ([`Order::Trim`], `trim.rs`), the high order with each node's window trimmed to
//!   where every family of subsets has a compatible slot: fewer and cheaper nodes on the same
//!   rooks.
//! - **fold** ([`Order::Fold`], a mode of `trim.rs`), the trimmed search over half the period,
//!   each value standing for itself and its negation: the default on the rooks of ranks 1 to
//!   4.
//!
//! The trimmed walk keeps its slot table in `slots.rs`, and `join.rs` tests a family against
//! it where the family joins, which kills only nodes the walk kills: it changes the time, not
//! the nodes.
//!
//! The space is cut into *tasks* ([`Plan::task_bits`] bits of `m`: the lowest in the low order,
//! the period's highest in the others); a [`Searcher`] searches one task. Tasks are
//! independent and deterministic, so the machinery that turns them into a campaign lives apart
//! from the engines, in [`campaign`]: parts of the space and their cursors ([`campaign::shard`]),
//! the evidence a part keeps ([`campaign::residue`]), the threads that run a part
//! ([`campaign::run`]), the projection of a search's cost from a sample of its tasks
//! ([`campaign::estimate`]) and the whole-period benchmarks ([`campaign::bench`]). A part
//! searched into a store, resumable, its proof recorded, is [`crate::settle::exhaustive`].

mod bits;
pub mod campaign;
mod join;
mod ring;
mod slots;
mod topdown;
mod trim;
mod word;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::attacks::Occupancies;
use crate::piece::Target;

/// The task bits of a new search unless it asks for others: 2^18 tasks is fine-grained enough
/// for many machines and for checkpoints, and cheap to walk.
pub const DEFAULT_TASK_BITS: u32 = 18;

/// The most task bits a search may use (`exhaust --task-bits`): 2^32 tasks, so that one task
/// of the longest period (2^63, the rank-1 rooks) is 2^31 values, minutes of work.
pub const MAX_TASK_BITS: u32 = 32;

/// A task spans at least `2^MIN_TASK_SPAN` values of `m` (when the period allows): a task
/// cannot share a collision found in its low levels with its neighbours, so each task pays
/// for them again, and on a short period (bishop d8 at 9 bits, `2^26`) 2^18 tasks of 2^8
/// values each spent a quarter of the time on that (1.38 s against 1.07 s with 2^12 tasks).
pub const MIN_TASK_SPAN: u32 = 14;

/// The task bits of a new search of a period of `2^period_bits`: at most
/// [`DEFAULT_TASK_BITS`], and tasks of at least `2^MIN_TASK_SPAN` values.
#[must_use]
pub fn default_task_bits(period_bits: u32) -> u32 {
    period_bits
        .saturating_sub(MIN_TASK_SPAN)
        .min(DEFAULT_TASK_BITS)
}

/// The order in which a search fixes the bits of `m`: the two see the same magics and prune
/// on opposite ends of the board (docs/speed.md, "From the high bits down").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// The lowest bits first, level by level (a subset is fixed by its lowest square): fast
    /// when the mask's low squares hold few subsets (ranks 4 to 8 for rooks).
    #[default]
    Low,
    /// The highest bits of the period first, one at a time, with the carries of the unknown
    /// low bits bounded (a subset is fixed by its highest square): fast on the rooks of ranks
    /// 1 to 3. A task is a value of the period's top task bits.
    High,
    /// As [`Order::High`], with each node's window trimmed to the values where every family
    /// of subsets that moves by fewer than 128 slots sits in a compatible slot: fewer and
    /// cheaper nodes on the same rooks (docs/speed.md, "Trimmed windows"). Tasks as in the
    /// high order.
    Trim,
    /// As [`Order::Trim`] over half the period: `-m` is a magic exactly when `m` is one under
    /// the index of `occ * m - 1`, so each node keeps a value while either index could hold
    /// there, and a leaf checks `m` and `-m` by the definition (docs/speed.md, "Folding the
    /// period by negation"). Tasks as in the high order; those of the upper half are empty
    /// but the one at the half point, which checks that point alone.
    Fold,
}

impl Order {
    /// The order that costs the least on `target`: fold for the rooks of ranks 1 to 4, low
    /// for the others. Knuth's estimates of the high and low trees
    /// (`scripts/research/order-nodes.py`, docs/speed.md) put their crossover at rank 5 (rook
    /// a4 at 10 3.3e11 low against 3.3e10 high, d5 at 9 9.2e10 against 7.0e10, a5 at 10 9.0e11
    /// against 1.5e12, d6 at 9 2.0e10 against 5.8e12; the low engine's nodes are the cheaper
    /// ones), the trimmed windows cost a third to a seventh of the high order on the same
    /// rooks (rook d4 at 9 0.12 CPU-hours against 0.43, h3 at 10 1.0 against 7.1, d5 at 9 3.8
    /// against 8.9, where the low order's 0.19 still wins), and folding the period costs 1.76
    /// to 1.86 times less than trim on every rook measured from rank 1 to 4 (d4 at 9 257 s
    /// against 454, h3 at 10 0.57 h against 1.05, a1 at 11 12.7 h against 23.7).
    #[must_use]
    pub fn suited(target: Target) -> Order {
        if target.piece == crate::piece::Piece::Rook && target.square.index() < 32 {
            Order::Fold
        } else {
            Order::Low
        }
    }

    /// The spelling on the command line and in the store.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Order::Low => "low",
            Order::High => "high",
            Order::Trim => "trim",
            Order::Fold => "fold",
        }
    }

    /// Whether a task is a value of the period's top bits (the orders that fix the high bits
    /// first), rather than of its low bits.
    #[must_use]
    pub fn top_down(self) -> bool {
        self != Order::Low
    }
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Order {
    type Err = crate::error::ParseError;

    fn from_str(s: &str) -> Result<Order, Self::Err> {
        match s {
            "low" => Ok(Order::Low),
            "high" => Ok(Order::High),
            "trim" => Ok(Order::Trim),
            "fold" => Ok(Order::Fold),
            _ => Err(crate::error::ParseError::Other(format!(
                "unknown search order '{s}' (low, high, trim or fold)"
            ))),
        }
    }
}

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
    order: Order,
    levels: Vec<Level>,
    empty_att: u16,
    /// Distinct attack sets (ids `1..=attacks`).
    attacks: u16,
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
            task_bits: default_task_bits(period_bits),
            order: Order::Low,
            levels,
            empty_att: id(empty.1),
            attacks: u16::try_from(atts.len()).expect("at most 4096 attack sets"),
        }
    }

    /// The same plan cut into `2^task_bits` tasks (at most the period bits); the magics found
    /// do not depend on it, only how the work is split.
    #[must_use]
    pub fn with_task_bits(mut self, task_bits: u32) -> Plan {
        self.task_bits = task_bits.min(self.period_bits);
        self
    }

    /// The same plan searched in `order`; the magics found do not depend on it, the nodes do.
    #[must_use]
    pub fn with_order(mut self, order: Order) -> Plan {
        self.order = order;
        self
    }

    /// The order the bits are fixed in.
    #[must_use]
    pub fn order(&self) -> Order {
        self.order
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

    /// Partial magics every task counts at the first level alone: one per value of that
    /// level's bits above the task bits. A finished search of `n` tasks tested at least `n`
    /// times this many.
    #[must_use]
    pub fn first_level_nodes(&self) -> u64 {
        if self.order.top_down() {
            return 1; // the task's root
        }
        let l = &self.levels[0];
        let from = l.lo.max(self.task_bits).min(l.hi);
        1 << (l.hi - from)
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

/// How often (in nodes) a worker looks at the stop flag.
const POLL: u64 = 1 << 16;

/// One level as a task of a plan sees it: the bits it leaves free and its subsets.
///
/// The level's free bits are `from .. from + w` (`from` is above the task bits). With `m` fixed
/// below `from` and the free bits zero, subset `j` gets some index `i_j`; setting the free bits
/// to `v` adds `v << (64 - w)` to every product (the lowest square's term; the others fall off
/// the top), so when `w <= bits` every index moves by `v 2^(bits - w)` modulo the table: the
/// level's subsets move *together*. When `w > bits` the low `hl = w - bits` free bits only
/// carry into the index, and the high `bits` move it as before.
#[derive(Clone, Debug)]
pub(crate) struct Layer {
    /// First free bit of `m`.
    from: u32,
    /// Free bits.
    w: u32,
    /// `min(w, bits)`: the bits that move the indices.
    u: u32,
    /// `w - u`: the free bits below them that only carry.
    hl: u32,
    /// `bits - u`: one step of the level moves an index by `2^kb`.
    kb: u32,
    /// One past the level's last bit of `m` (for the task's share of it).
    hi: u32,
    /// The level's subsets, those whose attack set appears in no earlier level first (they
    /// need an empty slot, so they prune the most).
    subsets: Vec<(u64, u16)>,
}

/// The levels of `plan` for its task bits.
fn layers(plan: &Plan) -> Vec<Layer> {
    let mut seen = vec![false; usize::from(plan.attacks) + 1];
    seen[usize::from(plan.empty_att)] = true;
    plan.levels
        .iter()
        .map(|l| {
            let from = l.lo.max(plan.task_bits).min(l.hi);
            let w = l.hi - from;
            let u = w.min(plan.bits);
            let (new, old): (Vec<_>, Vec<_>) =
                l.subsets.iter().partition(|s| !seen[usize::from(s.1)]);
            for s in &l.subsets {
                seen[usize::from(s.1)] = true;
            }
            Layer {
                from,
                w,
                u,
                hl: w - u,
                kb: plan.bits - u,
                hi: l.hi,
                subsets: new.into_iter().chain(old).collect(),
            }
        })
        .collect()
}

/// What a task gave so far, shared by the engines.
#[derive(Clone, Debug)]
struct Out {
    tally: Tally,
    collect: Option<Vec<u64>>,
    stopped: bool,
    /// The task stops once it has counted more nodes than this.
    budget: u64,
}

impl Default for Out {
    fn default() -> Self {
        Out {
            tally: Tally::default(),
            collect: None,
            stopped: false,
            budget: u64::MAX,
        }
    }
}

impl Out {
    /// Counts `n` nodes, and when a multiple of [`POLL`] is crossed looks at `stop` and at the
    /// task's node budget.
    #[inline]
    fn nodes(&mut self, n: u64, stop: &AtomicBool) {
        let before = self.tally.nodes;
        self.tally.nodes += n;
        if before / POLL != self.tally.nodes / POLL
            && (stop.load(Ordering::Relaxed) || self.tally.nodes > self.budget)
        {
            self.stopped = true;
        }
    }

    /// Whether a magic whose highest slot is at least `low` could beat the best so far.
    #[inline]
    fn could_improve(&self, low: u32) -> bool {
        self.tally.best.is_none_or(|b| low <= b.max_index)
    }

    /// Offers a magic as the best (it is counted elsewhere).
    #[inline]
    fn offer(&mut self, max_index: u32, magic: u64) {
        let b = Best { max_index, magic };
        if self.tally.best.is_none_or(|old| b < old) {
            self.tally.best = Some(b);
        }
    }
}

/// The engine that fits the table: one machine word for 8 to 64 slots, rings otherwise.
#[derive(Clone, Debug)]
enum Engine<'p> {
    B3(word::WordSearch<'p, u8>),
    B4(word::WordSearch<'p, u16>),
    B5(word::WordSearch<'p, u32>),
    B6(word::WordSearch<'p, u64>),
    Ring(ring::RingSearch<'p>),
    High(topdown::TopDown),
    Trim(trim::Trim),
}

/// A worker's state, reused for every task.
#[derive(Clone, Debug)]
pub struct Searcher<'p> {
    engine: Engine<'p>,
    out: Out,
    task_mask: u64,
}

impl<'p> Searcher<'p> {
    /// A searcher for `plan`.
    #[must_use]
    pub fn new(plan: &'p Plan) -> Searcher<'p> {
        let word = plan.attacks < 255;
        let engine = match plan.bits {
            _ if plan.order == Order::High => Engine::High(topdown::TopDown::new(plan)),
            _ if matches!(plan.order, Order::Trim | Order::Fold) => {
                Engine::Trim(trim::Trim::new(plan))
            }
            3 if word => Engine::B3(word::WordSearch::new(plan)),
            4 if word => Engine::B4(word::WordSearch::new(plan)),
            5 if word => Engine::B5(word::WordSearch::new(plan)),
            6 if word => Engine::B6(word::WordSearch::new(plan)),
            _ => Engine::Ring(ring::RingSearch::new(plan)),
        };
        Searcher {
            engine,
            out: Out::default(),
            task_mask: (1u64 << plan.task_bits) - 1,
        }
    }

    /// A searcher that uses the ring engine whatever the table, to test one engine against
    /// the other.
    #[cfg(test)]
    fn ring(plan: &'p Plan) -> Searcher<'p> {
        Searcher {
            engine: Engine::Ring(ring::RingSearch::new(plan)),
            out: Out::default(),
            task_mask: (1u64 << plan.task_bits) - 1,
        }
    }

    /// The same searcher with the trimmed walk's join tests off (they change the time, never
    /// the nodes).
    #[cfg(test)]
    fn without_join_tests(mut self) -> Searcher<'p> {
        if let Engine::Trim(e) = &mut self.engine {
            e.without_join_tests();
        }
        self
    }

    /// The nodes the trimmed walk's join tests killed so far.
    #[cfg(test)]
    fn join_killed(&self) -> u64 {
        match &self.engine {
            Engine::Trim(e) => e.join_killed,
            _ => 0,
        }
    }

    /// Searches task `task` (the magics whose low [`Plan::task_bits`] bits equal it).
    ///
    /// # Errors
    /// [`Stopped`] with the nodes tested so far when `stop` was set before it finished.
    pub fn run_task(&mut self, task: u64, stop: &AtomicBool) -> Result<Tally, Stopped> {
        self.run_task_within(task, stop, u64::MAX)
    }

    /// [`Searcher::run_task`] that also stops once the task has counted more than `budget`
    /// nodes (looked at every 65,536 nodes, so it stops within that many of it).
    ///
    /// # Errors
    /// [`Stopped`] with the nodes tested so far when `stop` was set or the budget passed
    /// before it finished.
    pub fn run_task_within(
        &mut self,
        task: u64,
        stop: &AtomicBool,
        budget: u64,
    ) -> Result<Tally, Stopped> {
        debug_assert!(task <= self.task_mask);
        self.out.tally = Tally::default();
        self.out.stopped = false;
        self.out.budget = budget;
        let out = &mut self.out;
        match &mut self.engine {
            Engine::B3(e) => e.run(task, out, stop),
            Engine::B4(e) => e.run(task, out, stop),
            Engine::B5(e) => e.run(task, out, stop),
            Engine::B6(e) => e.run(task, out, stop),
            Engine::Ring(e) => e.run(task, out, stop),
            Engine::High(e) => e.run(task, out, stop),
            Engine::Trim(e) => e.run(task, out, stop),
        }
        if self.out.stopped {
            Err(Stopped {
                nodes: self.out.tally.nodes,
            })
        } else {
            Ok(self.out.tally)
        }
    }

    /// Keeps every magic (reduced modulo the period) of the tasks run from now on; see
    /// [`Searcher::collected`].
    pub fn collect_magics(&mut self) {
        self.out.collect.get_or_insert_with(Vec::new);
    }

    /// The magics kept since [`Searcher::collect_magics`], in search order.
    #[must_use]
    pub fn collected(&self) -> &[u64] {
        self.out.collect.as_deref().unwrap_or_default()
    }

    /// The magics kept so far, in search order, handed over: the searcher goes on keeping
    /// the next ones in an empty list (a part lists each task's magics as it credits it).
    pub fn take_collected(&mut self) -> Vec<u64> {
        self.out
            .collect
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Stops keeping magics (the tally is the same either way).
    pub fn stop_collecting(&mut self) {
        self.out.collect = None;
    }
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Searches the whole period on one thread, in the order `exhaust` takes the tasks of one
/// part: the tally of every task.
#[must_use]
pub fn search_all(plan: &Plan) -> Tally {
    let stop = AtomicBool::new(false);
    let mut s = Searcher::new(plan);
    let mut total = Tally::default();
    let whole = campaign::shard::Shard::WHOLE;
    for j in 0..plan.tasks() {
        let tally = s
            .run_task(whole.task_at(j, plan.tasks()), &stop)
            .expect("never stopped");
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
