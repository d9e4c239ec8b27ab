//! The search for tables of more than 64 slots (and of 1 to 4): one residue class at a time.
//!
//! A level whose values move every index by `v 2^kb` keeps each subset in its residue class
//! modulo `2^kb`, a *ring* of `2^u` slots (see [`super::Layer`]). So the table is kept, for
//! every ring size a level uses, with each ring's slots contiguous; a subset is then tested
//! for all the level's values at once by rotating one ring ([`Set`]), as in [`super::word`].
//!
//! Per level and value of its carry bits: the level's distinct (slot, attack set) pairs are
//! listed (two different attack sets on one slot end the level there: it does not depend on
//! the value), the values clear of the table are the AND of the pairs' rotated rings, and
//! each value is placed and searched deeper. Before placing a large pattern, the next level
//! is tried against the table as it is (a necessary condition: placing only fills slots) and
//! for a collision among its own subsets; on rook tables that are nearly full this skips most
//! placements.
//!
//! Levels of one to four values (*thin*: the rank squares of a rook whose lowest mask squares
//! sit low on the board) come in runs after the wide ones, and there placing patterns into
//! every layout was most of the time (62 % of rook d4 at 9, where 98.5 % of what the thin
//! levels place is thrown away one level down). A thin level after a wide one therefore has no
//! layout: its subsets are checked slot by slot against the slot array for each of its few
//! values, while its indices are computed (so a dead level stops early), and its placements
//! write the slot array only. The first wide level after such a run rebuilds its layouts from
//! the slot array when it is entered (its own copies, so the levels above keep theirs).

use std::sync::atomic::AtomicBool;

use super::bits::{Set, Tiny, Wide};
use super::{layers, low_mask, Layer, Out, Plan};
use crate::magic::index_masked;

/// Patterns at least this long are worth a look at the next level before placing them.
const LOOK_AHEAD: usize = 32;
/// Subsets of the next level tried against the table by that look.
const LOOK_DRIVERS: usize = 8;
/// Levels with rings of at most `2^THIN` slots after a wide level are searched against the
/// slot array (see the module doc).
const THIN: u32 = 2;

/// Searches level `depth` (see [`level`]).
type LevelFn = fn(&mut RingSearch<'_>, &mut Out, &AtomicBool, usize, u64, u32);
/// Whether some value of level `depth` at `m` keeps its first subsets clear of the table.
type ProbeFn = fn(&RingSearch<'_>, usize, u64) -> bool;

/// Where one ring size keeps its copy of the table.
#[derive(Copy, Clone, Debug)]
struct Layout {
    u: u32,
    kb: u32,
    /// Offset in `bits`: the occupied slots, then per attack id the slots holding it.
    base: usize,
}

impl Layout {
    /// Bit of slot `s`: ring `s mod 2^kb`, place `s / 2^kb` in it.
    #[inline(always)]
    fn pos(self, s: usize) -> usize {
        ((s & ((1 << self.kb) - 1)) << self.u) | (s >> self.kb)
    }
}

#[derive(Clone, Debug)]
struct Lv {
    layer: Layer,
    /// Where the level keeps its table (unused when thin).
    layout: Layout,
    /// The layouts of the deeper levels up to the next thin one: what placing this level's
    /// pattern updates.
    deeper: Vec<Layout>,
    /// The level is checked against the slot array and has no layout.
    thin: bool,
    /// The layouts this level rebuilds from the slot array when entered (a wide level after
    /// a thin one: the thin levels above wrote only the slot array); empty otherwise.
    rebuild: Vec<Layout>,
    search: LevelFn,
    probe: ProbeFn,
}

/// The ring search of one plan.
#[derive(Clone, Debug)]
pub(super) struct RingSearch<'p> {
    plan: &'p Plan,
    shift: u32,
    /// Words of one slot set.
    words: usize,
    levels: Vec<Lv>,
    task_part: Vec<u64>,
    /// Attack id per slot (0: empty).
    slots: Vec<u16>,
    /// The table in every layout.
    bits: Vec<u64>,
    /// Slots written, in order, to be cleared.
    undo: Vec<u16>,
    /// Per level, its distinct (slot, attack id) pairs with the free bits zero.
    patterns: Vec<Vec<(u16, u16)>>,
    /// Per level, whether its pattern was built by the look from the level above.
    prebuilt: Vec<bool>,
    /// Per slot, `epoch << 16 | attack id` of the pattern being listed (see [`listed`]).
    seen: Vec<u64>,
    epoch: u64,
}

impl<'p> RingSearch<'p> {
    /// The ring search of `plan`.
    pub(super) fn new(plan: &'p Plan) -> RingSearch<'p> {
        let bits = plan.bits;
        let words = (1usize << bits).div_ceil(64);
        let block = (usize::from(plan.attacks) + 2) * words;
        // Layouts are shared by the levels of one ring size within a *segment*: a run of
        // levels that a thin run does not cut (a new segment rebuilds its own copies).
        let mut sizes: Vec<(usize, u32)> = Vec::new();
        let mut segment = 0;
        let mut wide_seen = false;
        let mut after_thin = false;
        let mut levels: Vec<Lv> = layers(plan)
            .into_iter()
            .map(|layer| {
                let thin = layer.u <= THIN && wide_seen;
                let starts = !thin && after_thin;
                if starts {
                    segment += 1;
                }
                wide_seen |= layer.u > THIN;
                after_thin = thin;
                let key = (segment, layer.u);
                let k = sizes.iter().position(|&x| x == key).unwrap_or_else(|| {
                    sizes.push(key);
                    sizes.len() - 1
                });
                let layout = Layout {
                    u: layer.u,
                    kb: layer.kb,
                    base: k * block,
                };
                let (search, probe) = kind(layer.u, thin);
                Lv {
                    layer,
                    layout,
                    deeper: Vec::new(),
                    thin,
                    rebuild: if starts { vec![layout] } else { Vec::new() },
                    search,
                    probe,
                }
            })
            .collect();
        for d in 0..levels.len() {
            let mut deeper: Vec<Layout> = Vec::new();
            for l in levels[d + 1..].iter().take_while(|l| !l.thin) {
                if deeper.iter().all(|x| x.base != l.layout.base) {
                    deeper.push(l.layout);
                }
            }
            if !levels[d].rebuild.is_empty() {
                levels[d].rebuild.extend(deeper.iter().copied());
            }
            levels[d].deeper = if levels[d].thin { Vec::new() } else { deeper };
        }
        let n = levels.len();
        RingSearch {
            plan,
            shift: 64 - bits,
            words,
            levels,
            task_part: vec![0; n],
            slots: vec![0; 1 << bits],
            bits: vec![0; sizes.len() * block],
            undo: Vec::with_capacity(1 << bits),
            patterns: vec![Vec::new(); n],
            prebuilt: vec![false; n],
            seen: vec![0; 1 << bits],
            epoch: 0,
        }
    }

    /// Searches task `task` into `out`.
    pub(super) fn run(&mut self, task: u64, out: &mut Out, stop: &AtomicBool) {
        let task_bits = self.plan.task_bits;
        for (t, l) in self.task_part.iter_mut().zip(&self.levels) {
            *t = task & low_mask(l.layer.hi.min(task_bits));
        }
        self.slots.fill(0);
        self.bits.fill(0);
        self.undo.clear();
        self.prebuilt.fill(false);
        let all: Vec<Layout> = self.levels.iter().map(|l| l.layout).collect();
        self.set(0, self.plan.empty_att, &all);
        out.nodes(1 << self.levels[0].layer.w, stop);
        let search = self.levels[0].search;
        search(self, out, stop, 0, 0, 0);
    }

    #[inline(always)]
    fn set(&mut self, s: usize, a: u16, layouts: &[Layout]) {
        self.slots[s] = a;
        self.mark(s, a, layouts);
    }

    /// Marks slot `s` as holding attack id `a` in `layouts`.
    #[inline(always)]
    fn mark(&mut self, s: usize, a: u16, layouts: &[Layout]) {
        let h = (1 + usize::from(a)) * self.words;
        for l in layouts {
            let p = l.pos(s);
            let bit = 1 << (p & 63);
            self.bits[l.base + (p >> 6)] |= bit;
            self.bits[l.base + h + (p >> 6)] |= bit;
        }
    }

    #[inline(always)]
    fn clear(&mut self, s: usize, layouts: &[Layout]) {
        let h = (1 + usize::from(self.slots[s])) * self.words;
        self.slots[s] = 0;
        for l in layouts {
            let p = l.pos(s);
            let bit = !(1 << (p & 63));
            self.bits[l.base + (p >> 6)] &= bit;
            self.bits[l.base + h + (p >> 6)] &= bit;
        }
    }

    /// Rebuilds the layouts of level `depth`'s segment from the slot array.
    fn rebuild(&mut self, depth: usize) {
        let layouts = std::mem::take(&mut self.levels[depth].rebuild);
        let block = (usize::from(self.plan.attacks) + 2) * self.words;
        for l in &layouts {
            self.bits[l.base..l.base + block].fill(0);
        }
        for s in 0..self.slots.len() {
            let a = self.slots[s];
            if a != 0 {
                self.mark(s, a, &layouts);
            }
        }
        self.levels[depth].rebuild = layouts;
    }

    /// The values of thin level `depth` at `m` (a set of at most four) that keep its
    /// subsets clear of the slot array, its distinct (slot, attack id) pairs listed in its
    /// pattern as it goes; empty as soon as no value is left or two of its subsets with
    /// different attack sets share a slot.
    /// `U` is the level's `u` (0, 1 or 2).
    #[inline(always)]
    fn fit_thin<const U: u32>(&mut self, depth: usize, m: u64) -> u8 {
        self.new_pattern(depth);
        let l = &self.levels[depth].layer;
        let kb = l.kb;
        let mask = self.slots.len() - 1;
        let mut alive = u8::MAX >> (8 - (1 << U));
        let pat = &mut self.patterns[depth];
        for &(occ, a) in &l.subsets {
            let i = index_masked(occ, m, self.shift);
            match listed(&mut self.seen, self.epoch, i, a) {
                Some(true) => continue,
                Some(false) => pat.push((slot(i), a)),
                None => return 0,
            }
            for v in 0..1usize << U {
                let held = self.slots[(i + (v << kb)) & mask];
                if held != 0 && held != a {
                    alive &= !(1 << v);
                }
            }
            if alive == 0 {
                return 0;
            }
        }
        alive
    }

    /// Lists the distinct (slot, attack id) pairs of level `depth` at `m` (its free bits
    /// zero) in its pattern; `false` as soon as two of its subsets with different attack sets
    /// share a slot.
    fn build(&mut self, depth: usize, m: u64) -> bool {
        self.new_pattern(depth);
        let pat = &mut self.patterns[depth];
        for &(occ, a) in &self.levels[depth].layer.subsets {
            let i = index_masked(occ, m, self.shift);
            match listed(&mut self.seen, self.epoch, i, a) {
                Some(true) => {}
                Some(false) => pat.push((slot(i), a)),
                None => return false,
            }
        }
        true
    }

    /// Starts listing the pattern of level `depth`.
    #[inline(always)]
    fn new_pattern(&mut self, depth: usize) {
        self.epoch += 1;
        if self.epoch == 1 << 47 {
            self.seen.fill(0);
            self.epoch = 1;
        }
        self.patterns[depth].clear();
    }

    /// The values of level `depth` keeping `pairs` clear of the table.
    #[inline(always)]
    fn clear_of_table<R: Set>(&self, depth: usize, pairs: &[(u16, u16)]) -> R {
        let l = self.levels[depth].layout;
        let table = &self.bits[l.base..l.base + self.words];
        let mut acc = !R::EMPTY;
        for &(i, a) in pairs {
            let i = usize::from(i);
            let r = i & ((1 << l.kb) - 1);
            let held = &self.bits[l.base + (1 + usize::from(a)) * self.words..][..self.words];
            acc &= (!R::load(table, r) | R::load(held, r)).rotr((i >> l.kb) as u32);
            if acc.is_empty() {
                break;
            }
        }
        acc
    }

    /// Places the pattern of `depth` moved by `by` slots (the filter has cleared it); returns
    /// the new highest slot.
    fn put(&mut self, depth: usize, by: usize, mut max: u32) -> u32 {
        let layouts = std::mem::take(&mut self.levels[depth].deeper);
        let pat = std::mem::take(&mut self.patterns[depth]);
        let mask = self.slots.len() - 1;
        for &(i, a) in &pat {
            let s = (usize::from(i) + by) & mask;
            max = max.max(u32::from(slot(s)));
            if self.slots[s] == 0 {
                self.set(s, a, &layouts);
                self.undo.push(slot(s));
            }
        }
        self.patterns[depth] = pat;
        self.levels[depth].deeper = layouts;
        max
    }

    /// Clears what was placed at `depth` since `mark`.
    fn unput(&mut self, depth: usize, mark: usize) {
        let layouts = std::mem::take(&mut self.levels[depth].deeper);
        while self.undo.len() > mark {
            let s = self.undo.pop().map_or(0, usize::from);
            self.clear(s, &layouts);
        }
        self.levels[depth].deeper = layouts;
    }

    /// Whether level `depth` (at `m`, its free bits zero) may still hold a value: some value
    /// keeps its first subsets clear of the table as it is, and its own subsets agree. Builds
    /// its pattern when it has no carry bits.
    fn worth(&mut self, depth: usize, m: u64) -> bool {
        let l = &self.levels[depth];
        let (from, hl, probe) = (l.layer.from, l.layer.hl, l.probe);
        if !(0..1u64 << hl).any(|low| probe(self, depth, m | low << from)) {
            return false;
        }
        if hl == 0 && !l.thin {
            if !self.build(depth, m) {
                return false;
            }
            self.prebuilt[depth] = true;
        }
        true
    }
}

/// Searches level `depth` of `s` under `prefix`, the highest slot so far `max`; the nodes of
/// the call are already counted. `R` is the level's ring.
fn level<R: Set>(
    s: &mut RingSearch<'_>,
    out: &mut Out,
    stop: &AtomicBool,
    depth: usize,
    prefix: u64,
    max: u32,
) {
    let n = s.levels.len();
    let fixed = prefix | s.task_part[depth];
    let l = &s.levels[depth].layer;
    let (from, hl) = (l.from, l.hl);
    let prebuilt = std::mem::take(&mut s.prebuilt[depth]);
    if !s.levels[depth].rebuild.is_empty() {
        s.rebuild(depth);
    }
    for low in 0..1u64 << hl {
        if out.stopped {
            return;
        }
        let m = fixed | low << from;
        let built = prebuilt && hl == 0;
        if !built && !s.build(depth, m) {
            continue;
        }
        let values: R = s.clear_of_table(depth, &s.patterns[depth]);
        if values.is_empty() {
            continue;
        }
        let magic = |q: u32| m | u64::from(q) << (hl + from);
        if depth + 1 == n {
            count(s, out, depth, values, max, magic);
            continue;
        }
        descend(s, out, stop, depth, values, max, magic);
    }
}

/// Places each value `values` of level `depth` (whose pattern is listed) and searches the
/// next level under it, `magic(q)` being the magic of value `q`.
fn descend<R: Set>(
    s: &mut RingSearch<'_>,
    out: &mut Out,
    stop: &AtomicBool,
    depth: usize,
    values: R,
    max: u32,
    magic: impl Fn(u32) -> u64,
) {
    let next = depth + 1;
    let kb = s.levels[depth].layer.kb;
    out.nodes(u64::from(values.count()) << s.levels[next].layer.w, stop);
    // Not into a thin level: it stops early itself, and the look cost more than it saved
    // (rook d4 at 9: 5 %, h3 at 10: 4 %). Not into a level that rebuilds its layouts either:
    // they are not built yet.
    let look = s.patterns[depth].len() >= LOOK_AHEAD
        && !s.levels[next].thin
        && s.levels[next].rebuild.is_empty();
    let mut vs = values;
    while !vs.is_empty() {
        let q = vs.lowest();
        vs = vs.without_lowest();
        if look && !s.worth(next, magic(q) | s.task_part[next]) {
            continue;
        }
        let mark = s.undo.len();
        let top = s.put(depth, (q as usize) << kb, max);
        let search = s.levels[next].search;
        search(s, out, stop, next, magic(q), top);
        s.unput(depth, mark);
        s.prebuilt[next] = false;
    }
}

/// Searches thin level `depth` of `s` under `prefix` against the slot array (see
/// [`RingSearch::fit_thin`]); otherwise as [`level`]. `U` is the level's `u`.
fn thin_level<const U: u32>(
    s: &mut RingSearch<'_>,
    out: &mut Out,
    stop: &AtomicBool,
    depth: usize,
    prefix: u64,
    max: u32,
) {
    let n = s.levels.len();
    let fixed = prefix | s.task_part[depth];
    let l = &s.levels[depth].layer;
    let (from, hl) = (l.from, l.hl);
    for low in 0..1u64 << hl {
        if out.stopped {
            return;
        }
        let m = fixed | low << from;
        let values = s.fit_thin::<U>(depth, m);
        if values == 0 {
            continue;
        }
        let magic = |q: u32| m | u64::from(q) << (hl + from);
        if depth + 1 == n {
            count(s, out, depth, values, max, magic);
        } else {
            descend(s, out, stop, depth, values, max, magic);
        }
    }
}

/// Counts the magics `values` of the last level and offers the best.
fn count<R: Set>(
    s: &RingSearch<'_>,
    out: &mut Out,
    depth: usize,
    values: R,
    max: u32,
    magic: impl Fn(u32) -> u64,
) {
    out.tally.magics += u64::from(values.count());
    let pat = &s.patterns[depth];
    let kb = s.levels[depth].layer.kb;
    // A pair keeps its slot's residue modulo 2^kb whatever the value.
    let low = pat
        .iter()
        .map(|&(i, _)| u32::from(i) & ((1 << kb) - 1))
        .max();
    if out.collect.is_none() && !out.could_improve(max.max(low.unwrap_or(0))) {
        return;
    }
    let mask = s.slots.len() - 1;
    let mut vs = values;
    while !vs.is_empty() {
        let q = vs.lowest();
        vs = vs.without_lowest();
        let by = (q as usize) << kb;
        let top = pat.iter().map(|&(i, _)| (usize::from(i) + by) & mask).max();
        out.offer(max.max(top.map_or(0, |t| u32::from(slot(t)))), magic(q));
        if let Some(c) = out.collect.as_mut() {
            c.push(magic(q));
        }
    }
}

/// The first [`LOOK_DRIVERS`] subsets of level `depth` at `m` against the table.
fn probe<R: Set>(s: &RingSearch<'_>, depth: usize, m: u64) -> bool {
    let subsets = &s.levels[depth].layer.subsets;
    let mut pairs = [(0u16, 0u16); LOOK_DRIVERS];
    let k = subsets.len().min(LOOK_DRIVERS);
    for (p, &(occ, a)) in pairs.iter_mut().zip(subsets) {
        *p = (slot(index_masked(occ, m, s.shift)), a);
    }
    !s.clear_of_table::<R>(depth, &pairs[..k]).is_empty()
}

/// The level function and probe for a ring of `2^u` slots (a thin level is never probed:
/// see [`descend`]).
fn kind(u: u32, thin: bool) -> (LevelFn, ProbeFn) {
    match u {
        0 if thin => (thin_level::<0>, probe::<Tiny<0>>),
        1 if thin => (thin_level::<1>, probe::<Tiny<1>>),
        2 if thin => (thin_level::<2>, probe::<Tiny<2>>),
        0 => (level::<Tiny<0>>, probe::<Tiny<0>>),
        1 => (level::<Tiny<1>>, probe::<Tiny<1>>),
        2 => (level::<Tiny<2>>, probe::<Tiny<2>>),
        3 => (level::<u8>, probe::<u8>),
        4 => (level::<u16>, probe::<u16>),
        5 => (level::<u32>, probe::<u32>),
        6 => (level::<u64>, probe::<u64>),
        7 => (level::<Wide<2>>, probe::<Wide<2>>),
        8 => (level::<Wide<4>>, probe::<Wide<4>>),
        9 => (level::<Wide<8>>, probe::<Wide<8>>),
        10 => (level::<Wide<16>>, probe::<Wide<16>>),
        11 => (level::<Wide<32>>, probe::<Wide<32>>),
        _ => (level::<Wide<64>>, probe::<Wide<64>>),
    }
}

/// Whether slot `i` is already in the pattern being listed (epoch `epoch` in `seen`) with
/// attack id `a` (`true`), new to it (`false`, and now marked), or held there by another
/// attack set (`None`).
#[inline(always)]
fn listed(seen: &mut [u64], epoch: u64, i: usize, a: u16) -> Option<bool> {
    let here = epoch << 16 | u64::from(a);
    let was = seen[i];
    if was >> 16 == epoch {
        (was == here).then_some(true)
    } else {
        seen[i] = here;
        Some(false)
    }
}

/// A slot (below 4096) as stored in patterns and the undo log.
#[allow(clippy::cast_possible_truncation)]
fn slot(i: usize) -> u16 {
    i as u16
}
