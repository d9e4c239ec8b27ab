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
//! came close but were not (they wait in `waiting`, one segment per depth of one stack).

use std::sync::atomic::AtomicBool;

use super::{Out, Plan};

/// The top-down engine: a slot array with an undo list, and the waiting lists.
#[derive(Clone, Debug)]
pub(crate) struct TopDown {
    /// Every subset (the empty one included), by value.
    occ: Vec<u64>,
    /// The attack id of each subset of `occ`.
    att: Vec<u16>,
    /// `64 - bits`: the index is the product's bits from here up.
    shift: u32,
    /// Bits of the period below the task bits: a task's window at its root.
    width: u32,
    /// Per window width `t` (0 to `width`): how many subsets (a prefix of `occ`) have
    /// `X * (2^t - 1) < 2^shift`, so that they can be exact in a window of `t` bits.
    candidates: Vec<u32>,
    /// Attack id per slot, 0 when empty.
    slots: Vec<u16>,
    /// Slots written, to take back.
    undo: Vec<u32>,
    /// The waiting lists, one segment per depth on one stack: the subsets that were
    /// candidates at the node above but not exact there.
    waiting: Vec<u16>,
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
        TopDown {
            att: subsets.iter().map(|s| s.1).collect(),
            occ,
            shift,
            width,
            candidates,
            slots: vec![0; 1 << plan.bits],
            undo: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// Searches the magics whose bits above the window equal `task`.
    pub(crate) fn run(&mut self, task: u64, out: &mut Out, stop: &AtomicBool) {
        let known = task << self.width;
        self.waiting.clear();
        self.node(known, self.width, 0, 0, 0, out, stop);
        debug_assert!(self.undo.is_empty() && self.waiting.is_empty());
    }

    /// The node that fixes every bit from `t` up to `known`'s. `next` is the first subset
    /// that was never a candidate; `waiting[from..]` holds the node above's leftovers.
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
        mut max: u32,
        out: &mut Out,
        stop: &AtomicBool,
    ) {
        out.nodes(1, stop);
        let mark = self.undo.len();
        let to = self.waiting.len();
        let span = (1u64 << t) - 1;
        let nx = self.candidates[t as usize] as usize;
        let mut alive = true;
        for k in from..to {
            let i = usize::from(self.waiting[k]);
            if !self.try_place(i, known, span, &mut max) {
                alive = false;
                break;
            }
        }
        if alive {
            for i in next..nx {
                if !self.try_place(i, known, span, &mut max) {
                    alive = false;
                    break;
                }
            }
        }
        if alive {
            if t == 0 {
                debug_assert!(self.waiting.len() == to && nx == self.occ.len());
                out.tally.magics += 1;
                if out.could_improve(max) {
                    out.offer(max, known);
                }
                if let Some(c) = out.collect.as_mut() {
                    c.push(known);
                }
            } else {
                for v in 0..2u64 {
                    if out.stopped {
                        break;
                    }
                    self.node(known | v << (t - 1), t - 1, nx, to, max, out, stop);
                }
            }
        }
        self.waiting.truncate(to);
        for &i in &self.undo[mark..] {
            self.slots[i as usize] = 0;
        }
        self.undo.truncate(mark);
    }

    /// Places subset `i` if its index is exact under `known` with a window of `span + 1`
    /// values, or puts it on the current waiting list if not; false when it collides.
    #[inline]
    fn try_place(&mut self, i: usize, known: u64, span: u64, max: &mut u32) -> bool {
        let whole = 1u64 << self.shift;
        let x = self.occ[i];
        let p = x.wrapping_mul(known);
        if x * span >= whole - (p & (whole - 1)) {
            self.waiting
                .push(u16::try_from(i).expect("at most 4096 subsets"));
            return true;
        }
        let idx = (p >> self.shift) as u32;
        let att = self.att[i];
        let slot = &mut self.slots[idx as usize];
        if *slot == 0 {
            *slot = att;
            self.undo.push(idx);
            *max = (*max).max(idx);
            true
        } else {
            *slot == att
        }
    }
}
