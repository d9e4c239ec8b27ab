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
//! came close but were not (they wait in `waiting`, one list per depth).

use std::sync::atomic::AtomicBool;

use super::{Out, Plan};

/// The top-down engine: a slot array with an undo list, and the waiting lists.
#[derive(Clone, Debug)]
pub(crate) struct TopDown {
    /// Every subset (the empty one included), by value: (occupancy, attack id).
    subsets: Vec<(u64, u16)>,
    /// `64 - bits`: the index is the product's bits from here up.
    shift: u32,
    /// Bits of the period below the task bits: a task's window at its root.
    width: u32,
    /// Attack id per slot, 0 when empty.
    slots: Vec<u16>,
    /// Slots written, to take back.
    undo: Vec<u32>,
    /// Per depth: the subsets that were candidates but not exact at the node above.
    waiting: Vec<Vec<u16>>,
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
        let width = plan.period_bits - plan.task_bits;
        TopDown {
            subsets,
            shift: 64 - plan.bits,
            width,
            slots: vec![0; 1 << plan.bits],
            undo: Vec::new(),
            waiting: vec![Vec::new(); width as usize + 2],
        }
    }

    /// Searches the magics whose bits above the window equal `task`.
    pub(crate) fn run(&mut self, task: u64, out: &mut Out, stop: &AtomicBool) {
        let known = task << self.width;
        self.waiting[0].clear();
        self.node(known, self.width, 0, 0, 0, out, stop);
        debug_assert!(self.undo.is_empty());
    }

    /// The node that fixes every bit from `t` up to `known`'s. `next` is the first subset
    /// that was never a candidate; `waiting[depth]` holds the node above's leftovers.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        known: u64,
        t: u32,
        next: usize,
        depth: usize,
        mut max: u32,
        out: &mut Out,
        stop: &AtomicBool,
    ) {
        out.nodes(1, stop);
        let mark = self.undo.len();
        let whole: u128 = 1 << self.shift;
        let span: u128 = (1u128 << t) - 1;
        let mut left = std::mem::take(&mut self.waiting[depth + 1]);
        left.clear();
        let mut alive = true;
        let mut nx = next;
        {
            let inherited = std::mem::take(&mut self.waiting[depth]);
            let fresh = self.subsets[next..]
                .iter()
                .take_while(|s| u128::from(s.0) * span < whole)
                .count();
            nx += fresh;
            let candidates = inherited.iter().map(|&i| usize::from(i)).chain(next..nx);
            for i in candidates {
                let (x, att) = self.subsets[i];
                let p = x.wrapping_mul(known);
                let rem = u128::from(p) & (whole - 1);
                if u128::from(x) * span >= whole - rem {
                    left.push(u16::try_from(i).expect("at most 4096 subsets"));
                    continue;
                }
                let idx = (p >> self.shift) as u32;
                let slot = &mut self.slots[idx as usize];
                if *slot == 0 {
                    *slot = att;
                    self.undo.push(idx);
                    max = max.max(idx);
                } else if *slot != att {
                    alive = false;
                    break;
                }
            }
            self.waiting[depth] = inherited;
        }
        if alive {
            if t == 0 {
                debug_assert!(left.is_empty() && nx == self.subsets.len());
                out.tally.magics += 1;
                if out.could_improve(max) {
                    out.offer(max, known);
                }
                if let Some(c) = out.collect.as_mut() {
                    c.push(known);
                }
            } else {
                self.waiting[depth + 1] = left;
                for v in 0..2u64 {
                    if out.stopped {
                        break;
                    }
                    self.node(known | v << (t - 1), t - 1, nx, depth + 1, max, out, stop);
                }
                left = std::mem::take(&mut self.waiting[depth + 1]);
            }
        }
        self.waiting[depth + 1] = left;
        for &i in &self.undo[mark..] {
            self.slots[i as usize] = 0;
        }
        self.undo.truncate(mark);
    }
}
