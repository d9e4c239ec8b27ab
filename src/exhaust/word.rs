//! The search when the whole table is one machine word (8 to 64 slots).
//!
//! The table is a word of occupied slots and one word per attack set of the slots holding it.
//! A level whose free bits move every index by `v 2^kb` (see [`super::Layer`]) is searched
//! for all its values at once: subset `j` at index `i_j` (free bits zero) is clear of the
//! table at value `v` iff slot `i_j + v 2^kb` is empty or holds its attack set, that is iff bit
//! `v 2^kb` of the word of such slots rotated right by `i_j` is set. The AND over the level's
//! subsets, kept to the multiples of `2^kb`, is the set of values that collide with nothing
//! placed before; the level's own subsets collide with each other or not whatever the value
//! (they move together), which one pass over them decides. Placing a value is rotating the
//! level's pattern (its slots, per attack set) into the table.
//!
//! The level above the last one does not place its values: for each it searches the last
//! level against the table with the pattern rotated in as a second mask, so the bulk of the
//! work (the last two levels) writes nothing.

use std::sync::atomic::AtomicBool;

use super::bits::Set;
use super::{layers, low_mask, Layer, Out, Plan};
use crate::magic::index_masked;

/// Subsets checked between looks at whether any value is left.
const CHUNK: usize = 8;

/// One level: its geometry, the values it may take, and its subsets with `u8` attack ids.
#[derive(Clone, Debug)]
struct Lv<W> {
    layer: Layer,
    /// The slots `v 2^kb` for every value `v` of the level's moving bits.
    steps: W,
    /// (occupancy, attack id), in the order of [`Layer::subsets`].
    subsets: Vec<(u64, u8)>,
    /// The distinct attack ids of the level.
    attacks: Vec<u8>,
}

/// The one-word search for a plan whose table has `W::BITS` slots.
#[derive(Clone, Debug)]
pub(super) struct WordSearch<'p, W: Set> {
    plan: &'p Plan,
    shift: u32,
    levels: Vec<Lv<W>>,
    /// The task's bits within each level.
    task_part: Vec<u64>,
    /// Slots occupied.
    occupied: W,
    /// Per attack id, the slots holding it.
    holds: Box<[W; 256]>,
    /// Per level, per attack id, the level's pattern (its slots with the free bits zero).
    pattern: Vec<[W; 256]>,
    /// Scratch of the level above the last: per attack id, the slots it may use.
    good: Box<[W; 256]>,
    /// Scratch of the level above the last: per attack id, the pattern's slots it may not.
    taken: Box<[W; 256]>,
}

impl<'p, W: Set> WordSearch<'p, W> {
    /// The search of `plan`; its table must have `W::BITS` slots and fewer than 255 attack sets.
    pub(super) fn new(plan: &'p Plan) -> WordSearch<'p, W> {
        assert_eq!(1u32 << plan.bits, W::BITS, "table width");
        assert!(plan.attacks < 255, "attack ids fit a byte");
        let levels: Vec<Lv<W>> = layers(plan)
            .into_iter()
            .map(|layer| {
                let mut steps = W::EMPTY;
                for v in 0..1u32 << layer.u {
                    steps |= W::bit(v << layer.kb);
                }
                let subsets: Vec<(u64, u8)> =
                    layer.subsets.iter().map(|&(o, a)| (o, byte(a))).collect();
                let mut attacks: Vec<u8> = subsets.iter().map(|s| s.1).collect();
                attacks.sort_unstable();
                attacks.dedup();
                Lv {
                    layer,
                    steps,
                    subsets,
                    attacks,
                }
            })
            .collect();
        let n = levels.len();
        WordSearch {
            plan,
            shift: 64 - plan.bits,
            levels,
            task_part: vec![0; n],
            occupied: W::EMPTY,
            holds: Box::new([W::EMPTY; 256]),
            pattern: vec![[W::EMPTY; 256]; n],
            good: Box::new([W::EMPTY; 256]),
            taken: Box::new([W::EMPTY; 256]),
        }
    }

    /// Searches task `task` into `out`.
    pub(super) fn run(&mut self, task: u64, out: &mut Out, stop: &AtomicBool) {
        let task_bits = self.plan.task_bits;
        for (t, l) in self.task_part.iter_mut().zip(&self.levels) {
            *t = task & low_mask(l.layer.hi.min(task_bits));
        }
        self.occupied = W::bit(0);
        self.holds.fill(W::EMPTY);
        self.holds[usize::from(self.plan.empty_att)] = W::bit(0);
        out.nodes(1 << self.levels[0].layer.w, stop);
        self.level(out, stop, 0, 0, 0);
    }

    /// The values of level `depth` (at `m`, free bits zero) clear of the table.
    #[inline(always)]
    fn clear_of_table(&self, depth: usize, m: u64) -> W {
        let lv = &self.levels[depth];
        let free = !self.occupied;
        let mut acc = lv.steps;
        for chunk in lv.subsets.chunks(CHUNK) {
            for &(occ, a) in chunk {
                let i = index(occ, m, self.shift);
                acc &= (free | self.holds[usize::from(a)]).rotr(i);
            }
            if acc.is_empty() {
                break;
            }
        }
        acc
    }

    /// Builds the pattern of level `depth` at `m`; `None` if two of its subsets with
    /// different attack sets share a slot.
    #[inline(always)]
    fn build(&mut self, depth: usize, m: u64) -> Option<W> {
        let lv = &self.levels[depth];
        let pat = &mut self.pattern[depth];
        for &a in &lv.attacks {
            pat[usize::from(a)] = W::EMPTY;
        }
        let mut all = W::EMPTY;
        let mut bad = W::EMPTY;
        for &(occ, a) in &lv.subsets {
            let bit = W::bit(index(occ, m, self.shift));
            let own = &mut pat[usize::from(a)];
            bad |= all & !*own & bit;
            all |= bit;
            *own |= bit;
        }
        bad.is_empty().then_some(all)
    }

    /// Searches level `depth` under `prefix` (its lower bits), whose highest slot so far is
    /// `max_index`; the nodes of this call are already counted.
    fn level(&mut self, out: &mut Out, stop: &AtomicBool, depth: usize, prefix: u64, max: u32) {
        let n = self.levels.len();
        let fixed = prefix | self.task_part[depth];
        let l = &self.levels[depth].layer;
        let (from, hl, kb) = (l.from, l.hl, l.kb);
        for low in 0..1u64 << hl {
            if out.stopped {
                return;
            }
            let m = fixed | low << from;
            let values = self.clear_of_table(depth, m);
            if values.is_empty() {
                continue;
            }
            let Some(pat) = self.build(depth, m) else {
                continue;
            };
            let step = |p: u32| m | u64::from(p >> kb) << (hl + from);
            if depth + 1 == n {
                self.count(out, values, pat, max, step);
            } else if depth + 2 == n {
                self.above_last(out, depth, step(0), values, pat, max);
            } else {
                let w_next = self.levels[depth + 1].layer.w;
                let mut vs = values;
                while !vs.is_empty() {
                    let p = vs.lowest();
                    vs = vs.without_lowest();
                    let slots = pat.rotl(p);
                    let new = slots & !self.occupied;
                    self.occupied |= new;
                    for &a in &self.levels[depth].attacks {
                        let a = usize::from(a);
                        self.holds[a] |= self.pattern[depth][a].rotl(p) & new;
                    }
                    out.nodes(1 << w_next, stop);
                    self.level(out, stop, depth + 1, step(p), max.max(slots.highest()));
                    self.occupied &= !new;
                    for &a in &self.levels[depth].attacks {
                        self.holds[usize::from(a)] &= !new;
                    }
                }
            }
        }
    }

    /// Counts the magics `values` of the last level (pattern `pat`), `step(p)` being the magic
    /// of value slot `p`.
    #[inline(always)]
    fn count(&self, out: &mut Out, values: W, pat: W, max: u32, step: impl Fn(u32) -> u64) {
        out.tally.magics += u64::from(values.count());
        if !out.could_improve(max) && out.collect.is_none() {
            return;
        }
        let mut vs = values;
        while !vs.is_empty() {
            let p = vs.lowest();
            vs = vs.without_lowest();
            out.offer(max.max(pat.rotl(p).highest()), step(p));
            if let Some(c) = out.collect.as_mut() {
                c.push(step(p));
            }
        }
    }

    /// The values `values` of the level above the last (pattern `pat`, `base` its magic at value
    /// slot 0), each with the last level searched at once against the table plus the rotated
    /// pattern, nothing placed.
    fn above_last(&mut self, out: &mut Out, depth: usize, base: u64, values: W, pat: W, max: u32) {
        let (from, hl, kb) = {
            let l = &self.levels[depth].layer;
            (l.from, l.hl, l.kb)
        };
        let last = depth + 1;
        let (lfrom, lw, lhl, lkb) = {
            let l = &self.levels[last].layer;
            (l.from, l.w, l.hl, l.kb)
        };
        let task = self.task_part[last];
        out.tally.nodes += u64::from(values.count()) << lw;
        let free = !self.occupied;
        for &a in &self.levels[last].attacks {
            let a = usize::from(a);
            self.good[a] = free | self.holds[a];
            self.taken[a] = pat & !self.pattern[depth][a];
        }
        let mut vs = values;
        while !vs.is_empty() {
            let p = vs.lowest();
            vs = vs.without_lowest();
            let m1 = base | u64::from(p >> kb) << (hl + from) | task;
            for low in 0..1u64 << lhl {
                let m = m1 | low << lfrom;
                let mut acc = self.levels[last].steps;
                // Looks at `acc` only between runs of CHUNK subsets: the look that ends the
                // loop is a mispredicted branch, dearer than the few checks it would save.
                for chunk in self.levels[last].subsets.chunks(CHUNK) {
                    for &(occ, a) in chunk {
                        let i = index(occ, m, self.shift);
                        let a = usize::from(a);
                        acc &= self.good[a].rotr(i) & !self.taken[a].rotr(i.wrapping_sub(p));
                    }
                    if acc.is_empty() {
                        break;
                    }
                }
                if acc.is_empty() {
                    continue;
                }
                let Some(lpat) = self.build(last, m) else {
                    continue;
                };
                let max1 = max.max(pat.rotl(p).highest());
                self.count(out, acc, lpat, max1, |q| {
                    m | u64::from(q >> lkb) << (lhl + lfrom)
                });
            }
        }
    }
}

/// The one index formula, as a rotation amount.
#[inline(always)]
#[allow(clippy::cast_possible_truncation)]
fn index(occ: u64, m: u64, shift: u32) -> u32 {
    index_masked(occ, m, shift) as u32
}

/// An attack id below 255 as a byte.
fn byte(a: u16) -> u8 {
    u8::try_from(a).expect("attack ids fit a byte")
}
