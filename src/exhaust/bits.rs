//! Sets of slots as fixed-width bit sets that rotate: the vocabulary of the search.
//!
//! A level whose free bits are at most the index bits moves the slots of all its subsets
//! together: adding 1 to the level's value adds `2^(bits - width)` to every index, modulo the
//! table. So a set of slots, rotated, gives at once the values of the level that keep a subset
//! clear of a collision ([`super::word`], [`super::ring`]). [`Set`] is that set: a machine
//! word when the table (or one residue class of it, a *ring*) has 8 to 64 slots, [`Tiny`] for
//! 1 to 4 slots, [`Wide`] for 128 or more.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// A set of `BITS` slots (a power of two) with rotations modulo `BITS`.
pub trait Set:
    Copy
    + Eq
    + Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
{
    /// The empty set.
    const EMPTY: Self;
    /// Number of slots.
    const BITS: u32;
    /// Slot `i` moves to `i - r` (modulo `BITS`).
    #[must_use]
    fn rotr(self, r: u32) -> Self;
    /// Slot `i` moves to `i + r` (modulo `BITS`).
    #[must_use]
    fn rotl(self, r: u32) -> Self;
    /// The set of slot `i` alone.
    #[must_use]
    fn bit(i: u32) -> Self;
    /// Number of slots in the set.
    fn count(self) -> u32;
    /// The lowest slot (`BITS` if empty).
    fn lowest(self) -> u32;
    /// The highest slot (0 if empty).
    fn highest(self) -> u32;
    /// The set without its lowest slot.
    #[must_use]
    fn without_lowest(self) -> Self;
    /// Whether the set is empty.
    fn is_empty(self) -> bool {
        self == Self::EMPTY
    }
    /// Ring `r` of a flat bit array where ring `r` holds bits `r BITS .. (r + 1) BITS`.
    fn load(words: &[u64], r: usize) -> Self;
}

macro_rules! native {
    ($t:ty) => {
        impl Set for $t {
            const EMPTY: Self = 0;
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn rotr(self, r: u32) -> Self {
                self.rotate_right(r)
            }
            #[inline(always)]
            fn rotl(self, r: u32) -> Self {
                self.rotate_left(r)
            }
            #[inline(always)]
            fn bit(i: u32) -> Self {
                1 << i
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline(always)]
            fn highest(self) -> u32 {
                (<$t>::BITS - 1).saturating_sub(self.leading_zeros())
            }
            #[inline(always)]
            fn without_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation)]
            fn load(words: &[u64], r: usize) -> Self {
                let p = r * <$t>::BITS as usize;
                (words[p >> 6] >> (p & 63)) as $t
            }
        }
    };
}
native!(u8);
native!(u16);
native!(u32);
native!(u64);

/// `2^B` slots (`B` = 0, 1 or 2) held in a `u8` as `8 / 2^B` equal copies, so that rotating
/// the byte rotates the set.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Tiny<const B: u32>(u8);

impl<const B: u32> Tiny<B> {
    const ONE_COPY: u8 = ((1u16 << (1 << B)) - 1) as u8;
    const REPEAT: u8 = [0xff, 0x55, 0x11][B as usize];
}

/// `64 N` slots in `N` words.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Wide<const N: usize>([u64; N]);

macro_rules! ops {
    ($name:ident, $($g:tt)*) => {
        impl<$($g)*> BitAnd for $name<X> {
            type Output = Self;
            #[inline(always)]
            fn bitand(mut self, o: Self) -> Self {
                self &= o;
                self
            }
        }
        impl<$($g)*> BitOr for $name<X> {
            type Output = Self;
            #[inline(always)]
            fn bitor(mut self, o: Self) -> Self {
                self |= o;
                self
            }
        }
    };
}
ops!(Tiny, const X: u32);
ops!(Wide, const X: usize);

impl<const B: u32> BitAndAssign for Tiny<B> {
    fn bitand_assign(&mut self, o: Self) {
        self.0 &= o.0;
    }
}
impl<const B: u32> BitOrAssign for Tiny<B> {
    fn bitor_assign(&mut self, o: Self) {
        self.0 |= o.0;
    }
}
impl<const B: u32> Not for Tiny<B> {
    type Output = Self;
    fn not(self) -> Self {
        Tiny(!self.0)
    }
}

impl<const B: u32> Set for Tiny<B> {
    const EMPTY: Self = Tiny(0);
    const BITS: u32 = 1 << B;
    fn rotr(self, r: u32) -> Self {
        Tiny(self.0.rotate_right(r % Self::BITS))
    }
    fn rotl(self, r: u32) -> Self {
        Tiny(self.0.rotate_left(r % Self::BITS))
    }
    fn bit(i: u32) -> Self {
        Tiny((1u8 << i) * Self::REPEAT)
    }
    fn count(self) -> u32 {
        (self.0 & Self::ONE_COPY).count_ones()
    }
    fn lowest(self) -> u32 {
        self.0.trailing_zeros().min(Self::BITS)
    }
    fn highest(self) -> u32 {
        7u32.saturating_sub((self.0 & Self::ONE_COPY).leading_zeros())
    }
    fn without_lowest(self) -> Self {
        if self.0 == 0 {
            self
        } else {
            Tiny(self.0 & !Self::bit(self.lowest()).0)
        }
    }
    #[allow(clippy::cast_possible_truncation)]
    fn load(words: &[u64], r: usize) -> Self {
        let p = r << B;
        let one = (words[p >> 6] >> (p & 63)) as u8 & Self::ONE_COPY;
        Tiny(one * Self::REPEAT)
    }
}

impl<const N: usize> BitAndAssign for Wide<N> {
    #[inline(always)]
    fn bitand_assign(&mut self, o: Self) {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a &= b;
        }
    }
}
impl<const N: usize> BitOrAssign for Wide<N> {
    #[inline(always)]
    fn bitor_assign(&mut self, o: Self) {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a |= b;
        }
    }
}
impl<const N: usize> Not for Wide<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Wide(self.0.map(|w| !w))
    }
}

impl<const N: usize> Set for Wide<N> {
    const EMPTY: Self = Wide([0; N]);
    #[allow(clippy::cast_possible_truncation)]
    const BITS: u32 = 64 * N as u32;
    #[inline(always)]
    fn rotr(self, r: u32) -> Self {
        let q = (r / 64) as usize;
        let s = r % 64;
        let w = &self.0;
        let mut out = [0; N];
        for (i, o) in out.iter_mut().enumerate() {
            let lo = w[(i + q) % N];
            *o = if s == 0 {
                lo
            } else {
                (lo >> s) | (w[(i + q + 1) % N] << (64 - s))
            };
        }
        Wide(out)
    }
    #[inline(always)]
    fn rotl(self, r: u32) -> Self {
        self.rotr((Self::BITS - r % Self::BITS) % Self::BITS)
    }
    #[inline(always)]
    fn bit(i: u32) -> Self {
        let mut out = [0; N];
        out[(i / 64) as usize] = 1 << (i % 64);
        Wide(out)
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn lowest(self) -> u32 {
        match self.0.iter().position(|&w| w != 0) {
            Some(i) => 64 * i as u32 + self.0[i].trailing_zeros(),
            None => Self::BITS,
        }
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)]
    fn highest(self) -> u32 {
        match self.0.iter().rposition(|&w| w != 0) {
            Some(i) => 64 * i as u32 + 63 - self.0[i].leading_zeros(),
            None => 0,
        }
    }
    #[inline(always)]
    fn without_lowest(mut self) -> Self {
        if let Some(w) = self.0.iter_mut().find(|w| **w != 0) {
            *w &= *w - 1;
        }
        self
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    #[inline(always)]
    fn load(words: &[u64], r: usize) -> Self {
        let mut out = [0; N];
        out.copy_from_slice(&words[r * N..(r + 1) * N]);
        Wide(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation against a `Vec<bool>` model, for each width.
    fn check<S: Set>() {
        let n = S::BITS;
        let model = |s: S| -> Vec<bool> {
            let mut v = vec![false; n as usize];
            let mut x = s;
            while !x.is_empty() {
                v[x.lowest() as usize] = true;
                x = x.without_lowest();
            }
            v
        };
        let mut s = S::EMPTY;
        for i in [0, 1, n / 2, n - 1] {
            s |= S::bit(i % n);
        }
        let m = model(s);
        assert_eq!(s.count() as usize, m.iter().filter(|&&b| b).count());
        assert_eq!(s.highest() as usize, m.iter().rposition(|&b| b).unwrap());
        for r in 0..n {
            let rr = model(s.rotr(r));
            let rl = model(s.rotl(r));
            for i in 0..n {
                assert_eq!(rr[i as usize], m[((i + r) % n) as usize], "rotr {r}");
                assert_eq!(rl[((i + r) % n) as usize], m[i as usize], "rotl {r}");
            }
        }
        assert!(model(!S::EMPTY).iter().all(|&b| b));
        assert_eq!((s & !s), S::EMPTY);
        let words: Vec<u64> = (0..16u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let ring = model(S::load(&words, 3));
        for (i, &b) in ring.iter().enumerate() {
            let p = 3 * n as usize + i;
            assert_eq!(b, words[p / 64] >> (p % 64) & 1 == 1);
        }
    }

    #[test]
    fn every_width_rotates_and_loads_like_a_list_of_slots() {
        check::<Tiny<0>>();
        check::<Tiny<1>>();
        check::<Tiny<2>>();
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
        check::<Wide<2>>();
        check::<Wide<4>>();
    }
}
