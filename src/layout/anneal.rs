//! Choosing magics and offsets together: simulated annealing over an order of the squares
//! and a choice of magic per square.
//!
//! A [`Plan`] (an order of the squares, a magic picked for each from its candidates) is
//! decoded by placing the squares one by one, in order, each at the lowest offset where its
//! magic's slots meet only free slots ([`Occupancy::first_fit`](super::occupancy::Occupancy::first_fit)): holes left by the squares
//! before are filled by the squares after when they fit. The size of the array is the plan's
//! energy. A step moves one square to another place in the order (half the time within eight
//! places), swaps two, or picks another magic for one square, and is kept when the size does
//! not grow, or grows by `d` with probability `exp(-d / T)`; `T` falls geometrically from
//! `hot` to `cold` over the run. Only the squares from the first one the step touched are
//! placed again, on a copy of the array kept from the current plan, and the placing stops at
//! the first square that makes the array too large for the step to be kept.
//!
//! The annealing is the same for every layout that packs squares into one array: it sees the
//! array only through [`Array`] (where an item fits first, placing it), so the 8-byte packed
//! layout ([`Occupancy`](super::occupancy::Occupancy): a slot is free or taken) and the one-byte indexed layout
//! ([`IdArray`](super::ids::IdArray): a taken slot holds an id that a square with an equal id
//! may share) share this search.
//!
//! Measured on the published fixed-shift tables (their 128 magics, offsets thrown away):
//! first-fit decreasing alone gives 101,082 (Annuss 2017) and 94,672 (Annuss and Fiekas 2017)
//! entries; see `docs/layouts.md` for what the annealing reaches and in what time.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::occupancy::Shape;
use crate::search::candidates::splitmix;

/// What the annealing places: the slots one magic writes, from its lowest, and the array it
/// goes into.
pub trait Item: Clone + fmt::Debug + PartialEq + Eq {
    /// The array such items are packed into.
    type Array: Array<Item = Self>;
    /// Highest index plus one.
    fn span(&self) -> u32;
    /// Slots written.
    fn used(&self) -> u32;
}

/// A shared array being packed, as the annealing sees it.
pub trait Array: Clone + Default + fmt::Debug {
    /// What is placed in it.
    type Item;
    /// What placing an item decides beside its place (the one-byte layout: the ids of its
    /// attack sets); `()` where the place is all.
    type Label: Clone + Default + fmt::Debug + PartialEq + Eq;
    /// Empties the array, keeping its memory.
    fn clear(&mut self);
    /// Entries the array needs: its highest taken slot plus one.
    fn end(&self) -> u32;
    /// Slots taken.
    fn used(&self) -> u64;
    /// The lowest slot `base >= from` where `item` may be placed with its index 0 at `base`
    /// and `base + span <= limit`.
    fn first_fit(&self, item: &Self::Item, from: u32, limit: u64) -> Option<u32>;
    /// Places `item` with its index 0 at `base`, where [`Array::first_fit`] allows it;
    /// returns the label the array chose.
    fn place(&mut self, item: &Self::Item, base: u32) -> Self::Label;
    /// Places `item` at `base` with the given `label` (a table read back).
    fn place_as(&mut self, item: &Self::Item, base: u32, label: &Self::Label);
}

/// One magic a square may take: its shape and its lowest index (the square's offset is the
/// slot of its index 0 minus the lowest index, and may not be negative).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate<I = Shape> {
    /// The slots it writes, from its lowest.
    pub shape: I,
    /// Its lowest index (0 for a plain magic).
    pub lo: u32,
}

/// The label type of the array items `I` go into.
pub type LabelOf<I> = <<I as Item>::Array as Array>::Label;

/// An order of the squares and the magic picked for each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Square numbers (positions in the problem), in placing order.
    pub order: Vec<usize>,
    /// Per square, the position of its magic among its candidates.
    pub pick: Vec<usize>,
}

/// A decoded plan: where every square's lowest slot lies, and the array size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed<L = ()> {
    /// The plan.
    pub plan: Plan,
    /// Per square, the slot of its picked magic's lowest index.
    pub base: Vec<u32>,
    /// Per square, what the array decided beside the place (see [`Array::Label`]).
    pub labels: Vec<L>,
    /// Entries of the array: highest slot written plus one.
    pub size: u32,
    /// Slots written.
    pub used: u64,
}

impl<L> Placed<L> {
    /// Per square, its offset: the slot of index 0 (`base - lo`).
    #[must_use]
    pub fn offsets<I>(&self, squares: &[Vec<Candidate<I>>]) -> Vec<u32> {
        self.base
            .iter()
            .enumerate()
            .map(|(k, &b)| b - squares[k][self.plan.pick[k]].lo)
            .collect()
    }
}

/// How long and how the annealing runs.
#[derive(Clone, Debug)]
pub struct AnnealOptions {
    /// Steps at most (the temperature falls over them when no time is given).
    pub steps: u64,
    /// Stop after this long; the temperature falls over it when given.
    pub time: Option<Duration>,
    /// Seed of the steps' choices.
    pub seed: u64,
    /// Starting temperature (entries).
    pub hot: f64,
    /// Final temperature (entries).
    pub cold: f64,
}

impl Default for AnnealOptions {
    fn default() -> AnnealOptions {
        AnnealOptions {
            steps: 20_000,
            time: None,
            seed: 1,
            hot: 100.0,
            cold: 1.0,
        }
    }
}

/// Places squares in plan order. It keeps the array as it was before every [`EVERY`]-th square
/// of the current plan, so that a step that changes the order from position `first` on
/// starts from the copy below `first` instead of placing the whole prefix again.
#[derive(Debug)]
struct Decoder<A: Array> {
    occ: A,
    base: Vec<u32>,
    labels: Vec<A::Label>,
    /// The current plan's array before its squares `0, EVERY, 2 * EVERY, ...`.
    saved: Vec<A>,
    /// The same for the plan decoded last, from its first changed position on.
    fresh: Vec<A>,
}

impl<A: Array> Default for Decoder<A> {
    fn default() -> Self {
        Decoder {
            occ: A::default(),
            base: Vec::new(),
            labels: Vec::new(),
            saved: Vec::new(),
            fresh: Vec::new(),
        }
    }
}

/// Squares between two kept copies of the array.
const EVERY: usize = 8;

impl<A: Array> Decoder<A> {
    /// Decodes `plan` from nothing, and keeps its copies as the current plan's.
    fn decode_all(&mut self, squares: &[Vec<Candidate<A::Item>>], plan: &Plan) {
        let copies = squares.len().div_ceil(EVERY);
        self.saved.resize_with(copies, A::default);
        self.fresh.resize_with(copies, A::default);
        let done = self.decode_from(squares, plan, &[], &[], 0, &mut |_| true);
        debug_assert!(done);
        self.keep(0);
    }

    /// Places `start` as it is (every square at its base with its label, in plan order), and
    /// keeps its copies as the current plan's: a table read back becomes the current state
    /// even where first-fit would not rebuild its labels.
    fn place_all(&mut self, squares: &[Vec<Candidate<A::Item>>], start: &Placed<A::Label>) {
        let copies = squares.len().div_ceil(EVERY);
        self.saved.resize_with(copies, A::default);
        self.fresh.resize_with(copies, A::default);
        self.occ.clear();
        self.base.clone_from(&start.base);
        self.labels.clone_from(&start.labels);
        for (n, &k) in start.plan.order.iter().enumerate() {
            if n % EVERY == 0 {
                self.saved[n / EVERY].clone_from(&self.occ);
            }
            let c = &squares[k][start.plan.pick[k]];
            self.occ.place_as(&c.shape, start.base[k], &start.labels[k]);
        }
    }

    /// Decodes `plan`, whose order and picks equal the current plan's (at `prev`) before
    /// position `first`: those squares are where the current decode put them. Stops early,
    /// returning false, as soon as `go_on(end)` says the array is already too large.
    fn decode_from(
        &mut self,
        squares: &[Vec<Candidate<A::Item>>],
        plan: &Plan,
        prev: &[u32],
        prev_labels: &[A::Label],
        first: usize,
        go_on: &mut dyn FnMut(u32) -> bool,
    ) -> bool {
        self.base.resize(squares.len(), 0);
        self.labels.resize(squares.len(), A::Label::default());
        // A plan equal to the current one throughout is decoded from its last square.
        let first = first.min(squares.len().saturating_sub(1));
        let start = first / EVERY * EVERY;
        for &k in &plan.order[..start] {
            self.base[k] = prev[k];
            self.labels[k].clone_from(&prev_labels[k]);
        }
        if start == 0 {
            self.occ.clear();
        } else {
            self.occ.clone_from(&self.saved[start / EVERY]);
        }
        for (n, &k) in plan.order.iter().enumerate().skip(start) {
            if n % EVERY == 0 && n > first {
                self.fresh[n / EVERY].clone_from(&self.occ);
            }
            let c = &squares[k][plan.pick[k]];
            if n < first {
                self.occ.place_as(&c.shape, prev[k], &prev_labels[k]);
                self.base[k] = prev[k];
                self.labels[k].clone_from(&prev_labels[k]);
            } else {
                let b = self
                    .occ
                    .first_fit(&c.shape, c.lo, u64::MAX)
                    .expect("an unbounded array always fits");
                self.labels[k] = self.occ.place(&c.shape, b);
                self.base[k] = b;
            }
            if n >= first && !go_on(self.occ.end()) {
                return false;
            }
        }
        true
    }

    /// The plan decoded last from `first` on becomes the current one.
    fn keep(&mut self, first: usize) {
        for c in first / EVERY + 1..self.saved.len() {
            std::mem::swap(&mut self.saved[c], &mut self.fresh[c]);
        }
    }
}

/// Decodes `plan` once: first-fit in its order.
///
/// # Panics
/// If the plan does not name every square once or picks a magic a square does not have.
#[must_use]
pub fn decode<I: Item>(squares: &[Vec<Candidate<I>>], plan: &Plan) -> Placed<LabelOf<I>> {
    let mut d = Decoder::<I::Array>::default();
    d.decode_all(squares, plan);
    Placed {
        plan: plan.clone(),
        base: d.base,
        labels: d.labels,
        size: d.occ.end(),
        used: d.occ.used(),
    }
}

/// An order in which first-fit puts every square where `base` has it (`pick` its magics, the
/// placement fitting together), so that annealing from a given table starts at that table and
/// not at a larger one. Taking the squares by offset does not do that: first-fit in offset
/// order needs 96,891 entries for the white record's magics where the record has 88,772, and
/// 81,699 for those of `results/packed-pool.json` where the table had 79,718, since a square
/// often fits below its place until the squares after it fill those holes.
///
/// A square is ready when first-fit, given the squares already placed, puts it at its base;
/// placing more squares only removes holes, so a ready square stays ready, and taking any
/// ready square (the lowest first) finds such an order whenever one exists. When none is
/// ready, the lowest of the rest is placed at its base and the search goes on: the order then
/// decodes to a different placement from that square on.
///
/// Returns the given placement with that order as its plan.
///
/// `labels` are the squares' labels in the table (`()` for the 8-byte array): each square is
/// placed with its own, so that the squares after it meet the table as it is.
///
/// # Panics
/// If `pick`, `base` or `labels` does not have one entry per square.
#[must_use]
pub fn first_fit_order<I: Item>(
    squares: &[Vec<Candidate<I>>],
    pick: &[usize],
    base: &[u32],
    labels: &[LabelOf<I>],
) -> Placed<LabelOf<I>> {
    assert_eq!(pick.len(), squares.len(), "one pick per square");
    assert_eq!(base.len(), squares.len(), "one base per square");
    assert_eq!(labels.len(), squares.len(), "one label per square");
    let mut rest: Vec<usize> = (0..squares.len()).collect();
    rest.sort_by_key(|&k| (base[k], k));
    let mut occ = I::Array::default();
    let mut order = Vec::with_capacity(squares.len());
    while !rest.is_empty() {
        let ready = rest.iter().position(|&k| {
            let c = &squares[k][pick[k]];
            let limit = u64::from(base[k]) + u64::from(c.shape.span());
            occ.first_fit(&c.shape, c.lo, limit) == Some(base[k])
        });
        let k = rest.remove(ready.unwrap_or(0));
        occ.place_as(&squares[k][pick[k]].shape, base[k], &labels[k]);
        order.push(k);
    }
    Placed {
        plan: Plan {
            order,
            pick: pick.to_vec(),
        },
        base: base.to_vec(),
        labels: labels.to_vec(),
        size: occ.end(),
        used: occ.used(),
    }
}

/// First-fit decreasing: the first candidate of every square, the widest spans first.
#[must_use]
pub fn widest_first<I: Item>(squares: &[Vec<Candidate<I>>]) -> Plan {
    let mut order: Vec<usize> = (0..squares.len()).collect();
    order.sort_by_key(|&k| {
        let s = &squares[k][0].shape;
        (std::cmp::Reverse((s.span(), s.used())), k)
    });
    Plan {
        order,
        pick: vec![0; squares.len()],
    }
}

/// Anneals from `start` within `opts` or until `stop` is set; calls `on_better` with every
/// smaller placement found. Returns the smallest. The start is decoded first-fit in its plan,
/// unless it comes with its placement (`start.base` and `start.labels` filled: a table read
/// back), which is then the current state as it is.
///
/// # Panics
/// If `start` does not name every square once, or a square has no candidate.
pub fn anneal<I: Item>(
    squares: &[Vec<Candidate<I>>],
    start: &Placed<LabelOf<I>>,
    opts: &AnnealOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&Placed<LabelOf<I>>),
) -> (Placed<LabelOf<I>>, u64) {
    let n = squares.len();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(splitmix(opts.seed ^ 0x616e_6e65_616c));
    let mut dec = Decoder::<I::Array>::default();
    let mut cur = start.plan.clone();
    if start.base.len() == n && start.labels.len() == n {
        dec.place_all(squares, start);
    } else {
        dec.decode_all(squares, &cur);
    }
    let mut cur_base = dec.base.clone();
    let mut cur_labels = dec.labels.clone();
    let mut cur_size = dec.occ.end();
    let mut best = Placed {
        plan: cur.clone(),
        base: cur_base.clone(),
        labels: cur_labels.clone(),
        size: cur_size,
        used: dec.occ.used(),
    };
    let choices = squares.iter().any(|c| c.len() > 1);
    let clock = Instant::now();
    let mut cand = cur.clone();
    let mut steps = 0u64;
    let mut progress = 0.0f64;
    while steps < opts.steps && n > 1 {
        if steps.is_multiple_of(64) {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let by_steps = steps as f64 / opts.steps as f64;
            progress = match opts.time {
                Some(t) => {
                    let by_time = clock.elapsed().as_secs_f64() / t.as_secs_f64().max(1e-9);
                    if by_time >= 1.0 {
                        break;
                    }
                    by_time.max(by_steps)
                }
                None => by_steps,
            };
        }
        steps += 1;
        let temp = opts.hot * (opts.cold / opts.hot).powf(progress);
        cand.order.copy_from_slice(&cur.order);
        cand.pick.copy_from_slice(&cur.pick);
        let r = rng.next_u64();
        let i = (rng.next_u64() % n as u64) as usize;
        let first = if choices && r % 10 < 3 {
            let k = cand.order[i];
            let m = squares[k].len();
            if m < 2 {
                continue;
            }
            let j = if r >> 8 & 1 == 0 {
                (rng.next_u64() % m as u64) as usize
            } else if r >> 9 & 1 == 0 {
                cand.pick[k].saturating_sub(1)
            } else {
                (cand.pick[k] + 1).min(m - 1)
            };
            if j == cand.pick[k] {
                continue;
            }
            cand.pick[k] = j;
            i
        } else {
            let j = if r >> 8 & 1 == 0 {
                let d = 1 + (r >> 16) % 8;
                let j = if r >> 12 & 1 == 0 {
                    i as u64 + d
                } else {
                    (i as u64).saturating_sub(d)
                };
                (j as usize).min(n - 1)
            } else {
                (rng.next_u64() % n as u64) as usize
            };
            if i == j {
                continue;
            }
            if r % 3 == 0 {
                cand.order.swap(i, j);
            } else {
                let x = cand.order.remove(i);
                cand.order.insert(j, x);
            }
            i.min(j)
        };
        // Kept when the size does not grow, or grows by `d` with probability exp(-d / T):
        // the array only grows as squares are placed, so the decode stops at the first
        // square that makes the step fail, and the choices are those of a whole decode.
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let kept = |size: u32| {
            let worse = f64::from(size) - f64::from(cur_size);
            worse <= 0.0 || u < (-worse / temp).exp()
        };
        if !dec.decode_from(squares, &cand, &cur_base, &cur_labels, first, &mut |end| {
            kept(end)
        }) {
            continue;
        }
        // A whole decode asked `kept` at its last square, with the final size: the step stands.
        let size = dec.occ.end();
        dec.keep(first);
        std::mem::swap(&mut cur, &mut cand);
        cur_base.copy_from_slice(&dec.base);
        cur_labels.clone_from(&dec.labels);
        cur_size = size;
        if size < best.size {
            best = Placed {
                plan: cur.clone(),
                base: cur_base.clone(),
                labels: cur_labels.clone(),
                size,
                used: dec.occ.used(),
            };
            on_better(&best);
        }
    }
    (best, steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::occupancy::Occupancy;

    /// Squares of a few comb and block shapes, two choices each.
    fn squares() -> Vec<Vec<Candidate>> {
        (0..24u32)
            .map(|k| {
                let comb = Shape::from_indices((0..(8 + k % 5)).map(|i| i * (2 + k % 3)).collect());
                let block = Shape::from_indices((0..(6 + k % 7)).collect());
                vec![
                    Candidate { shape: comb, lo: 0 },
                    Candidate {
                        shape: block,
                        lo: k % 2,
                    },
                ]
            })
            .collect()
    }

    /// A decode that starts from the kept copies below the first changed position places
    /// every square where a decode from nothing does, whether the last plan was kept or not.
    #[test]
    fn a_decode_from_a_kept_copy_equals_a_whole_decode() {
        let sq = squares();
        let n = sq.len();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut dec = Decoder::<Occupancy>::default();
        let mut cur = widest_first(&sq);
        dec.decode_all(&sq, &cur);
        let mut cur_base = dec.base.clone();
        for round in 0..400 {
            let mut cand = cur.clone();
            let i = (rng.next_u64() % n as u64) as usize;
            let j = (rng.next_u64() % n as u64) as usize;
            cand.order.swap(i, j);
            let k = cand.order[(rng.next_u64() % n as u64) as usize];
            cand.pick[k] = (rng.next_u64() % 2) as usize;
            let first = (0..n)
                .find(|&p| {
                    cand.order[p] != cur.order[p]
                        || cand.pick[cand.order[p]] != cur.pick[cand.order[p]]
                })
                .unwrap_or(n);
            assert!(dec.decode_from(&sq, &cand, &cur_base, &[(); 24], first, &mut |_| true));
            let whole = decode(&sq, &cand);
            assert_eq!(dec.base, whole.base, "round {round}, first {first}");
            assert_eq!(dec.occ.end(), whole.size, "round {round}");
            assert_eq!(dec.occ.used(), whole.used, "round {round}");
            if round % 3 != 0 {
                dec.keep(first);
                cur = cand;
                cur_base.copy_from_slice(&dec.base);
            }
        }
    }

    #[test]
    fn annealing_never_ends_above_its_start_and_its_placement_fits() {
        let sq = squares();
        let start = widest_first(&sq);
        let first = decode(&sq, &start);
        let start = Placed {
            plan: start,
            base: Vec::new(),
            labels: Vec::new(),
            size: 0,
            used: 0,
        };
        for seed in 0..4 {
            let opts = AnnealOptions {
                steps: 3_000,
                seed,
                ..AnnealOptions::default()
            };
            let mut reported = Vec::new();
            let (best, _) = anneal(&sq, &start, &opts, &AtomicBool::new(false), &mut |p| {
                reported.push(p.size);
            });
            assert!(best.size <= first.size, "seed {seed}");
            assert!(reported.windows(2).all(|w| w[1] < w[0]));
            // The placement is real: every square's picked shape at its base, none overlapping,
            // and the size is the highest slot written plus one.
            let mut occ = Occupancy::new();
            for (k, c) in sq.iter().enumerate() {
                let shape = &c[best.plan.pick[k]].shape;
                assert!(occ.fits(shape, best.base[k]), "seed {seed}, square {k}");
                occ.place(shape, best.base[k]);
            }
            assert_eq!(occ.end(), best.size);
            assert_eq!(decode(&sq, &best.plan).size, best.size);
            // Started from its own placement, the annealing keeps it when it finds nothing.
            let (again, _) = anneal(
                &sq,
                &best,
                &AnnealOptions {
                    steps: 0,
                    ..opts.clone()
                },
                &AtomicBool::new(false),
                &mut |_| {},
            );
            assert_eq!((again.base, again.size), (best.base.clone(), best.size));
        }
    }
}
