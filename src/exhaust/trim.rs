//! The search from the high bits down with the unknown window trimmed
//! ([`Order::Trim`](super::Order::Trim)).
//!
//! A node fixes `m` to one interval `known + lo ..= known + hi` of a dyadic window (the high
//! order's node is the whole window, `lo = 0`, `hi = 2^t - 1`). Over the interval, subset `X`'s
//! product runs from `X * (known + lo)` up by `X * (hi - lo)`, so its index takes the slots
//! `b0, b0 + 1, ..., b0 + J` in turn. Two rules narrow the interval, and the node takes the
//! largest interval neither can narrow (the greatest common fixpoint of two monotone rules,
//! the same whatever order they are applied in):
//!
//! - *Exact*: a subset whose index is the same over the whole interval is placed in the
//!   table; a slot that would hold two different attack sets kills the node.
//! - *Trim*: an *active* subset must sit in a compatible slot (empty, or holding its own
//!   attack set) at every value of `m` that survives, so `lo` rises to the first value where
//!   its slot is compatible and `hi` falls to the last; when it has none, the node dies.
//!
//! A subset is active when its highest square alone, `2^q`, moves less than `K` slots over
//! the interval (`2^q * (hi - lo) < K * 2^(64 - bits)`, with `K = 2^min(7, bits - 1)`), so
//! that a subset joins with the whole family of subsets that share its highest square; the
//! empty subset always is. The trims let a family kill a node while it still moves by many
//! slots, where the high order waits for its subsets to be exact one by one
//! (docs/speed.md, "Trimmed windows").
//!
//! A surviving node descends to the smallest dyadic window that holds its interval and splits
//! it in two halves, each a node; at a single value of `m` every subset is exact, and a
//! surviving node is a magic. The nodes counted are the nodes entered.
//!
//! Where a large family joins, at a node's entry or inside its walk once trims have narrowed
//! the interval, it goes first to its join test ([`super::join`]): the family against the
//! table, bit-parallel over the whole interval, kills at once most of the nodes the walk
//! would kill there, and never another, so the nodes entered, and every residue, do not
//! depend on it.

use std::sync::atomic::AtomicBool;

use super::join::JoinTest;
use super::slots::{Masks, Table, SLOTS};
use super::{Out, Plan};

/// The slots of the largest table (12 bits): a slot index is masked with `MOST_SLOTS - 1`.
const MOST_SLOTS: usize = 1 << 12;

/// The most subsets a mask has (12 squares), so the longest list.
const MOST: usize = 1 << 12;

/// A subset in a list: its occupancy and attack id, side by side so that the loop reads the
/// list in order and nothing else.
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    x: u64,
    a: u16,
}

/// `log2 K` for a table of `bits` index bits: families join when their highest square moves
/// fewer than `K` slots over the interval. 128 slots took the least time on rooks a1 at 11
/// bits, g1 at 9 and a2 at 10 (32 to 256 were tried, docs/speed.md); smaller tables take
/// `2^(bits-1)`, so that `K * 2^(64 - bits) <= 2^63` and a joined subset moves by less than
/// `2^64` over the interval.
#[must_use]
pub(crate) fn join_bits(bits: u32) -> u32 {
    7.min(bits - 1)
}

/// The trimmed engine: the subsets in the order they join, the slot array with its undo list,
/// and the lists of active subsets, one segment per depth.
#[derive(Clone, Debug)]
pub(crate) struct Trim {
    /// Every subset: the empty one, then by highest square, the square alone first in each
    /// family and the rest in a fixed scrambled order (the order changes only the time, and
    /// scrambled families expose a collision sooner than sorted ones).
    /// Subset `k`'s occupancy and attack id, as arrays a masked index reads without a bounds
    /// check.
    entries: Box<[Entry; MOST]>,
    /// The subsets in runs that join together: run `f` (the subsets `start..end`) is active
    /// at an interval of width `w` (`hi - lo`) when `w < join`; the thresholds fall along
    /// the runs, so the active subsets are a prefix.
    families: Vec<Family>,
    /// `64 - bits`.
    shift: u32,
    /// `2^bits - 1`.
    slot_mask: usize,
    /// Bits of the period below the task bits: a task's window at its root.
    width: u32,
    /// Attack id per slot, 0 when empty.
    table: Box<Table>,
    /// The active lists, one segment per node on the path: a node copies its parent's
    /// segment after it and works on the copy, but the last child works on it in place. A
    /// list holds the entries themselves, not their ids: the check's chain of loads is one
    /// shorter.
    lists: Vec<Entry>,
    /// Folded ([`Order::Fold`](super::Order::Fold)): the half period, each `m` standing for
    /// `m` and `-m`.
    fold: bool,
    /// Every subset with its attack id, the empty one too (the fold's leaf check).
    all: Vec<(u64, u16)>,
    /// The leaf check's slots, one per slot of the table (kept, not allocated per leaf).
    leaf: Vec<u16>,
    period_bits: u32,
    task_bits: u32,
    /// Whether the join tests run (off to check their kills against the walk alone).
    tests_on: bool,
    /// Nodes the join tests killed, for the tests.
    #[cfg(test)]
    pub(super) join_killed: u64,
    /// Whether the last walk ended at a join test's kill, for the tests.
    #[cfg(test)]
    walk_test_killed: bool,
}

/// A node's interval and where it writes.
#[derive(Copy, Clone, Debug)]
struct Node {
    known: u64,
    t: u32,
    lo: u64,
    hi: u64,
    /// The first run of subsets that never joined.
    next: usize,
    /// The parent's list: `lists[from .. from + len]`.
    from: usize,
    len: usize,
    /// The end of the undo list.
    undo: usize,
    /// Whether the parent's list may be worked on in place (its last child).
    last: bool,
}

impl Node {
    /// The walk's state at the node's entry.
    fn fix(&self) -> Fix {
        Fix {
            lo: self.lo,
            hi: self.hi,
            next: self.next,
            len: self.len,
            undo: self.undo,
        }
    }
}

/// What a trim found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Trimmed {
    Dead,
    /// The subset is exact now (placed, or its slot already held its attack set).
    Placed,
    Kept,
    /// Nothing moved: the end that looked incompatible is compatible in the other system of
    /// the fold.
    Unchanged,
}

/// A scrambling of `u64` (the splitmix64 finalizer), for the fixed order inside a family.
fn scramble(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Trim {
    /// The engine for `plan` (whose order is [`Order::Trim`](super::Order::Trim)).
    pub(crate) fn new(plan: &Plan) -> Trim {
        let fold = plan.order == super::Order::Fold;
        let all: Vec<(u64, u16)> = plan
            .levels
            .iter()
            .flat_map(|l| l.subsets.iter().copied())
            .chain(std::iter::once((0, plan.empty_att)))
            .collect();
        let mut subsets: Vec<(u64, u16)> = all
            .iter()
            .copied()
            .filter(|&(x, _)| !fold || x != 0)
            .collect();
        let family = |x: u64| if x == 0 { 0 } else { 64 - x.leading_zeros() };
        subsets.sort_unstable_by_key(|&(x, _)| {
            let alone = x == 0 || x.is_power_of_two();
            (family(x), !alone, scramble(x))
        });
        let shift = 64 - plan.bits;
        let kwhole = join_bits(plan.bits) + shift; // log2(K * 2^shift) <= 63
        let join: Vec<u64> = subsets
            .iter()
            .map(|&(x, _)| {
                if x == 0 {
                    u64::MAX
                } else {
                    let q = 63 - x.leading_zeros();
                    kwhole.checked_sub(q).map_or(1, |e| 1 << e)
                }
            })
            .collect();
        let mut families: Vec<Family> = Vec::new();
        for (k, &j) in join.iter().enumerate() {
            match families.last_mut() {
                Some(f) if f.join == j => f.end = k + 1,
                _ => families.push(Family {
                    join: j,
                    start: k,
                    end: k + 1,
                    test: None,
                }),
            }
        }
        // The join tests: each family's, with the attack ids that no earlier family has.
        {
            let mut seen = vec![false; usize::from(plan.attacks) + 1];
            for f in &mut families {
                let members = &subsets[f.start..f.end];
                let (x, _) = members[0];
                if x.is_power_of_two() {
                    let novel = |a: u16| !seen[usize::from(a)];
                    f.test = JoinTest::new(members, x.trailing_zeros(), shift, novel);
                }
                for &(_, a) in members {
                    seen[usize::from(a)] = true;
                }
            }
        }
        let masks = families
            .iter()
            .any(|f| f.test.is_some())
            .then(|| Masks::new(plan.bits, plan.attacks));
        let width = plan.period_bits - plan.task_bits;
        assert!(1usize << plan.bits <= SLOTS, "at most 12 bits");
        Trim {
            lists: vec![Entry::default(); subsets.len() * (width as usize + 3) + MOST],
            entries: Box::new(std::array::from_fn(|k| {
                subsets
                    .get(k)
                    .map_or(Entry::default(), |&(x, a)| Entry { x, a })
            })),
            families,
            shift,
            slot_mask: (1 << plan.bits) - 1,
            width,
            table: Table::new(masks),
            fold,
            all,
            leaf: vec![0; 1 << plan.bits],
            period_bits: plan.period_bits,
            task_bits: plan.task_bits,
            tests_on: true,
            #[cfg(test)]
            join_killed: 0,
            #[cfg(test)]
            walk_test_killed: false,
        }
    }

    /// Searches the magics whose bits above the window equal `task`.
    pub(crate) fn run(&mut self, task: u64, out: &mut Out, stop: &AtomicBool) {
        let mut hi_root = if self.width == 64 {
            u64::MAX
        } else {
            (1 << self.width) - 1
        };
        if self.fold {
            let half_point = 1u64 << (self.period_bits - 1);
            if self.task_bits == 0 {
                hi_root = half_point - 1;
                self.leaf_check(half_point, out);
            } else {
                let half = 1u64 << (self.task_bits - 1);
                if task >= half {
                    out.nodes(1, stop);
                    if task == half {
                        self.leaf_check(half_point, out);
                    }
                    return;
                }
            }
        }
        let root = Node {
            known: task << self.width,
            t: self.width,
            lo: 0,
            hi: hi_root,
            next: 0,
            from: 0,
            len: 0,
            undo: 0,
            last: true,
        };
        self.node(root, out, stop);
        debug_assert!(self.table.is_empty());
    }

    /// Enters node `n`: takes its interval to the fixpoint of the two rules, and if it
    /// survives, counts the magic or enters its two halves.
    fn node(&mut self, n: Node, out: &mut Out, stop: &AtomicBool) {
        out.nodes(1, stop);
        if self.join_kills(&n) {
            return;
        }
        // The last child works on its parent's list in place: the parent needs it no more
        // (in the tests it keeps it, for `assert_walk_kills`).
        let own = if n.last && !cfg!(test) {
            n.from
        } else {
            self.lists
                .copy_within(n.from..n.from + n.len, n.from + n.len);
            n.from + n.len
        };
        let mut s = n.fix();
        let alive = self.fixpoint(n.known, own, &mut s);
        #[cfg(test)]
        if std::mem::take(&mut self.walk_test_killed) {
            self.table.take_back(n.undo, s.undo);
            s.undo = n.undo;
            self.assert_walk_kills(&n);
            self.join_killed += 1;
        }
        if alive && !out.stopped {
            if n.t == 0 && self.fold {
                self.leaf_check(n.known, out);
                let p = if self.period_bits == 64 {
                    0
                } else {
                    1u64 << self.period_bits
                };
                let neg = p.wrapping_sub(n.known) & p.wrapping_sub(1);
                if neg != n.known {
                    self.leaf_check(neg, out);
                }
            } else if n.t == 0 {
                out.tally.magics += 1;
                // Every occupied slot was placed on the path: the highest is the magic's.
                let top = self.table.slots[..=self.slot_mask]
                    .iter()
                    .rposition(|&h| h != 0)
                    .map_or(0, |i| i as u32);
                if out.could_improve(top) {
                    out.offer(top, n.known);
                }
                if let Some(c) = out.collect.as_mut() {
                    c.push(n.known);
                }
            } else {
                let (mut known, mut t, mut lo, mut hi) = (n.known, n.t, s.lo, s.hi);
                while t > 0 && lo >> (t - 1) == hi >> (t - 1) {
                    let half = 1u64 << (t - 1);
                    if lo >= half {
                        known |= half;
                        lo -= half;
                        hi -= half;
                    }
                    t -= 1;
                }
                let child = Node {
                    known,
                    t,
                    lo,
                    hi,
                    next: s.next,
                    from: own,
                    len: s.len,
                    undo: s.undo,
                    last: true,
                };
                if t == 0 {
                    self.node(child, out, stop);
                } else {
                    let half = 1u64 << (t - 1);
                    self.node(
                        Node {
                            t: t - 1,
                            hi: half - 1,
                            last: false,
                            ..child
                        },
                        out,
                        stop,
                    );
                    if !out.stopped {
                        self.node(
                            Node {
                                known: known | half,
                                t: t - 1,
                                lo: 0,
                                hi: hi - half,
                                ..child
                            },
                            out,
                            stop,
                        );
                    }
                }
            }
        }
        self.table.take_back(n.undo, s.undo);
    }

    /// Whether the family that joins at node `n` kills it: the join test, which kills only
    /// nodes the walk would kill (`join.rs`). Checked against the walk in the tests.
    fn join_kills(&mut self, n: &Node) -> bool {
        if !self.tests_on {
            return false;
        }
        let w = n.hi - n.lo;
        let Some(f) = self.families.get_mut(n.next) else {
            return false;
        };
        let join = f.join;
        let Some(test) = f.test.as_mut().filter(|_| w < join) else {
            return false;
        };
        let Some(masks) = self.table.masks_at(n.undo) else {
            return false;
        };
        let kills = test.kills(masks, n.known.wrapping_add(n.lo), w, self.fold, self.shift);
        #[cfg(test)]
        if kills {
            self.assert_walk_kills(n);
            self.join_killed += 1;
        }
        kills
    }

    /// The same engine without its join tests, to compare the two in the tests.
    #[cfg(test)]
    pub(super) fn without_join_tests(&mut self) {
        self.families.iter_mut().for_each(|f| f.test = None);
        self.table.drop_masks();
        self.tests_on = false;
    }

    /// The walk on node `n` without the join tests dies too (their promise), and leaves
    /// everything as it found it.
    #[cfg(test)]
    fn assert_walk_kills(&mut self, n: &Node) {
        let tests_on = std::mem::replace(&mut self.tests_on, false);
        let own = n.from + n.len;
        self.lists.copy_within(n.from..n.from + n.len, own);
        let mut s = n.fix();
        let alive = self.fixpoint(n.known, own, &mut s);
        self.table.take_back(n.undo, s.undo);
        self.tests_on = tests_on;
        assert!(!alive, "the join test killed a node the walk keeps: {n:?}");
    }

    /// Whether `m` is a magic, by the definition; counts and offers it (fold).
    fn leaf_check(&mut self, m: u64, out: &mut Out) {
        let slots = &mut self.leaf;
        slots.fill(u16::MAX);
        let mut top = 0;
        for &(x, a) in &self.all {
            let i = (x.wrapping_mul(m) >> self.shift) as usize;
            if slots[i] == u16::MAX {
                slots[i] = a;
                top = top.max(i as u32);
            } else if slots[i] != a {
                return;
            }
        }
        out.tally.magics += 1;
        if out.could_improve(top) {
            out.offer(top, m);
        }
        if let Some(c) = out.collect.as_mut() {
            c.push(m);
        }
    }

    /// Applies the two rules to the list at `lists[own..]` until neither changes anything;
    /// false when the node dies. The list is walked as a ring and compacted as it goes;
    /// `since` counts the subsets checked since the last change, so the walk stops once every
    /// subset still listed has been checked against the final interval and table.
    ///
    /// The common case (both ends compatible) keeps its branches: a branch-free form (the id
    /// always written, the slot always stored) measured slower (docs/log/2026-11-26-fold.md).
    fn fixpoint(&mut self, known: u64, own: usize, s: &mut Fix) -> bool {
        let shift = self.shift;
        let whole = 1u64 << shift;
        let low = whole - 1;
        let mut lists = std::mem::take(&mut self.lists);
        let ring: &mut [Entry; MOST] = (&mut lists[own..own + MOST])
            .try_into()
            .expect("room for a list");
        // The rooks' tables (9 to 12 bits) get a copy of the walk each, with the shift a
        // constant: fewer registers in the loop.
        let alive = match (shift, self.fold) {
            (52, false) => self.walk_at::<52, false>(known, ring, s),
            (53, false) => self.walk_at::<53, false>(known, ring, s),
            (54, false) => self.walk_at::<54, false>(known, ring, s),
            (55, false) => self.walk_at::<55, false>(known, ring, s),
            (52, true) => self.walk_at::<52, true>(known, ring, s),
            (53, true) => self.walk_at::<53, true>(known, ring, s),
            (54, true) => self.walk_at::<54, true>(known, ring, s),
            (55, true) => self.walk_at::<55, true>(known, ring, s),
            (_, false) => self.walk::<false, false>(known, ring, s, whole, low, shift),
            (_, true) => self.walk::<true, false>(known, ring, s, whole, low, shift),
        };
        self.lists = lists;
        alive
    }

    /// [`Trim::walk`] with the shift a constant.
    fn walk_at<const SHIFT: u32, const FOLD: bool>(
        &mut self,
        known: u64,
        ring: &mut [Entry; MOST],
        s: &mut Fix,
    ) -> bool {
        self.walk::<FOLD, true>(known, ring, s, 1 << SHIFT, (1 << SHIFT) - 1, SHIFT)
    }

    /// The walk of [`Trim::fixpoint`] over `ring`. Everything the loop touches is a local, so
    /// that it lives in registers; the rare trims go through `s`.
    ///
    /// The walk is a ring over the list: it ends once every subset still listed has been
    /// checked since the last change. A change (a placement or a trim) sets the end to the end
    /// of this pass and then, in the next pass, the position the change was written at
    /// (`wrap`); without a change the end stays where it was (`limit`). The common check, a
    /// subset compatible at both ends and not exact, is a loop of its own that only reads the
    /// list, so that it keeps to registers; anything else leaves it.
    ///
    /// `WIDE`: the table has 9 bits or more ([`ends`]).
    #[inline(always)]
    fn walk<const FOLD: bool, const WIDE: bool>(
        &mut self,
        known: u64,
        ring: &mut [Entry; MOST],
        s: &mut Fix,
        whole: u64,
        low: u64,
        shift: u32,
    ) -> bool {
        join_new(&self.families, &self.entries, ring, s);
        let tests_on = self.tests_on;
        let (mut read, mut write) = (0usize, 0usize);
        let mut len = s.len;
        let mut limit = len;
        let mut wrap: Option<usize> = None;
        let mut undo_end = s.undo;
        let mut base = known.wrapping_add(s.lo);
        let mut top = known.wrapping_add(s.hi);
        let t: &mut Table = &mut self.table;
        loop {
            (read, write) = scan::<FOLD, WIDE>(
                ring, &t.slots, read, write, limit, base, top, whole, low, shift,
            );
            if read == limit {
                match wrap.take() {
                    Some(d) => {
                        len = write;
                        read = 0;
                        write = 0;
                        limit = d;
                        continue;
                    }
                    None => break,
                }
            }
            // The subset at `read` is exact or clashes at an end (`scan` stopped there).
            let e = ring[read & (MOST - 1)];
            read += 1;
            let d = ends::<FOLD, WIDE>(e.x, base, top, whole, low, shift);
            let (p0, lw) = (d.p0, d.p1.wrapping_sub(d.p0));
            let h0 = t.slots[d.b0];
            let h1 = t.slots[d.b1];
            if (h0 != 0 && h0 != e.a) || (h1 != 0 && h1 != e.a) {
                if d.exact {
                    s.undo = undo_end;
                    return false;
                }
                s.len = len;
                s.undo = undo_end;
                let done = trim(t, self.slot_mask, shift, e, p0, lw, s, FOLD);
                match done {
                    Trimmed::Dead => return false,
                    Trimmed::Placed => {}
                    Trimmed::Unchanged => {
                        ring[write & (MOST - 1)] = e;
                        write += 1;
                        continue;
                    }
                    Trimmed::Kept => {
                        ring[write & (MOST - 1)] = e;
                        write += 1;
                    }
                }
                let joined = s.next;
                join_new(&self.families, &self.entries, ring, s);
                if s.next > joined && tests_on {
                    // A family joined after the trims: its join test against the table now.
                    let base = known.wrapping_add(s.lo);
                    for f in &mut self.families[joined..s.next] {
                        let (Some(test), Some(masks)) = (f.test.as_mut(), t.masks_at(s.undo))
                        else {
                            continue;
                        };
                        if test.kills(masks, base, s.hi - s.lo, FOLD, shift) {
                            #[cfg(test)]
                            {
                                self.walk_test_killed = true;
                            }
                            return false;
                        }
                    }
                }
                len = s.len;
                limit = len;
                wrap = Some(write - usize::from(done == Trimmed::Kept));
                undo_end = s.undo;
                base = known.wrapping_add(s.lo);
                top = known.wrapping_add(s.hi);
            } else if h0 == 0 {
                // Exact in an empty slot (no clash, so `scan` stopped for exactness): placed,
                // and the list is checked again.
                debug_assert!(d.exact);
                t.place(d.b0, e.a, undo_end);
                undo_end += 1;
                limit = len;
                wrap = Some(write);
            }
            // Exact in a slot that holds its attack set: dropped, nothing changed.
        }
        s.undo = undo_end;
        s.len = write + (len - read);
        if read != write {
            ring.copy_within(read..len, write);
        }
        true
    }
}

/// The walk's common path: from `read` up to `limit`, keeps the subsets that are compatible at
/// both ends of the interval (`base ..= top`) and not exact, writing them at `write`; stops at
/// the first that is not, or at `limit`. Returns the new `read` and `write`.
///
/// A function of its own, not inlined, so that its few values stay in registers.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn scan<const FOLD: bool, const WIDE: bool>(
    ring: &mut [Entry; MOST],
    slots: &[u16; SLOTS],
    mut read: usize,
    mut write: usize,
    limit: usize,
    base: u64,
    top: u64,
    whole: u64,
    low: u64,
    shift: u32,
) -> (usize, usize) {
    while read < limit {
        let e = ring[read & (MOST - 1)];
        let d = ends::<FOLD, WIDE>(e.x, base, top, whole, low, shift);
        let h0 = slots[d.b0];
        let h1 = slots[d.b1];
        if d.exact || (h0 != 0 && h0 != e.a) || (h1 != 0 && h1 != e.a) {
            break;
        }
        ring[write & (MOST - 1)] = e;
        write += 1;
        read += 1;
    }
    (read, write)
}

/// A subset's products at the interval's two ends, their slots, and whether it is exact (one
/// slot over the whole interval).
#[derive(Copy, Clone, Debug)]
struct Ends {
    /// The product at `lo` (folded: less one, the other system's).
    p0: u64,
    /// The product at `hi`.
    p1: u64,
    b0: usize,
    b1: usize,
    exact: bool,
}

/// The one computation of a subset's ends over the interval `base ..= top`, which the walk's
/// common loop and its slow path share, so that they agree on what stopped the loop.
///
/// `WIDE`: the table has 9 bits or more, so a joined subset moves fewer slots than the table
/// has (`2K <= 2^bits / 2`), and it is exact when its two end slots are one.
#[inline(always)]
fn ends<const FOLD: bool, const WIDE: bool>(
    x: u64,
    base: u64,
    top: u64,
    whole: u64,
    low: u64,
    shift: u32,
) -> Ends {
    let p0 = x.wrapping_mul(base).wrapping_sub(u64::from(FOLD));
    let p1 = x.wrapping_mul(top);
    let b0 = (p0 >> shift) as usize & (MOST_SLOTS - 1);
    let b1 = (p1 >> shift) as usize & (MOST_SLOTS - 1);
    let exact = if WIDE {
        b0 == b1
    } else {
        p1.wrapping_sub(p0) < whole - (p0 & low)
    };
    Ends {
        p0,
        p1,
        b0,
        b1,
        exact,
    }
}

/// Subset `e` (product `p0` at `lo`, moving by `lw` over the interval) has an incompatible
/// slot at an end of the interval: moves the ends to its first and last compatible slots.
///
/// `fold` is an argument, not a const parameter as in the walk: two copies of this path
/// measured no faster on rook g1 at 9 (within the 2 % spread of back-to-back runs).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn trim(
    t: &mut Table,
    slot_mask: usize,
    shift: u32,
    e: Entry,
    p0: u64,
    lw: u64,
    s: &mut Fix,
    fold: bool,
) -> Trimmed {
    let (x, a) = (e.x, e.a);
    let low = (1u64 << shift) - 1;
    let fr = p0 & low;
    // The slot boundaries crossed: the product reaches slot b0 + j at the offset
    // rem + (j - 1) * 2^shift, and `last` of them lie within lw.
    let last = (lw >> shift) + ((fr + (lw & low)) >> shift);
    let b0 = p0 >> shift;
    let conflict = |slots: &[u16; SLOTS], j: u64| {
        let h = slots[(b0.wrapping_add(j) as usize) & slot_mask];
        h != 0 && h != a
    };
    let mut first = 0;
    while first <= last && conflict(&t.slots, first) {
        first += 1;
    }
    if first > last {
        return Trimmed::Dead;
    }
    let mut end = last;
    while conflict(&t.slots, end) {
        end -= 1;
    }
    let rem = (1u64 << shift) - fr;
    let lo0 = s.lo;
    let hi0 = s.hi;
    if first > 0 {
        s.lo = lo0 + (rem + ((first - 1) << shift) - u64::from(fold)).div_ceil(x);
    }
    if end < last {
        // Folded, the last slot is the floor system's at `hi`, one past the other's when
        // `x * hi` is a multiple of `2^shift`: the bound may not rise above `hi`.
        s.hi = (lo0 + (rem + (end << shift)).div_ceil(x) - 1).min(hi0);
    }
    if s.lo > s.hi {
        return Trimmed::Dead;
    }
    if fold && s.lo == lo0 && s.hi == hi0 && first != end {
        return Trimmed::Unchanged;
    }
    if first == end {
        let b = (b0.wrapping_add(first) as usize) & slot_mask;
        if t.slots[b] == 0 {
            t.place(b, a, s.undo);
            s.undo += 1;
        }
        Trimmed::Placed
    } else {
        Trimmed::Kept
    }
}

/// Appends to the list `ring` (of `s.len` subsets) the subsets that join at the interval's
/// width.
#[inline(always)]
fn join_new(families: &[Family], entries: &[Entry; MOST], ring: &mut [Entry; MOST], s: &mut Fix) {
    let w = s.hi - s.lo;
    while let Some(f) = families.get(s.next).filter(|f| w < f.join) {
        let n = f.end - f.start;
        ring[s.len..s.len + n].copy_from_slice(&entries[f.start..f.end]);
        s.len += n;
        s.next += 1;
    }
}

/// A run of subsets that join at the same width.
#[derive(Clone, Debug)]
struct Family {
    join: u64,
    start: usize,
    end: usize,
    /// The family tested as a whole where it joins (`join.rs`), if it is worth it.
    test: Option<JoinTest>,
}

/// A node's state while its fixpoint is taken.
#[derive(Copy, Clone, Debug)]
struct Fix {
    lo: u64,
    hi: u64,
    next: usize,
    /// The list's length.
    len: usize,
    undo: usize,
}
