//! The join test of the trimmed walk ([`super::trim`]): a family of subsets tested as a whole,
//! bit-parallel, where it joins: at a node's entry, before the walk takes the node to its
//! fixpoint, or inside the walk, when trims have narrowed the interval enough for it to join.
//!
//! Where a large family joins, nearly every node dies (on rook g1 at 9 bits, 99.8 % of the
//! nodes where the 256 subsets of g5's family join), and the walk pays for each death with a
//! few hundred checks and trims. The test reaches most of those deaths in a few word operations
//! a member, and it kills only nodes that the walk would kill: the nodes entered, and so every
//! residue and every proof, are the same with it and without it.
//!
//! **The rule.** Cut the node's interval into *cells*, runs of `2^cb` values of `m` over which
//! the family's square alone, `2^q`, moves exactly half a slot (`cb = shift - 1 - q`). A member
//! `X = 2^q + Y` moves less than a slot over a cell, so over cell `k` it takes the slots from
//! `s_k` (that of its product at the cell's first value, less one when folded) to `s_(k+1)`
//! (that of the next cell's first value). When every one of those slots holds another attack
//! set in the table the node entered with, no value of the cell survives the walk: the walk's
//! fixpoint keeps a value at its lower end only where that member's slot there, or folded its
//! other system's, is compatible with a table that holds at least the entry's. So a node where
//! every cell is excluded by some member dies in the walk, and the test kills it at once. The
//! same holds inside the walk, with the interval and the table the walk has reached: its
//! fixpoint lies within that interval, with at least that table.
//!
//! **Bit-parallel.** A cell is excluded when `C(s_k) | C(s_(k+1))` is false, `C` being the
//! member's compatible slots (empty, or holding its attack set). Split the cells by parity:
//! over two cells the member moves one slot and `dd2 = Y * 2^(cb+1)` more, so in each parity
//! class the slots run `b, b + 1, b + 2, ...` and skip one more at most once, where the drift
//! `dd2` carries (a member qualifies when the drift over the interval is at most a slot:
//! `128 * dd2 <= 2^shift`). Each parity's slots are then a window of `C` read from the table's
//! bit sets, blended at that carry, and the cells' flags are two `u128`s: one AND a member, and
//! the node dies when both are zero.
//!
//! **What it costs.** A test stops at the first pair of members after which no cell is live.
//! Members whose attack set no earlier family has are tested first at the start (only empty
//! slots suit them), and then in the order of how many live cells they excluded in every
//! eighth test. A family is tested while at least half of its recent tests kill, and at every
//! 64th join otherwise, so that a family that joins where most nodes live (g4's on rook g1, 2 %
//! of its tests kill) costs next to nothing. None of this changes a node: which nodes die is
//! the walk's, only how fast they do is the test's (`docs/speed.md`, "The join test").

use super::slots::Masks;

/// A family's join test: its cells and its members in the order they are tested.
#[derive(Clone, Debug)]
pub(super) struct JoinTest {
    /// `log2` of a cell's width in values of `m`.
    cb: u32,
    members: Vec<Member>,
    /// Joins seen, for the sampling of scores and probes.
    runs: u64,
    /// Tests run and nodes killed, halved every [`WINDOW`] tests: the family is tested while
    /// at least half its tests kill, and probed at every [`PROBE`]th join otherwise.
    tests: u32,
    killed: u32,
}

/// A member of a tested family.
#[derive(Copy, Clone, Debug)]
struct Member {
    x: u64,
    a: u16,
    /// How much further than two slots the member's product moves over two cells.
    dd2: u64,
    /// `floor((2^64 - 1) / dd2)`, for [`carry`]'s division (0 when `dd2` is).
    inv: u64,
    /// Cells it excluded that were still live, in the sampled tests (decaying).
    score: u32,
}

impl JoinTest {
    /// The test of the family whose highest square is `q` (its square alone first among
    /// `members`, each an occupancy and attack id), for a table of `64 - shift` bits; `novel`
    /// says whether an attack id occurs in no earlier family. `None` when the family is too
    /// small to pay for a test, when its square moves more than half a slot a value, or when
    /// too few members qualify.
    pub(super) fn new(
        members: &[(u64, u16)],
        q: u32,
        shift: u32,
        novel: impl Fn(u16) -> bool,
    ) -> Option<JoinTest> {
        if members.len() < MIN_MEMBERS || q + 1 > shift {
            return None;
        }
        let cb = shift - 1 - q;
        let whole = 1u64 << shift;
        let mut tested: Vec<(bool, Member)> = members
            .iter()
            .filter_map(|&(x, a)| {
                // `x - 2^q < 2^q`, so the drift is below `2^shift`.
                let dd2 = (x - (1u64 << q)) << (cb + 1);
                let inv = u64::MAX.checked_div(dd2).unwrap_or(0);
                let m = Member {
                    x,
                    a,
                    dd2,
                    inv,
                    score: 0,
                };
                // At most a slot of drift (on tables of 6 bits or fewer `dd2` can reach 2^57).
                let qualifies = dd2.checked_mul(128).is_some_and(|d| d <= whole);
                qualifies.then_some((!novel(a), m))
            })
            .collect();
        if tested.len() < MIN_MEMBERS {
            return None;
        }
        tested.sort_by_key(|&(later, _)| later); // stable: the family's order within each
        Some(JoinTest {
            cb,
            members: tested.into_iter().map(|(_, m)| m).collect(),
            runs: 0,
            tests: 0,
            killed: 0,
        })
    }

    /// Whether the node of `w + 1` values from `base` dies where this family joins, judged
    /// against the table it enters with (`folded`: each value stands for itself and its
    /// negation, so a product's range starts one lower). The family must join at the node:
    /// its square moves fewer than 128 slots over it.
    ///
    /// The members are tested in the order of their scores: every `SAMPLE`th test counts the
    /// live cells each member excludes, and the order follows those counts.
    #[inline(never)]
    pub(super) fn kills(
        &mut self,
        masks: &Masks,
        base: u64,
        w: u64,
        folded: bool,
        shift: u32,
    ) -> bool {
        self.runs += 1;
        if 2 * self.killed < self.tests && !self.runs.is_multiple_of(PROBE) {
            return false;
        }
        let cells = (w >> self.cb) + 1;
        debug_assert!(cells <= 256, "{cells} cells");
        let even = cells.div_ceil(2); // cells 0, 2, 4, ...
        let at = Cells {
            base,
            even,
            folded,
            shift,
            cb: self.cb,
        };
        let live = (low_bits(even), low_bits(cells / 2));
        let kills = if self.runs.is_multiple_of(SAMPLE) {
            self.kills_scored(masks, at, live)
        } else {
            self.kills_plain(masks, at, live)
        };
        self.tests += 1;
        self.killed += u32::from(kills);
        if self.tests == WINDOW {
            self.tests /= 2;
            self.killed /= 2;
        }
        kills
    }

    /// [`JoinTest::kills`] itself: the members' allowed cells ANDed, two at a time.
    fn kills_plain(&self, masks: &Masks, at: Cells, live: (u128, u128)) -> bool {
        let (mut e, mut o) = live;
        for pair in self.members.chunks(2) {
            for m in pair {
                let (me, mo) = at.allowed(m, masks);
                e &= me;
                o &= mo;
            }
            if e | o == 0 {
                return true;
            }
        }
        false
    }

    /// [`JoinTest::kills`], counting the live cells each member excludes into its score;
    /// every `RESORT`th scored test sorts the members by their scores, halved then.
    #[cold]
    #[inline(never)]
    fn kills_scored(&mut self, masks: &Masks, at: Cells, live: (u128, u128)) -> bool {
        if self.runs.is_multiple_of(SAMPLE * RESORT) {
            self.members.sort_by_key(|m| std::cmp::Reverse(m.score));
            self.members.iter_mut().for_each(|m| m.score /= 2);
        }
        let (mut e, mut o) = live;
        for m in &mut self.members {
            let before = e.count_ones() + o.count_ones();
            let (me, mo) = at.allowed(m, masks);
            e &= me;
            o &= mo;
            m.score += before - e.count_ones() - o.count_ones();
            if e | o == 0 {
                return true;
            }
        }
        false
    }
}

/// A test's cells: from `base`, `2^cb` values each, `even` of them even.
#[derive(Copy, Clone, Debug)]
struct Cells {
    base: u64,
    even: u64,
    folded: bool,
    shift: u32,
    cb: u32,
}

impl Cells {
    /// The cells member `m` allows, even and odd: those where one of its slots is compatible.
    #[inline(always)]
    fn allowed(&self, m: &Member, masks: &Masks) -> (u128, u128) {
        let whole = 1u64 << self.shift;
        let low = whole - 1;
        // The member's product at the first value of cell 0 and of cell 1 (less one when
        // folded); cell `2i + j` starts at the one of cell `j` plus `i` slots and `i * dd2`.
        let p0 =
            m.x.wrapping_mul(self.base)
                .wrapping_sub(u64::from(self.folded));
        let p1 = p0.wrapping_add(m.x << self.cb);
        let b0 = (p0 >> self.shift) as usize;
        let step = ((p1 >> self.shift) as usize).wrapping_sub(b0) & masks.slot_mask; // 0 or 1
                                                                                     // Phase 0 is read one cell further: an odd cell ends where the next even begins.
        let c0 = carry(p0 & low, m, self.even + 1, whole);
        let c1 = carry(p1 & low, m, self.even, whole);
        let (v0, top) = masks.window(m.a, b0);
        // The window from one and two slots on.
        let v1 = (v0 >> 1) | u128::from(top) << 127;
        let v2 = (v0 >> 2) | u128::from(top) << 126;
        let (s0, s1) = if step == 0 { (v0, v1) } else { (v1, v2) };
        let (g0, g1) = if c0 >= 128 && c1 >= 128 {
            (v0, s0)
        } else {
            (blend(v0, v1, c0), blend(s0, s1, c1))
        };
        // Phase 0's slot 128, where the last odd cell of 256 ends.
        let g0_128 = u128::from(top >> u32::from(c0 <= 128) & 1);
        (g0 | g1, g1 | (g0 >> 1) | (g0_128 << 127))
    }
}

/// A family's counts of tests and kills are halved when its tests reach this many.
const WINDOW: u32 = 1024;

/// A family whose tests kill less than half the time is still tested at every `PROBE`th join,
/// so that its counts follow the search.
const PROBE: u64 = 64;

/// Every `SAMPLE`th test of a family scores its members.
const SAMPLE: u64 = 8;

/// Every `RESORT`th scored test of a family sorts its members by their scores.
const RESORT: u64 = 32;

/// Families smaller than this are not tested: their joins are few and cheap.
const MIN_MEMBERS: usize = 32;

/// The first `i` below `count` at which `frac + i * m.dd2` reaches `whole` (the one extra slot
/// of a parity class), or [`NO_CARRY`] when none does.
#[inline(always)]
fn carry(frac: u64, m: &Member, count: u64, whole: u64) -> u32 {
    let need = whole - frac;
    let dd2 = m.dd2;
    if (count - 1) * dd2 < need {
        return NO_CARRY;
    }
    // `ceil(need / dd2)`, below 129: the reciprocal's quotient is at most two below it
    // (`need < 2^63`).
    let mut i = ((u128::from(need) * u128::from(m.inv)) >> 64) as u64;
    i += u64::from(i * dd2 < need);
    i += u64::from(i * dd2 < need);
    debug_assert_eq!(i, need.div_ceil(dd2));
    i as u32
}

/// What [`carry`] gives when the drift does not carry: above every cell's index.
const NO_CARRY: u32 = 255;

/// Bits below `i` from `a`, the others from `b`.
#[inline(always)]
fn blend(a: u128, b: u128, i: u32) -> u128 {
    let m = low_bits(u64::from(i));
    (a & m) | (b & !m)
}

/// The low `n` bits set (all of them from 128 on).
#[inline(always)]
fn low_bits(n: u64) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}
