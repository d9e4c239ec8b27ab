//! What to hunt and in what order: targets and their bits (the ratchet), rounds of tasks,
//! and the seed of every task.
//!
//! A task is (target, bits, stream): `stream` counts the tasks of that target at those bits,
//! and its candidates come from `task_rng(seed, target, bits, stream)`. Each round gives
//! every active target at least one task of [`SLICE`] candidates (more lanes when few targets
//! are active, so that one target still fills every core), and the next round starts when
//! the whole round is done. What a round does depends only on the rounds before it, never on
//! threads or timing, so a seeded run bounded by `--tries` finds the same magics every time.
//!
//! A run hunts one [`Formula`](crate::question::Formula) for one [`Objective`](super::plan::Objective): fewer bits (the ratchet), or, at the
//! store's bits, a smaller tight table (each find lowers the target's limit to one entry less
//! than what it found).

use crate::attacks::Occupancies;
use crate::piece::Target;
use crate::search::{neighbour_bases, portfolio, Family};

use super::alloc::{Payoff, Stride};
use super::plan::{Goal, SLICE};

/// Tasks per round at least (spread over the active targets), so a lone target fills the
/// cores; a constant, so the schedule does not depend on the thread count.
pub const LANES: usize = 16;

/// A target being hunted in this run.
#[derive(Clone, Debug)]
pub struct State {
    /// Piece and square.
    pub target: Target,
    /// Relevant-mask popcount.
    pub popcount: u32,
    /// Bits hunted now.
    pub bits: u32,
    /// Fewest bits worth trying.
    pub floor: u32,
    /// Stop after the first find.
    pub fixed: bool,
    /// Next stream (task number) at the current bits.
    pub stream: u64,
    /// Candidates examined on this target in this run, all bits.
    pub tried: u64,
    /// Worker seconds spent on this target in this run.
    pub seconds: f64,
    /// Finished: found at its fewest bits, fixed and found, or out of budget.
    pub done: bool,
    /// For [`Objective::Tight`](super::plan::Objective::Tight): the most entries a find may take.
    pub limit: Option<u32>,
    /// Distinct attack sets: no tight table is smaller.
    distinct: u32,
    families: Vec<Family>,
    names: Vec<String>,
    stride: Stride,
}

impl State {
    /// Bits below the popcount hunted now.
    #[must_use]
    pub fn reduction(&self) -> u32 {
        self.popcount.saturating_sub(self.bits)
    }
}

/// One slice of work: `n` candidates of `family` for `target` at `bits`, stream `stream`.
#[derive(Clone, Debug)]
pub struct Task {
    /// Index of the target's [`State`] in the schedule.
    pub state: usize,
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// Stream number: the RNG is `task_rng(seed, target, bits, stream)`.
    pub stream: u64,
    /// Candidate family.
    pub family: Family,
    /// Candidates to examine.
    pub n: u64,
    /// For [`Objective::Tight`](super::plan::Objective::Tight): the most entries the magic's tight table may take.
    pub limit: Option<u32>,
}

/// What a finished task reports back, for the schedule.
#[derive(Clone, Debug)]
pub struct Done {
    /// The task.
    pub task: Task,
    /// Candidates examined.
    pub tried: u64,
    /// Worker seconds.
    pub seconds: f64,
    /// Whether it found a magic.
    pub found: bool,
    /// The tight table of the magic found (entries), if any.
    pub span: Option<u32>,
}

/// The rounds of a run.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The targets, in goal order.
    pub states: Vec<State>,
    budget: Option<u64>,
    known: Vec<(Target, u64)>,
    seeds: Vec<(Target, u64)>,
}

impl Schedule {
    /// A schedule for `goals`, each bounded to `budget` candidates when given; `known` magics
    /// (the store's, never the published ones) seed the neighbour-based families.
    #[must_use]
    pub fn new(goals: &[Goal], budget: Option<u64>, known: Vec<(Target, u64)>) -> Schedule {
        let mut s = Schedule {
            states: Vec::new(),
            budget,
            known,
            seeds: Vec::new(),
        };
        for g in goals {
            let occ = Occupancies::new(g.target);
            let popcount = occ.mask.count();
            let mut st = State {
                target: g.target,
                popcount,
                bits: g.bits,
                floor: g.floor,
                fixed: g.fixed,
                stream: 0,
                tried: 0,
                seconds: 0.0,
                done: budget == Some(0),
                limit: g.limit,
                distinct: occ.distinct_attacks() as u32,
                families: Vec::new(),
                names: Vec::new(),
                stride: Stride::default(),
            };
            s.refresh(&mut st);
            st.stream = g.first_stream;
            s.states.push(st);
        }
        s
    }

    /// Adds magics that seed the mutation of their own square, first of all (a black hunt
    /// seeds each square with its plain magic: raised by bits above the plain period it
    /// stays a plain magic, and under the black formula its table is the plain one rotated,
    /// unless a carry of `!mask * magic` breaks it).
    #[must_use]
    pub fn with_seeds(mut self, seeds: Vec<(Target, u64)>) -> Schedule {
        self.seeds = seeds;
        let mut states = std::mem::take(&mut self.states);
        for st in &mut states {
            let stream = st.stream;
            self.refresh(st);
            st.stream = stream;
        }
        self.states = states;
        self
    }

    fn refresh(&self, st: &mut State) {
        let mut bases: Vec<u64> = self
            .seeds
            .iter()
            .filter(|k| k.0 == st.target)
            .map(|k| k.1)
            .collect();
        if st.limit.is_some() {
            // Tighter magics of a target are often near its own: mutate them first, the
            // newest (tightest) first.
            for k in self.known.iter().rev().filter(|k| k.0 == st.target) {
                if !bases.contains(&k.1) {
                    bases.push(k.1);
                }
            }
        }
        for b in neighbour_bases(st.target, &self.known) {
            if !bases.contains(&b) {
                bases.push(b);
            }
        }
        st.families = portfolio(st.target, st.bits, &bases);
        if st.limit.is_some() && st.bits > 1 {
            // A tight table is a fraction of a bit fewer: the families that pay one bit
            // below (dense, uniform, the record shapes) go beside those of the bits.
            for f in portfolio(st.target, st.bits - 1, &[]) {
                if !st.families.contains(&f) {
                    st.families.push(f);
                }
            }
        }
        if st.families.is_empty() {
            st.families = Family::ALL.to_vec();
        }
        st.names = st.families.iter().map(|f| f.name().to_string()).collect();
        st.stride = Stride::new(st.families.len());
        st.stream = 0;
    }

    /// Targets not finished.
    #[must_use]
    pub fn active(&self) -> usize {
        self.states.iter().filter(|s| !s.done).count()
    }

    /// The tasks of the next round; empty when every target is finished.
    pub fn round(&mut self, payoff: &Payoff) -> Vec<Task> {
        let active = self.active();
        if active == 0 {
            return Vec::new();
        }
        let lanes = LANES.div_ceil(active);
        let mut tasks = Vec::new();
        for (i, st) in self.states.iter_mut().enumerate() {
            if st.done {
                continue;
            }
            let mut left = self.budget.map_or(u64::MAX, |b| b.saturating_sub(st.tried));
            let shares = payoff.shares(st.target, st.reduction(), &st.names);
            for _ in 0..lanes {
                let n = SLICE.min(left);
                if n == 0 {
                    break;
                }
                left -= n;
                let f = st.stride.pick(&shares);
                tasks.push(Task {
                    state: i,
                    target: st.target,
                    bits: st.bits,
                    stream: st.stream,
                    family: st.families[f].clone(),
                    n,
                    limit: st.limit,
                });
                st.stream += 1;
            }
        }
        tasks
    }

    /// Takes in a finished round, in task order: counts work, records the payoff, and
    /// ratchets every target that found a magic one bit down (or finishes it). `known` gains
    /// the magics found, for the neighbour-based families.
    pub fn finish(&mut self, done: &[Done], found: &[(Target, u64)], payoff: &mut Payoff) {
        let mut hit = vec![false; self.states.len()];
        let mut tightest: Vec<Option<u32>> = vec![None; self.states.len()];
        for d in done {
            let st = &mut self.states[d.task.state];
            st.tried += d.tried;
            st.seconds += d.seconds;
            let reduction = st.popcount.saturating_sub(d.task.bits);
            payoff.record(
                st.target,
                reduction,
                d.task.family.name(),
                d.tried,
                u64::from(d.found),
            );
            hit[d.task.state] |= d.found && d.task.bits == st.bits;
            if let Some(span) = d.span {
                let t = &mut tightest[d.task.state];
                *t = Some(t.map_or(span, |x| x.min(span)));
            }
        }
        self.known.extend_from_slice(found);
        let mut states = std::mem::take(&mut self.states);
        for ((st, &hit), &tightest) in states.iter_mut().zip(&hit).zip(&tightest) {
            if let (Some(limit), Some(span)) = (st.limit, tightest) {
                // The size objective: the next find must be smaller still.
                let next = limit.min(span.saturating_sub(1));
                st.limit = Some(next);
                if next < st.distinct {
                    st.done = true;
                }
                // Mutation now starts from the tighter magic; the streams go on.
                let stream = st.stream;
                self.refresh(st);
                st.stream = stream;
            } else if hit {
                if st.fixed || st.bits <= st.floor {
                    st.done = true;
                } else {
                    st.bits -= 1;
                    self.refresh(st);
                }
            }
            if self.budget.is_some_and(|b| st.tried >= b) {
                st.done = true;
            }
        }
        self.states = states;
    }
}

#[cfg(test)]
mod tests;
