//! The packer's view of a shared array: which slots are taken, as bits, and where a slot
//! pattern fits, 64 offsets at a time.
//!
//! A [`Shape`] is the indices a magic writes, moved so that the lowest is 0. To find the
//! lowest offset where a shape fits, [`Occupancy::first_fit`] takes 64 candidate offsets at
//! once: a word of candidates, ANDed with the complement of the 64 array bits under each slot
//! of the shape, dies after a few slots in a full region, and its lowest surviving bit is the
//! answer. On the published tables this is about a hundred times faster than trying offsets
//! one by one.
//!
//! The packer treats every written slot as taken: two squares with the same attack set could
//! share a slot, but among the 128 squares' patterns that happens for at most a couple of
//! attack sets (rook and bishop attack sets of different squares differ in the neighbours of
//! the square), so the packer gives it up for speed. The table it makes is checked exactly,
//! slot by slot against the reference, by [`fill`](super::fill).

use super::anneal::{Array, Item};
use super::Pattern;

/// The slots of a magic, from its lowest (0), with a check order that fails fast.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The indices written, lowest first, the lowest 0.
    slots: Vec<u32>,
    /// The same indices in the order [`Occupancy`] checks them: spread over the span, so
    /// that two checks in a row rarely fall into the same run of taken slots.
    probe: Vec<u32>,
    /// Highest index plus one.
    span: u32,
    /// The indices as bits, 64 to a word: placing writes a word at a time.
    bits: Vec<u64>,
}

impl Shape {
    /// The shape of a pattern.
    ///
    /// # Panics
    /// If the pattern writes no slot (every pattern writes at least one).
    #[must_use]
    pub fn of(pattern: &Pattern) -> Shape {
        Shape::from_indices(pattern.shape().collect())
    }

    /// The shape of sorted indices whose lowest is 0.
    ///
    /// # Panics
    /// If `slots` is empty, unsorted, or does not start at 0.
    #[must_use]
    pub fn from_indices(slots: Vec<u32>) -> Shape {
        assert!(slots.first() == Some(&0), "a shape starts at index 0");
        assert!(slots.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        let n = slots.len();
        // A stride near the golden ratio of the count, coprime with it, visits every index
        // once, far from the one before.
        let step = spread(n);
        let probe = (0..n).map(|k| slots[(k * step) % n]).collect();
        let span = slots[n - 1] + 1;
        let mut bits = vec![0u64; (span as usize).div_ceil(64)];
        for &i in &slots {
            bits[i as usize / 64] |= 1 << (i % 64);
        }
        Shape {
            slots,
            probe,
            span,
            bits,
        }
    }

    /// Highest index plus one.
    #[must_use]
    pub fn span(&self) -> u32 {
        self.span
    }

    /// Slots written.
    #[must_use]
    pub fn used(&self) -> u32 {
        self.slots.len() as u32
    }
}

/// Taken slots of a shared array, as bits; grows as shapes are placed.
#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    words: Vec<u64>,
    /// Highest taken slot plus one.
    end: u32,
    /// No slot below this one is free.
    free: u32,
    used: u64,
}

impl Occupancy {
    /// An empty array.
    #[must_use]
    pub fn new() -> Occupancy {
        Occupancy::default()
    }

    /// Empties the array, keeping its memory.
    pub fn clear(&mut self) {
        let n = (self.end as usize).div_ceil(64).min(self.words.len());
        self.words[..n].iter_mut().for_each(|w| *w = 0);
        self.end = 0;
        self.free = 0;
        self.used = 0;
    }

    /// Entries the array needs: its highest taken slot plus one.
    #[must_use]
    pub fn end(&self) -> u32 {
        self.end
    }

    /// Slots taken.
    #[must_use]
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Whether slot `s` is taken.
    #[inline]
    #[must_use]
    pub fn taken(&self, s: u32) -> bool {
        self.words
            .get(s as usize / 64)
            .is_some_and(|w| w >> (s % 64) & 1 == 1)
    }

    /// The 64 bits from slot `p` up (bits past the array are free).
    #[inline]
    fn window(&self, p: usize) -> u64 {
        window(&self.words, p)
    }

    /// Whether `shape` placed with its index 0 at slot `base` meets only free slots.
    #[must_use]
    pub fn fits(&self, shape: &Shape, base: u32) -> bool {
        shape.probe.iter().all(|&i| !self.taken(base + i))
    }

    /// Places `shape` with its index 0 at slot `base`.
    ///
    /// # Panics
    /// If a slot it writes is taken.
    pub fn place(&mut self, shape: &Shape, base: u32) {
        let need = (base + shape.span) as usize / 64 + 1;
        if self.words.len() < need {
            self.words.resize(need, 0);
        }
        // A word of the shape at a time, shifted to the base; one test for the whole shape
        // after the writes: a slot taken before is one whose bit was already set.
        let (w0, s) = (base as usize / 64, base % 64);
        let mut clash = 0u64;
        for (j, &b) in shape.bits.iter().enumerate() {
            let lo = b << s;
            clash |= self.words[w0 + j] & lo;
            self.words[w0 + j] |= lo;
            let hi = if s == 0 { 0 } else { b >> (64 - s) };
            if hi != 0 {
                clash |= self.words[w0 + j + 1] & hi;
                self.words[w0 + j + 1] |= hi;
            }
        }
        assert!(clash == 0, "a slot of the shape placed at {base} is taken");
        self.used += u64::from(shape.used());
        self.end = self.end.max(base + shape.span);
        self.advance_free();
    }

    /// Moves `free` to the lowest free slot at or above it, a word at a time.
    fn advance_free(&mut self) {
        let mut w = self.free as usize / 64;
        let below = (1u64 << (self.free % 64)) - 1;
        let mut bits = self.words.get(w).copied().unwrap_or(0) | below;
        while bits == !0 {
            w += 1;
            bits = self.words.get(w).copied().unwrap_or(0);
        }
        self.free = (w * 64) as u32 + bits.trailing_ones();
    }

    /// Takes out `shape`, placed earlier with its index 0 at `base`.
    ///
    /// # Panics
    /// If a slot it writes is free.
    pub fn remove(&mut self, shape: &Shape, base: u32) {
        for &i in &shape.slots {
            let s = (base + i) as usize;
            let bit = 1u64 << (s % 64);
            assert!(self.words[s / 64] & bit != 0, "slot {s} is free");
            self.words[s / 64] &= !bit;
        }
        self.used -= u64::from(shape.used());
        self.free = self.free.min(base);
        if base + shape.span == self.end {
            while self.end > 0 && !self.taken(self.end - 1) {
                self.end -= 1;
            }
        }
    }

    /// The lowest slot `base >= from` where `shape` fits with `base + span <= limit`.
    #[must_use]
    pub fn first_fit(&self, shape: &Shape, from: u32, limit: u64) -> Option<u32> {
        // Index 0 of the shape must land on a free slot: start at the first one.
        let mut c = from.max(self.free) as usize;
        let span = shape.span as usize;
        while (c + span) as u64 <= limit {
            let mut alive = !0u64;
            for &i in &shape.probe {
                alive &= !self.window(c + i as usize);
                if alive == 0 {
                    break;
                }
            }
            if alive != 0 {
                let base = c + alive.trailing_zeros() as usize;
                return ((base + span) as u64 <= limit).then_some(base as u32);
            }
            c += 64;
        }
        None
    }
}

impl Item for Shape {
    type Array = Occupancy;

    fn span(&self) -> u32 {
        self.span
    }

    fn used(&self) -> u32 {
        self.slots.len() as u32
    }
}

impl Array for Occupancy {
    type Item = Shape;
    type Label = ();

    fn clear(&mut self) {
        Occupancy::clear(self);
    }

    fn end(&self) -> u32 {
        self.end
    }

    fn used(&self) -> u64 {
        self.used
    }

    fn first_fit(&self, item: &Shape, from: u32, limit: u64) -> Option<u32> {
        Occupancy::first_fit(self, item, from, limit)
    }

    fn place(&mut self, item: &Shape, base: u32) {
        Occupancy::place(self, item, base);
    }

    fn place_as(&mut self, item: &Shape, base: u32, (): &()) {
        Occupancy::place(self, item, base);
    }
}

/// The coprime stride near the golden ratio of `n` that spreads `n` probes over a span.
pub(super) fn spread(n: usize) -> usize {
    let mut step = ((n as f64 * 0.618) as usize).max(1);
    while gcd(step, n) != 1 {
        step += 1;
    }
    step
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The 64 bits of the bit array `words` from bit `p` up (bits past its end read 0).
#[inline]
pub(super) fn window(words: &[u64], p: usize) -> u64 {
    let (w, s) = (p / 64, p % 64);
    let lo = words.get(w).copied().unwrap_or(0);
    if s == 0 {
        lo
    } else {
        let hi = words.get(w + 1).copied().unwrap_or(0);
        lo >> s | hi << (64 - s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::rand_core::{RngCore, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The lowest offset found one by one, the reference `first_fit` must agree with.
    fn brute(occ: &Occupancy, shape: &Shape, from: u32, limit: u64) -> Option<u32> {
        (from..)
            .take_while(|&b| u64::from(b + shape.span()) <= limit)
            .find(|&b| occ.fits(shape, b))
    }

    fn random_shape(rng: &mut Xoshiro256PlusPlus, span: u32) -> Shape {
        let mut slots: Vec<u32> = (1..span)
            .filter(|_| rng.next_u32().is_multiple_of(3))
            .collect();
        slots.insert(0, 0);
        slots.push(span - 1);
        slots.dedup();
        Shape::from_indices(slots)
    }

    #[test]
    fn first_fit_finds_the_lowest_offset_a_slot_by_slot_search_finds() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for round in 0..200 {
            let mut occ = Occupancy::new();
            let mut placed = Vec::new();
            for _ in 0..(round % 12) {
                let span = 1 + rng.next_u32() % 150;
                let s = random_shape(&mut rng, span);
                let b = occ.first_fit(&s, rng.next_u32() % 300, u64::MAX).unwrap();
                assert!(occ.fits(&s, b));
                occ.place(&s, b);
                placed.push((s, b));
            }
            if round % 5 == 0 && !placed.is_empty() {
                let (s, b) = placed.swap_remove(rng.next_u32() as usize % placed.len());
                occ.remove(&s, b);
            }
            for _ in 0..20 {
                let span = 1 + rng.next_u32() % 200;
                let s = random_shape(&mut rng, span);
                let from = rng.next_u32() % 400;
                let limit = u64::from(rng.next_u32() % 1200);
                assert_eq!(
                    occ.first_fit(&s, from, limit),
                    brute(&occ, &s, from, limit),
                    "round {round}, from {from}, limit {limit}"
                );
            }
            let used: u64 = placed.iter().map(|(s, _)| u64::from(s.used())).sum();
            assert_eq!(occ.used(), used);
        }
    }

    /// Placing a word at a time takes exactly the shape's slots at its base: every slot of
    /// the array, taken or free, against the slots listed one by one.
    #[test]
    fn place_takes_exactly_the_shapes_slots() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        for round in 0..300 {
            let mut occ = Occupancy::new();
            let mut want = std::collections::BTreeSet::new();
            for _ in 0..(1 + round % 9) {
                let span = 1 + rng.next_u32() % 300;
                let s = random_shape(&mut rng, span);
                let b = occ.first_fit(&s, rng.next_u32() % 500, u64::MAX).unwrap();
                occ.place(&s, b);
                want.extend(s.slots.iter().map(|&i| b + i));
            }
            let end = want.last().map_or(0, |&e| e + 1);
            assert_eq!(occ.end(), end, "round {round}");
            for slot in 0..end + 130 {
                assert_eq!(
                    occ.taken(slot),
                    want.contains(&slot),
                    "round {round}, slot {slot}"
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "is taken")]
    fn placing_over_a_taken_slot_panics() {
        let mut occ = Occupancy::new();
        let s = Shape::from_indices(vec![0, 3, 70]);
        occ.place(&s, 5);
        occ.place(&Shape::from_indices(vec![0]), 75);
    }
}
