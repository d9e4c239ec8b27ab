//! Candidate families: named, switchable ways to draw magics.
//!
//! Every family draws for a *period*: all magics of a square are equivalent modulo
//! `2^(64 - lowest mask square)` (every subset is a multiple of `2^lowest`), so the search
//! draws within `period` low bits and never spends randomness on bits that cannot matter.
//! [`Family::draw_in`] draws for any period; a period of 64 is the whole word.

use std::fmt;
use std::str::FromStr;

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::attacks::relevant_mask;
use crate::error::ParseError;
use crate::piece::Target;

/// A way of drawing candidate magics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// AND of three uniform draws: about 8 of 64 bits set. The classic choice for
    /// popcount-bit targets.
    Sparse,
    /// Ten bit positions, each uniform over 0..63 (six bits of one draw apiece), those
    /// inside the period set: at most ten bits. About 25 % fewer tries per popcount rook magic
    /// than [`Family::Sparse`], from one draw instead of three; second to [`Family::Gather`].
    Scatter,
    /// One uniform draw.
    Uniform,
    /// OR of two uniform draws: about 48 of 64 bits set. Reduced-bit magics are often dense.
    Dense,
    /// `m = -x` with `x` sparse in a random window: reduced modulo the period, every published
    /// rook rank 7/8 record has this shape (long runs of ones).
    NegSparse,
    /// `m = -x` with `x` made of two clusters of bits whose top bits are 16 apart, the top
    /// cluster 10 to 20 bits below the period: the tighter template of the rook rank 7/8
    /// records.
    TwoCluster,
    /// `2^a + (L << 16) - s`: one bit `a` 5 to 8 below the period, a uniform block `L` from
    /// bit 16 up to 18 below the period (inclusive), minus a small `s` (0 to 63, so the low 16 bits are
    /// mostly ones). Every published reduced rook magic of ranks 1 and 2 (the 2026 records
    /// d1, g1 at 10 bits, c2, d2, e2 at 9) has this shape, and only the lowest bit of its top
    /// cluster matters.
    Block,
    /// Uniform bits on one side of a random split point (16 to 48), sparse (AND of three) on
    /// the other: the published one-bit-short bishop magics of ranks 3 and 6 look like this.
    Split,
    /// One multiplier bit per mask square, chosen so that the square lands at a random bit
    /// of the index window, and for a rook one more bit that moves its whole rank segment
    /// into the window at once (see [`Landing`]). A sketch of the ideal popcount magic, which
    /// sends every mask square to its own index bit: about ten times fewer tries than
    /// [`Family::Scatter`] on the popcount rooks, three times fewer on the bishops.
    Gather(Landing),
    /// Three to eight signed powers of two, `±2^a ± 2^b ± ...`, anywhere in the period: sparse
    /// in signed digits, as the few-slot fixed-shift records are (rook d6's
    /// `0x001ffff01fc03000` is `2^53 - 2^36 + 2^29 - 2^22 + 2^14 - 2^12`), though most of their
    /// bits are set. The starting points of the pools' descents.
    Signed,
    /// Magics of nearby squares (already shifted onto this square, see
    /// [`neighbour_bases`](super::neighbour_bases)) with one to four bits flipped.
    Mutate {
        /// The starting points; an empty list draws uniformly.
        bases: Vec<u64>,
    },
}

impl Family {
    /// Every family that needs no data, in a fixed order (what [`FromStr`] accepts).
    pub const ALL: [Family; 9] = [
        Family::Sparse,
        Family::Scatter,
        Family::Uniform,
        Family::Dense,
        Family::NegSparse,
        Family::TwoCluster,
        Family::Block,
        Family::Split,
        Family::Signed,
    ];

    /// The family's name as written in stores and on the command line.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Family::Sparse => "sparse",
            Family::Scatter => "scatter",
            Family::Uniform => "uniform",
            Family::Dense => "dense",
            Family::NegSparse => "negsparse",
            Family::TwoCluster => "twocluster",
            Family::Block => "block",
            Family::Split => "split",
            Family::Signed => "signed",
            Family::Gather(_) => "gather",
            Family::Mutate { .. } => "mutate",
        }
    }

    /// Draws one candidate whose bits at and above `period` (1 to 64) are zero.
    #[inline]
    pub fn draw_in(&self, rng: &mut Xoshiro256PlusPlus, period: u32) -> u64 {
        /// Draws once with whatever drawer it is given.
        struct Once<'a>(&'a mut Xoshiro256PlusPlus);
        impl UseDraw for Once<'_> {
            type Out = u64;
            fn with<F: FnMut(&mut Xoshiro256PlusPlus) -> u64>(self, mut draw: F) -> u64 {
                draw(self.0)
            }
        }
        self.with_draw(period, Once(rng))
    }

    /// The one dispatch from family to drawing code: hands `user` a drawer, monomorphised per
    /// family, whose candidates have no bits at or above `period` (1 to 64). The trial loop
    /// and [`Family::draw_in`] both draw through here, so the tests of one test the other.
    #[inline(always)]
    pub(crate) fn with_draw<U: UseDraw>(&self, period: u32, user: U) -> U::Out {
        let keep = u64::MAX >> (64 - period.clamp(1, 64));
        match self {
            Family::Sparse => user.with(move |r| sparse(r) & keep),
            Family::Scatter => user.with(move |r| scatter(r) & keep),
            Family::Uniform => user.with(move |r| r.next_u64() & keep),
            Family::Dense => user.with(move |r| dense(r) & keep),
            Family::NegSparse => user.with(move |r| neg_sparse(r, period) & keep),
            Family::TwoCluster => user.with(move |r| two_cluster(r, period) & keep),
            Family::Block => user.with(move |r| block(r, period) & keep),
            Family::Split => user.with(move |r| split(r) & keep),
            Family::Signed => user.with(move |r| signed(r, period) & keep),
            Family::Gather(landing) => user.with(move |r| gather(r, landing) & keep),
            Family::Mutate { bases } => user.with(move |r| mutate(r, bases, period) & keep),
        }
    }
}

/// Something that runs with a drawer of candidates: see [`Family::with_draw`].
pub(crate) trait UseDraw {
    /// What it returns.
    type Out;
    /// Runs with `draw`.
    fn with<F: FnMut(&mut Xoshiro256PlusPlus) -> u64>(self, draw: F) -> Self::Out;
}

/// AND of three draws.
#[inline(always)]
pub(crate) fn sparse(rng: &mut Xoshiro256PlusPlus) -> u64 {
    rng.next_u64() & rng.next_u64() & rng.next_u64()
}

/// Ten bits at positions taken six bits at a time from one draw (repeats merge).
#[inline(always)]
pub(crate) fn scatter(rng: &mut Xoshiro256PlusPlus) -> u64 {
    let x = rng.next_u64();
    (0..10).fold(0, |m, k| m | 1 << (x >> (6 * k) & 63))
}

/// OR of two draws.
#[inline(always)]
pub(crate) fn dense(rng: &mut Xoshiro256PlusPlus) -> u64 {
    rng.next_u64() | rng.next_u64()
}

/// A number below `n` from 16 random bits.
#[inline(always)]
fn below(r16: u64, n: u64) -> u64 {
    ((r16 & 0xffff) * n) >> 16
}

/// `-x`, `x` about half dense in a window 16 to 40 bits wide whose top lies in the upper
/// part of the period (so roughly 8 to 20 bits set).
#[inline(always)]
pub(crate) fn neg_sparse(rng: &mut Xoshiro256PlusPlus, period: u32) -> u64 {
    let r = rng.next_u64();
    let bits = rng.next_u64();
    let p = u64::from(period.clamp(17, 64));
    let width = 16 + below(r, 25);
    let top = p - 1 - below(r >> 16, 16.min(p - 16));
    let lo = top.saturating_sub(width - 1);
    let window = (u64::MAX >> (63 - (top - lo))) << lo;
    let x = (bits & window) | 1 << top;
    x.wrapping_neg()
}

/// `-(c1 | c2)`: `c1` has its top bit 10 to 20 below the period and up to 8 random bits
/// under it, `c2` has its top bit 15 to 17 lower and 15 to 24 random bits under it, each about
/// half dense (bits that would fall below bit 0 are dropped). The rank 8 records need the
/// wider `c2` (it reaches bit 0 or 1) and the gaps of 15 and 17.
#[inline(always)]
pub(crate) fn two_cluster(rng: &mut Xoshiro256PlusPlus, period: u32) -> u64 {
    let r = rng.next_u64();
    let bits = rng.next_u64();
    let p = u64::from(period.clamp(40, 64));
    let t1 = p - 10 - below(r, 11);
    let t2 = t1 - 15 - below(r >> 16, 3);
    let w2 = 15 + below(r >> 32, 10);
    let c1 = place((bits & 0xff) | 0x100, 8, t1);
    let c2 = place((bits >> 8 & ((1 << w2) - 1)) | 1 << w2, w2, t2);
    (c1 | c2).wrapping_neg()
}

/// `cluster` (top bit at `top_bit`) moved so that its top bit lands on bit `at`.
#[inline(always)]
fn place(cluster: u64, top_bit: u64, at: u64) -> u64 {
    if at >= top_bit {
        cluster << (at - top_bit)
    } else {
        cluster >> (top_bit - at)
    }
}

/// `2^a + (L << 16) - s` from one draw: `a` is 5 to 8 below the period, `L` fills bits 16 up
/// to 18 below the period (inclusive), `s` is below 64.
#[inline(always)]
pub(crate) fn block(rng: &mut Xoshiro256PlusPlus, period: u32) -> u64 {
    let r = rng.next_u64();
    let p = u64::from(period.clamp(40, 64));
    let a = p - 5 - (r & 3);
    // Small offsets are likelier (d1 and e2 need 1): half the draws take `s` below 8.
    let s = r >> 2 & if r >> 63 == 1 { 7 } else { 63 };
    let l = (r >> 8) & ((1 << (p - 33)) - 1);
    (1u64 << a).wrapping_add(l << 16).wrapping_sub(s)
}

/// Uniform below or above a random split, sparse on the other side.
#[inline(always)]
pub(crate) fn split(rng: &mut Xoshiro256PlusPlus) -> u64 {
    let r = rng.next_u64();
    let at = 16 + below(r, 33);
    let low = (1u64 << at) - 1;
    let side = if r >> 20 & 1 == 0 { low } else { !low };
    let u = rng.next_u64();
    (u & side) | (sparse(rng) & !side)
}

/// Three to eight terms `±2^k`, `k` uniform below `period`.
#[inline(always)]
pub(crate) fn signed(rng: &mut Xoshiro256PlusPlus, period: u32) -> u64 {
    let r = rng.next_u64();
    let p = u64::from(period.clamp(1, 64));
    let terms = 3 + below(r, 6);
    let mut pos = rng.next_u64();
    let mut m = 0u64;
    for t in 0..terms {
        if t == 4 {
            pos = rng.next_u64();
        }
        let k = below(pos, p);
        pos >>= 16;
        m = if r >> (32 + t) & 1 == 0 {
            m.wrapping_add(1 << k)
        } else {
            m.wrapping_sub(1 << k)
        };
    }
    m
}

/// Where [`Family::Gather`] sends a target's mask squares, for one number of index bits.
///
/// The index is the top `bits` bits of `occ * magic`: a multiplier bit `p` moves mask square
/// `q` to product bit `p + q`. The landers are the mask squares off the target's rank (the
/// file of a rook, every square of a bishop); each gets its own bit. The mask squares on the
/// target's rank are consecutive bits, so one anchor bit moves all of them into the window
/// together, in order. Rook d1 at 11 bits (window = product bits 53 to 63):
///
/// ```text
///   mask of rook d1     where one draw sends each square (multiplier bit in brackets)
///   . . . . . . . .
///   . . . 1 . . . .     d7 -> 63 (12)
///   . . . 1 . . . .     d6 -> 62 (19)
///   . . . 1 . . . .     d5 -> 59 (24)
///   . . . 1 . . . .     d4 -> 60 (33)
///   . . . 1 . . . .     d3 -> 55 (36)
///   . . . 1 . . . .     d2 -> 61 (50)
///   . 1 1 . 1 1 1 .     b1 c1 e1 f1 g1 -> 53 54 56 57 58 (anchor 52)
/// ```
///
/// Lander positions are drawn independently, so two may share a bit, and the other products
/// (`p + q` for every other pair) fall where they fall: the draw is a sketch that the subset
/// check accepts or rejects like any other candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Landing {
    /// Index bits.
    bits: u8,
    /// Lowest anchor bit that keeps the rank segment in the window, and how many there are
    /// (0: no segment).
    anchor: (u8, u8),
    /// The landers' squares; only the first `count` are used.
    squares: [u8; 12],
    /// How many landers.
    count: u8,
}

impl Landing {
    /// The landing plan of `target`'s relevant mask at `bits` index bits (1 to 64).
    #[must_use]
    pub fn new(target: Target, bits: u32) -> Landing {
        let mask = relevant_mask(target.piece, target.square).0;
        let bits = bits.clamp(1, 64);
        let window = 64 - bits;
        let segment = mask & 0xff << (8 * target.square.rank());
        let anchor = if segment == 0 {
            (0, 0)
        } else {
            let (low, high) = (segment.trailing_zeros(), 63 - segment.leading_zeros());
            let first = window.saturating_sub(low);
            let last = (63 - high).max(first);
            (first as u8, (last - first + 1) as u8)
        };
        let mut squares = [0u8; 12];
        let mut count = 0;
        for q in (0..64u8)
            .filter(|&q| (mask & !segment) >> q & 1 == 1)
            .take(12)
        {
            squares[count] = q;
            count += 1;
        }
        Landing {
            bits: bits as u8,
            anchor,
            squares,
            count: count as u8,
        }
    }
}

/// A draw of [`Family::Gather`]: the anchor bit, and for every lander a bit sending it to a
/// uniform position of the index window (dropped when that would need a negative bit).
#[inline(always)]
pub(crate) fn gather(rng: &mut Xoshiro256PlusPlus, landing: &Landing) -> u64 {
    let r = rng.next_u64();
    let (first, span) = landing.anchor;
    let mut m = if span == 0 {
        0
    } else {
        1u64 << (u64::from(first) + below(r, u64::from(span)))
    };
    let bits = u64::from(landing.bits);
    let window = 64 - bits;
    let mut y = rng.next_u64();
    for &q in &landing.squares[..usize::from(landing.count)] {
        let at = window + (((y & 127) * bits) >> 7);
        if at >= u64::from(q) {
            m |= 1 << (at - u64::from(q));
        }
        y = y.rotate_right(7);
    }
    m
}

/// A base with one to four bits flipped below `period`.
#[inline(always)]
pub(crate) fn mutate(rng: &mut Xoshiro256PlusPlus, bases: &[u64], period: u32) -> u64 {
    let r = rng.next_u64();
    if bases.is_empty() {
        return r;
    }
    let p = u64::from(period.clamp(1, 64));
    let mut m = bases[below(r, bases.len() as u64) as usize];
    let flips = 1 + (r >> 16 & 3);
    let mut pos = r >> 18;
    for _ in 0..flips {
        m ^= 1 << below(pos, p);
        pos >>= 11;
    }
    m
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = ParseError;

    /// Parses a family name; `mutate` and `gather` carry data built for one target and are
    /// refused here (ask [`portfolio`](fn@super::portfolio) for them).
    fn from_str(s: &str) -> Result<Family, ParseError> {
        let want = s.trim().to_ascii_lowercase();
        if want == "mutate" || want == "gather" {
            return Err(ParseError::Other(format!(
                "family '{want}' is built for one target; it cannot be named alone"
            )));
        }
        Family::ALL
            .into_iter()
            .find(|f| f.name() == want)
            .ok_or_else(|| {
                let names: Vec<&str> = Family::ALL.iter().map(Family::name).collect();
                ParseError::Other(format!(
                    "invalid family '{s}' (expected one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// The random stream of one task: a function of (seed, target, bits, round) only, never of a
/// thread, so a seeded run is repeatable whatever the scheduling.
#[must_use]
pub fn task_rng(seed: u64, target: Target, bits: u32, round: u64) -> Xoshiro256PlusPlus {
    let key = (target.piece as u64) << 8 | target.square.index() as u64;
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for word in [key, u64::from(bits), round] {
        h = splitmix(h ^ word);
    }
    Xoshiro256PlusPlus::seed_from_u64(h)
}

/// SplitMix64 finaliser: a strong 64-bit mix.
#[must_use]
pub const fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
