//! The search from the high bits of the period down ([`Order::High`](super::Order::High)).
//!
//! A node fixes the bits of `m` from `t` up to the period and leaves the *window* `d`, the low
//! `t` bits, unknown. A subset `X` then has the product `X * known + X * d`, and the second
//! term is below `X * 2^t`: when it cannot carry the product past the end of its slot, the
//! subset's index is the same for every `d` (it is *exact*), and it stays so below, since the
//! window only shrinks. A node places its newly exact subsets and dies when two of them with
//! different attack sets meet in one slot; at `t = 0` every subset is exact and a surviving
//! node is a magic.
//!
//! A subset turns exact when its product has `X * 2^t` to spare below its slot's end, so the
//! subsets come in roughly by their *highest* square: on masks whose low squares sit on
//! ranks 1 to 3 (a rook's rank part) those are the subsets fixed early, where the low-bits-first
//! tree meets them last (docs/speed.md, "From the high bits down"). The subsets are kept sorted
//! by value: those that cannot be exact yet are a suffix, and each node carries the few that
//! came close but were not (they wait in `waiting`, one segment per depth).

use std::sync::atomic::AtomicBool;

use super::{Out, Plan};

/// Slots of the largest table (12 bits), and the spare slot past them, rounded up to a power
/// of two so that a masked index needs no bounds check.
const SLOTS: usize = 1 << 13;

/// The top-down engine: a slot array with an undo list, and the waiting lists.
///
/// The inner loop has no branch on whether a candidate is exact (about half are, at random):
/// a candidate that is not visits a spare slot past the table, which stays empty, and is
/// written to its waiting list whether or not the list's end moves past it.
#[derive(Clone, Debug)]
pub(crate) struct TopDown {
    /// Every subset (the empty one included), by value.
    occ: Vec<u64>,
    /// The attack id of each subset of `occ`.
    att: Vec<u16>,
    /// `64 - bits`: the index is the product's bits from here up.
    shift: u32,
    /// The spare slot: `2^bits`.
    spare: usize,
    /// Bits of the period below the task bits: a task's window at its root.
    width: u32,
    /// Per window width `t` (0 to `width`): how many subsets (a prefix of `occ`) have
    /// `X * (2^t - 1) < 2^shift`, so that they can be exact in a window of `t` bits.
    candidates: Vec<u32>,
    /// Attack id per slot, 0 when empty; the spare slot is always 0.
    slots: Box<[u16; SLOTS]>,
    /// Slots written on the path to the node, to take back: at most every slot, and the
    /// entry past the end that the loop writes without counting it.
    undo: Box<[u32; SLOTS]>,
    /// The waiting lists, one segment per depth of the path: the subsets that were
    /// candidates at the node above but not exact there. A segment holds at most every
    /// subset, and the path is at most `width + 1` nodes deep.
    waiting: Vec<u16>,
}

/// Where a node writes: the end of its waiting list and of the undo list, and the highest
/// slot used on the path.
#[derive(Copy, Clone, Debug)]
struct Ends {
    waiting: usize,
    undo: usize,
    max: u32,
}

/// One node's pass over its candidates.
struct Pass<'a> {
    known: u64,
    span: u64,
    shift: u32,
    spare: usize,
    slots: &'a mut [u16; SLOTS],
    undo: &'a mut [u32; SLOTS],
    /// This node's waiting list, from its start.
    left: &'a mut [u16],
    /// Its length.
    waiting: usize,
    undo_end: usize,
    max: u32,
}

impl Pass<'_> {
    /// Places subset `i` (occupancy `x`, attack id `att`) if its index is exact under
    /// `known` with a window of `span + 1` values, or puts it on the waiting list if not;
    /// true when it collides.
    #[inline(always)]
    fn step(&mut self, i: usize, x: u64, att: u16) -> bool {
        let whole = 1u64 << self.shift;
        let p = x.wrapping_mul(self.known);
        let exact = x * self.span < whole - (p & (whole - 1));
        self.left[self.waiting] = i as u16;
        self.waiting += usize::from(!exact);
        let idx = if exact {
            (p >> self.shift) as usize
        } else {
            self.spare
        } & (SLOTS - 1);
        let held = self.slots[idx];
        let place = exact & (held == 0);
        self.slots[idx] = if place { att } else { held };
        self.undo[self.undo_end & (SLOTS - 1)] = idx as u32;
        self.undo_end += usize::from(place);
        self.max = self.max.max(if place { idx as u32 } else { 0 });
        (held != 0) & (held != att)
    }
}

impl TopDown {
    /// The engine for `plan` (whose order is high-first).
    pub(crate) fn new(plan: &Plan) -> TopDown {
        let mut subsets: Vec<(u64, u16)> = plan
            .levels
            .iter()
            .flat_map(|l| l.subsets.iter().copied())
            .chain(std::iter::once((0, plan.empty_att)))
            .collect();
        subsets.sort_unstable();
        let shift = 64 - plan.bits;
        let width = plan.period_bits - plan.task_bits;
        let occ: Vec<u64> = subsets.iter().map(|s| s.0).collect();
        let candidates = (0..=width)
            .map(|t| {
                let span = (1u128 << t) - 1;
                let n = occ.partition_point(|&x| u128::from(x) * span < 1u128 << shift);
                u32::try_from(n).expect("at most 4096 subsets")
            })
            .collect();
        assert!(1usize << plan.bits < SLOTS, "at most 12 bits");
        TopDown {
            att: subsets.iter().map(|s| s.1).collect(),
            waiting: vec![0; occ.len() * (width as usize + 2)],
            occ,
            shift,
            spare: 1 << plan.bits,
            width,
            candidates,
            slots: Box::new([0; SLOTS]),
            undo: Box::new([0; SLOTS]),
        }
    }

    /// Searches the magics whose bits above the window equal `task`.
    pub(crate) fn run(&mut self, task: u64, out: &mut Out, stop: &AtomicBool) {
        let known = task << self.width;
        let root = Ends {
            waiting: 0,
            undo: 0,
            max: 0,
        };
        self.node(known, self.width, 0, 0, root, out, stop);
        debug_assert!(self.slots.iter().all(|&s| s == 0));
    }

    /// The node that fixes every bit from `t` up to `known`'s. `next` is the first subset
    /// that was never a candidate; `waiting[from..at.waiting]` holds the node above's
    /// leftovers, and this node's own start where they end.
    ///
    /// Every candidate `X` has `X * (2^t - 1) < 2^shift <= 2^63` (it was a candidate at a
    /// window at least this wide), so the test is done in 64 bits.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        known: u64,
        t: u32,
        next: usize,
        from: usize,
        at: Ends,
        out: &mut Out,
        stop: &AtomicBool,
    ) {
        out.nodes(1, stop);
        let nx = self.candidates[t as usize] as usize;
        let (inherited, left) = self.waiting.split_at_mut(at.waiting);
        let mut pass = Pass {
            known,
            span: (1u64 << t) - 1,
            shift: self.shift,
            spare: self.spare,
            slots: &mut self.slots,
            undo: &mut self.undo,
            left,
            waiting: 0,
            undo_end: at.undo,
            max: at.max,
        };
        let (occ, att) = (&self.occ, &self.att);
        let dead = inherited[from..].iter().any(|&i| {
            let i = usize::from(i);
            pass.step(i, occ[i], att[i])
        }) || occ[next..nx]
            .iter()
            .zip(&att[next..nx])
            .enumerate()
            .any(|(k, (&x, &a))| pass.step(next + k, x, a));
        let end = Ends {
            waiting: at.waiting + pass.waiting,
            undo: pass.undo_end,
            max: pass.max,
        };
        if !dead {
            if t == 0 {
                debug_assert!(end.waiting == at.waiting && nx == self.occ.len());
                out.tally.magics += 1;
                if out.could_improve(end.max) {
                    out.offer(end.max, known);
                }
                if let Some(c) = out.collect.as_mut() {
                    c.push(known);
                }
            } else {
                for v in 0..2u64 {
                    if out.stopped {
                        break;
                    }
                    self.node(known | v << (t - 1), t - 1, nx, at.waiting, end, out, stop);
                }
            }
        }
        for k in at.undo..end.undo {
            self.slots[self.undo[k] as usize & (SLOTS - 1)] = 0;
        }
    }
}
