//! The one-byte packer's view of an id array: a taken slot holds an id (one byte), and a
//! square may be placed over taken slots when it can number its attack sets so that its id
//! there is the one already held.
//!
//! A square's slots carry a *class*: the position of the slot's attack set among the square's
//! distinct attack sets, the most frequent in the pattern first ([`Ids::of`]). Where the
//! square is placed, its classes get ids ([`Numbering`]): a class whose slots meet taken
//! slots takes the id they hold (all of them must hold the same one, below the square's
//! count of attack sets, and no two classes may take one id); the other classes take the
//! lowest ids left, in class order, so that frequent attack sets get small ids everywhere.
//!
//! [`IdArray::first_fit`] finds the lowest such place. It takes 64 candidate places at once,
//! as [`Occupancy`](super::occupancy::Occupancy) does, but lets each meet up to
//! [`Ids::hits`] taken slots (counted per candidate in unary bit planes); the candidates
//! left are then checked one by one, lowest first. So two squares share a slot only where
//! a place meets few taken slots: most placements meet none.

use super::anneal::{Array, Item};
use super::occupancy::{spread, window};
use super::Pattern;

/// Most ids a square can have: the ids are bytes.
pub const MAX_CLASSES: usize = 256;

/// Taken slots a placement may meet at most when nothing else is said.
pub const DEFAULT_HITS: u32 = 7;

/// The ids of a square's attack sets: `numbering[class]` is the id of that class.
pub type Numbering = Vec<u8>;

/// The slots of one magic with the class of each, from its lowest slot (0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ids {
    /// The indices written, lowest first, the lowest 0.
    slots: Vec<u32>,
    /// The class of each slot.
    class: Vec<u8>,
    /// `(index, class)` in the order the array checks them: spread over the span.
    probe: Vec<(u32, u8)>,
    /// Classes (distinct attack sets of the square).
    classes: u16,
    /// Highest index plus one.
    span: u32,
    /// Taken slots a placement may meet at most.
    hits: u32,
    /// The ids when the numbering is not the array's to choose (`fixed[class]`).
    fixed: Option<Numbering>,
}

impl Ids {
    /// The classes of a pattern: its slots from the lowest, each with the position of its
    /// attack set among the pattern's attack sets ordered by how many slots hold it (most
    /// first, ties by the smaller bitboard). Returns them with the attack sets in class order.
    ///
    /// # Panics
    /// If the pattern writes no slot or more than [`MAX_CLASSES`] attack sets (a rook has at
    /// most 144).
    #[must_use]
    pub fn of(pattern: &Pattern, hits: u32) -> (Ids, Vec<u64>) {
        let mut sets: Vec<(u64, u32)> = Vec::new();
        let mut sorted: Vec<u64> = pattern.slots.iter().map(|s| s.1).collect();
        sorted.sort_unstable();
        for a in sorted {
            match sets.last_mut() {
                Some((b, n)) if *b == a => *n += 1,
                _ => sets.push((a, 1)),
            }
        }
        sets.sort_by_key(|&(a, n)| (std::cmp::Reverse(n), a));
        assert!(sets.len() <= MAX_CLASSES, "at most 256 attack sets");
        let attacks: Vec<u64> = sets.iter().map(|s| s.0).collect();
        let class_of = |a: u64| {
            attacks
                .iter()
                .position(|&b| b == a)
                .expect("every slot's attack set is listed") as u8
        };
        let lo = pattern.min();
        let slots: Vec<u32> = pattern.slots.iter().map(|s| s.0 - lo).collect();
        let class: Vec<u8> = pattern.slots.iter().map(|s| class_of(s.1)).collect();
        (Ids::new(slots, class, attacks.len(), hits), attacks)
    }

    /// Ids of sorted `slots` (the lowest 0) with their classes, of `classes` classes in all.
    ///
    /// # Panics
    /// If `slots` is empty, unsorted or does not start at 0, or a class is out of range.
    #[must_use]
    pub fn new(slots: Vec<u32>, class: Vec<u8>, classes: usize, hits: u32) -> Ids {
        assert!(slots.first() == Some(&0), "the ids start at index 0");
        assert!(slots.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        assert_eq!(slots.len(), class.len(), "a class per slot");
        assert!((1..=MAX_CLASSES).contains(&classes), "1 to 256 classes");
        assert!(
            class.iter().all(|&c| usize::from(c) < classes),
            "classes in range"
        );
        let n = slots.len();
        let step = spread(n);
        let probe = (0..n)
            .map(|k| {
                let j = (k * step) % n;
                (slots[j], class[j])
            })
            .collect();
        let span = slots[n - 1] + 1;
        Ids {
            slots,
            class,
            probe,
            classes: classes as u16,
            span,
            hits: hits.min(31),
            fixed: None,
        }
    }

    /// The same slots with the numbering fixed (`numbering[class]` is the id of each class):
    /// the item may then meet a taken slot only where that slot holds its own id. The shared
    /// lists fix every square's ids, since they depend on the board alone.
    ///
    /// # Panics
    /// If the numbering does not give one distinct id to every class.
    #[must_use]
    pub fn fixed(mut self, numbering: Numbering) -> Ids {
        assert_eq!(numbering.len(), self.classes(), "one id per class");
        let mut seen = [false; MAX_CLASSES];
        assert!(
            numbering
                .iter()
                .all(|&id| !std::mem::replace(&mut seen[usize::from(id)], true)),
            "distinct ids"
        );
        self.fixed = Some(numbering);
        self
    }

    /// Classes: the square's distinct attack sets, the length of its list.
    #[must_use]
    pub fn classes(&self) -> usize {
        usize::from(self.classes)
    }

    /// Taken slots a placement may meet at most.
    #[must_use]
    pub fn hits(&self) -> u32 {
        self.hits
    }
}

impl Item for Ids {
    type Array = IdArray;

    fn span(&self) -> u32 {
        self.span
    }

    fn used(&self) -> u32 {
        self.slots.len() as u32
    }
}

/// An id array being packed: which slots are taken (as bits, for the 64-at-once search) and
/// the id each holds.
#[derive(Clone, Debug, Default)]
pub struct IdArray {
    words: Vec<u64>,
    val: Vec<u8>,
    /// Highest taken slot plus one.
    end: u32,
    /// No slot below this one is free.
    free: u32,
    used: u64,
}

/// No class has an id yet.
const NONE: u8 = u8::MAX;

impl IdArray {
    /// An empty array.
    #[must_use]
    pub fn new() -> IdArray {
        IdArray::default()
    }

    /// Whether slot `s` is taken.
    #[inline]
    #[must_use]
    pub fn taken(&self, s: u32) -> bool {
        self.words
            .get(s as usize / 64)
            .is_some_and(|w| w >> (s % 64) & 1 == 1)
    }

    /// The id slot `s` holds (`None`: free).
    #[must_use]
    pub fn get(&self, s: u32) -> Option<u8> {
        self.taken(s).then(|| self.val[s as usize])
    }

    /// The ids as they lie, holes 0, up to the end.
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        (0..self.end).map(|s| self.get(s).unwrap_or(0)).collect()
    }

    /// The 64 bits from slot `p` up (bits past the array are free).
    #[inline]
    fn window(&self, p: usize) -> u64 {
        window(&self.words, p)
    }

    /// The ids `item` takes with its index 0 at `base`, if it may be placed there: the ids
    /// the taken slots force, the other classes the lowest ids left, in class order.
    #[must_use]
    pub fn numbering(&self, item: &Ids, base: u32) -> Option<Numbering> {
        if let Some(fixed) = &item.fixed {
            let holds = item.probe.iter().all(|&(i, c)| {
                !self.taken(base + i) || self.val[(base + i) as usize] == fixed[usize::from(c)]
            });
            return holds.then(|| fixed.clone());
        }
        let n = item.classes();
        let mut map = [NONE; MAX_CLASSES];
        let mut owner = [false; MAX_CLASSES];
        for &(i, c) in &item.probe {
            let s = base + i;
            if !self.taken(s) {
                continue;
            }
            let v = self.val[s as usize];
            let c = usize::from(c);
            if usize::from(v) >= n {
                return None;
            }
            if map[c] == NONE {
                if owner[usize::from(v)] {
                    return None;
                }
                map[c] = v;
                owner[usize::from(v)] = true;
            } else if map[c] != v {
                return None;
            }
        }
        let mut next = 0;
        for id in map.iter_mut().take(n) {
            if *id == NONE {
                while owner[next] {
                    next += 1;
                }
                *id = next as u8;
                owner[next] = true;
            }
        }
        Some(map[..n].to_vec())
    }

    /// Writes `item` at `base` with `numbering`.
    fn write(&mut self, item: &Ids, base: u32, numbering: &[u8]) {
        let need = (base + item.span) as usize;
        if self.val.len() < need {
            self.val.resize(need, 0);
        }
        if self.words.len() < need / 64 + 1 {
            self.words.resize(need / 64 + 1, 0);
        }
        for (&i, &c) in item.slots.iter().zip(&item.class) {
            let s = (base + i) as usize;
            let id = numbering[usize::from(c)];
            let bit = 1u64 << (s % 64);
            if self.words[s / 64] & bit == 0 {
                self.words[s / 64] |= bit;
                self.used += 1;
            } else {
                assert_eq!(self.val[s], id, "slot {s} holds another id");
            }
            self.val[s] = id;
        }
        self.end = self.end.max(base + item.span);
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
}

impl Array for IdArray {
    type Item = Ids;
    type Label = Numbering;

    fn clear(&mut self) {
        let n = (self.end as usize).div_ceil(64).min(self.words.len());
        self.words[..n].iter_mut().for_each(|w| *w = 0);
        self.end = 0;
        self.free = 0;
        self.used = 0;
    }

    fn end(&self) -> u32 {
        self.end
    }

    fn used(&self) -> u64 {
        self.used
    }

    fn first_fit(&self, item: &Ids, from: u32, limit: u64) -> Option<u32> {
        let hits = item.hits as usize;
        // Below `free` every slot is taken: a place with more than `hits` slots there fails.
        let deep = item
            .slots
            .get(hits)
            .map_or(0, |&d| self.free.saturating_sub(d));
        let mut c = from.max(deep) as usize;
        let span = item.span as usize;
        // at[j]: the candidates that met more than j taken slots so far.
        let mut at = [0u64; 32];
        while (c + span) as u64 <= limit {
            let mut alive = !0u64;
            at[..=hits].iter_mut().for_each(|w| *w = 0);
            for &(i, _) in &item.probe {
                let x = self.window(c + i as usize) & alive;
                if x == 0 {
                    continue;
                }
                for j in (1..=hits).rev() {
                    at[j] |= at[j - 1] & x;
                }
                at[0] |= x;
                alive &= !at[hits];
                if alive == 0 {
                    break;
                }
            }
            while alive != 0 {
                let bit = alive & alive.wrapping_neg();
                let base = c + alive.trailing_zeros() as usize;
                if (base + span) as u64 > limit {
                    return None;
                }
                if at[0] & bit == 0 || self.numbering(item, base as u32).is_some() {
                    return Some(base as u32);
                }
                alive &= alive - 1;
            }
            c += 64;
        }
        None
    }

    fn place(&mut self, item: &Ids, base: u32) -> Numbering {
        let numbering = self
            .numbering(item, base)
            .expect("placed where first_fit allows");
        self.write(item, base, &numbering);
        numbering
    }

    fn place_as(&mut self, item: &Ids, base: u32, numbering: &Numbering) {
        self.write(item, base, numbering);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::rand_core::{RngCore, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The lowest place found one by one, the reference `first_fit` must agree with: at most
    /// `hits` taken slots met, and a numbering.
    fn brute(a: &IdArray, item: &Ids, from: u32, limit: u64) -> Option<u32> {
        (from..)
            .take_while(|&b| u64::from(b + item.span()) <= limit)
            .find(|&b| {
                let met = item.slots.iter().filter(|&&i| a.taken(b + i)).count();
                met <= item.hits() as usize && a.numbering(item, b).is_some()
            })
    }

    fn random_ids(rng: &mut Xoshiro256PlusPlus, span: u32, hits: u32) -> Ids {
        let mut slots: Vec<u32> = (1..span)
            .filter(|_| rng.next_u32().is_multiple_of(3))
            .collect();
        slots.insert(0, 0);
        slots.push(span - 1);
        slots.dedup();
        let classes = 1 + rng.next_u32() as usize % 12;
        let class = slots
            .iter()
            .map(|_| (rng.next_u32() as usize % classes) as u8)
            .collect();
        Ids::new(slots, class, classes, hits)
    }

    #[test]
    fn first_fit_finds_the_lowest_place_a_slot_by_slot_search_finds() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        for round in 0..150 {
            let hits = round % 5;
            let mut a = IdArray::new();
            for _ in 0..(round % 10) {
                let span = 1 + rng.next_u32() % 150;
                let item = random_ids(&mut rng, span, hits);
                let b = a.first_fit(&item, rng.next_u32() % 300, u64::MAX).unwrap();
                assert_eq!(Some(b), brute(&a, &item, b, u64::MAX));
                let numbering = a.place(&item, b);
                // Every slot now holds the id of its class.
                for (&i, &c) in item.slots.iter().zip(&item.class) {
                    assert_eq!(a.get(b + i), Some(numbering[usize::from(c)]));
                }
                let mut sorted = numbering.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), item.classes(), "distinct ids");
                assert!(sorted.iter().all(|&id| usize::from(id) < item.classes()));
            }
            for _ in 0..20 {
                let span = 1 + rng.next_u32() % 200;
                let item = random_ids(&mut rng, span, hits);
                let from = rng.next_u32() % 400;
                let limit = u64::from(rng.next_u32() % 1200);
                assert_eq!(
                    a.first_fit(&item, from, limit),
                    brute(&a, &item, from, limit),
                    "round {round}, from {from}, limit {limit}"
                );
            }
        }
    }

    #[test]
    fn a_class_takes_the_id_its_taken_slots_hold_and_the_rest_the_lowest_left() {
        let mut a = IdArray::new();
        // Slots 0..4 with classes 0, 1, 0, 2: ids 0, 1, 0, 2.
        let first = Ids::new(vec![0, 1, 2, 3], vec![0, 1, 0, 2], 3, 4);
        assert_eq!(a.place(&first, 0), vec![0, 1, 2]);
        // Placed at 1, a square whose class 1 meets slot 1 (id 1) and slot 3 (id 2) cannot be
        // numbered; at 2, its class 0 meets id 0 and its class 1 id 2.
        let second = Ids::new(vec![0, 2, 5], vec![1, 1, 0], 3, 4);
        assert_eq!(a.numbering(&second, 1), None);
        assert_eq!(
            a.numbering(&second, 0),
            Some(vec![1, 0, 2]),
            "class 1 meets id 0 twice"
        );
        let third = Ids::new(vec![0, 1], vec![0, 1], 3, 4);
        assert_eq!(a.numbering(&third, 2), Some(vec![0, 2, 1]));
        assert_eq!(a.first_fit(&third, 0, u64::MAX), Some(0));
        // A fixed numbering meets only its own ids: class 0 as id 1 fits over slot 1.
        let fixed = Ids::new(vec![0], vec![0], 2, 4).fixed(vec![1, 0]);
        assert_eq!(a.first_fit(&fixed, 0, u64::MAX), Some(1));
        assert_eq!(a.numbering(&fixed, 0), None);
        // With no taken slot allowed, only the free slots past the end.
        let strict = Ids::new(vec![0, 1], vec![0, 1], 3, 0);
        assert_eq!(a.first_fit(&strict, 0, u64::MAX), Some(4));
    }
}
