//! The per-target scratchpad: pairs built once, ordered to fail early, stamped slots, an
//! allocation-free trial.
//!
//! A slot is one `u32`: the trial's stamp in the high bits and a small attack-set id in the low
//! [`ID_BITS`] bits (rook a1 has 49 distinct attack sets, no square more than 144). The table is
//! never cleared between trials: a slot whose stamp is older than the current trial is empty.
//! At 12 bits the table is 16 KiB and stays in L1.
//!
//! Subsets are checked grouped by attack set, rarest sets first, interleaved (one subset of
//! every set, then a second of every set that has one, ...): subsets of one set never collide
//! destructively with each other, so mixing the sets early finds the first destructive
//! collision after about 14 checks on rook a1 at 11 bits instead of about 164 in carry-rippler
//! order. Under the plain formula the empty subset always lands on slot 0 and is the only one
//! with its attack set: its slot is stamped directly, with no multiplication. Under the black
//! formula the pad holds the keys `occ | !mask` instead of the subsets, the empty one among
//! them.
//!
//! [`Scratchpad::first_failure_within`] also rejects a magic whose slots span more than a
//! given number of entries: the size objective of `hunt --objective tight`;
//! [`Scratchpad::first_failure_slots`] one that writes more than a given number of distinct
//! slots: the few-slot objective of `hunt --objective slots`.

use crate::attacks::Occupancies;
use crate::magic::{self, Collision, Verified};
use crate::piece::Target;
use crate::question::Formula;

/// Low bits of a slot holding the attack-set id.
pub const ID_BITS: u32 = 10;
const ID_MASK: u32 = (1 << ID_BITS) - 1;
/// One trial's step in the stamp.
const STAMP_STEP: u32 = 1 << ID_BITS;
/// Largest table: 12 bits.
const SLOTS: usize = 1 << 12;

/// Everything a trial needs for one (target, bits), built once; a trial then only stamps
/// slots, never clears them.
#[derive(Clone, Debug)]
pub struct Scratchpad {
    target: Target,
    bits: u32,
    formula: Formula,
    mask: u64,
    /// Keys in check order (plain: the non-empty subsets; black: every `occ | !mask`), each
    /// with its attack-set id (one array, so the trial loop walks one pointer).
    order: Vec<(u64, u32)>,
    /// The id of the empty subset's attack set (plain: it always lands on slot 0).
    empty_id: u32,
    /// The stamped slots: `stamp << ID_BITS | id`; only the first `1 << bits` are used.
    table: Box<[u32; SLOTS]>,
    /// The current trial's stamp, already shifted.
    stamp: u32,
    /// The reference pairs, kept for the final verify.
    pairs: Occupancies,
    /// Distinct attack sets.
    distinct: usize,
}

impl Scratchpad {
    /// A scratchpad for `target` at `bits` index bits (1 to 12), plain formula.
    ///
    /// # Panics
    /// If `bits` is not 1 to 12.
    #[must_use]
    pub fn new(target: Target, bits: u32) -> Scratchpad {
        Scratchpad::with_formula(target, bits, Formula::Plain)
    }

    /// A scratchpad for `target` at `bits` index bits (1 to 12) under `formula`.
    ///
    /// # Panics
    /// If `bits` is not 1 to 12.
    #[must_use]
    pub fn with_formula(target: Target, bits: u32, formula: Formula) -> Scratchpad {
        assert!((1..=12).contains(&bits), "bits {bits}");
        let pairs = Occupancies::new(target);
        let (mut order, empty_id, distinct) = check_order(&pairs);
        let mask = pairs.mask.0;
        if formula == Formula::Black {
            // No subset lands anywhere in particular: every key is multiplied, the empty
            // one (the rarest attack set) first.
            order.insert(0, (0, empty_id));
            for (o, _) in &mut order {
                *o = formula.key(*o, mask);
            }
        }
        Scratchpad {
            target,
            bits,
            formula,
            mask,
            order,
            empty_id,
            table: Box::new([0; SLOTS]),
            stamp: 0,
            pairs,
            distinct,
        }
    }

    /// The target.
    #[must_use]
    pub fn target(&self) -> Target {
        self.target
    }

    /// Index bits.
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The relevant mask.
    #[must_use]
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// The index formula.
    #[must_use]
    pub fn formula(&self) -> Formula {
        self.formula
    }

    /// `log2` of the period: the low bits of a magic that can change a verdict (64 for a
    /// black magic, whose keys are odd).
    #[must_use]
    pub fn period_bits(&self) -> u32 {
        match self.formula {
            Formula::Plain => 64 - self.mask.trailing_zeros(),
            Formula::Black => 64,
        }
    }

    /// The reference pairs of the target (built once, shared with the final verify).
    #[must_use]
    pub fn pairs(&self) -> &Occupancies {
        &self.pairs
    }

    /// Number of distinct attack sets of the target.
    #[must_use]
    pub fn distinct_attacks(&self) -> usize {
        self.distinct
    }

    /// The bits of a magic that matter: every plain magic is equivalent to itself modulo
    /// `2^(64 - lowest mask square)`, since every subset is a multiple of `2^lowest`; every
    /// bit of a black magic matters.
    #[must_use]
    pub fn period_mask(&self) -> u64 {
        match self.formula {
            Formula::Plain => period_mask(self.mask),
            Formula::Black => u64::MAX,
        }
    }

    /// Whether `magic` is valid: exactly [`magic::verify`]'s semantics (constructive collisions
    /// allowed), without building anything.
    #[inline]
    pub fn try_magic(&mut self, magic: u64) -> bool {
        self.first_failure(magic).is_none()
    }

    /// [`magic::verify`] on the pairs built once (the final word on a candidate).
    ///
    /// # Errors
    /// The first destructive [`Collision`] in carry-rippler order.
    pub fn verify(&self, magic: u64) -> Result<Verified, Collision> {
        magic::verify_pairs_with(&self.pairs, self.bits, self.formula, magic)
    }

    /// The fast check: `None` if `magic` is valid, else the number of subset checks done
    /// before the first destructive collision was seen (at least 1).
    #[inline]
    pub fn first_failure(&mut self, magic: u64) -> Option<usize> {
        let stamp = self.next_stamp();
        let table = &mut *self.table;
        if self.formula == Formula::Plain {
            table[0] = stamp | self.empty_id;
        }
        let shift = 64 - self.bits;
        for (k, &(o, id)) in self.order.iter().enumerate() {
            let i = magic::index_masked(o, magic, shift) & (SLOTS - 1);
            let key = stamp | id;
            let held = table[i];
            if held >= stamp && held != key {
                self.promote(k);
                return Some(k + 1);
            }
            table[i] = key;
        }
        None
    }

    /// [`Scratchpad::first_failure`] that also fails a magic whose slots span more than
    /// `limit` entries (highest index minus lowest, plus one; for a plain magic the lowest is
    /// 0): `None` only for a valid magic whose tight table has at most `limit` entries.
    #[inline]
    pub fn first_failure_within(&mut self, magic: u64, limit: u32) -> Option<usize> {
        let stamp = self.next_stamp();
        let table = &mut *self.table;
        let (mut lo, mut hi) = if self.formula == Formula::Plain {
            table[0] = stamp | self.empty_id;
            (0, 0)
        } else {
            (usize::MAX, 0)
        };
        let limit = limit as usize;
        let shift = 64 - self.bits;
        for (k, &(o, id)) in self.order.iter().enumerate() {
            let i = magic::index_masked(o, magic, shift) & (SLOTS - 1);
            lo = lo.min(i);
            hi = hi.max(i);
            let key = stamp | id;
            let held = table[i];
            if hi - lo >= limit || (held >= stamp && held != key) {
                self.promote(k);
                return Some(k + 1);
            }
            table[i] = key;
        }
        None
    }

    /// [`Scratchpad::first_failure`] that also fails a magic writing more than `limit`
    /// distinct slots: `None` only for a valid magic using at most `limit` slots (the
    /// few-slot objective of the pools).
    #[inline]
    pub fn first_failure_slots(&mut self, magic: u64, limit: u32) -> Option<usize> {
        let stamp = self.next_stamp();
        let table = &mut *self.table;
        let mut used = 0u32;
        if self.formula == Formula::Plain {
            table[0] = stamp | self.empty_id;
            used = 1;
        }
        let shift = 64 - self.bits;
        for (k, &(o, id)) in self.order.iter().enumerate() {
            let i = magic::index_masked(o, magic, shift) & (SLOTS - 1);
            let key = stamp | id;
            let held = table[i];
            if held < stamp {
                used += 1;
            }
            if used > limit || (held >= stamp && held != key) {
                self.promote(k);
                return Some(k + 1);
            }
            table[i] = key;
        }
        None
    }

    /// Self-organising order: the subset that exposed a collision moves halfway to the
    /// front, so the subsets that fail most for this family and bits end up checked first.
    /// Only the speed depends on the order, never the verdict.
    #[inline]
    fn promote(&mut self, k: usize) {
        let to = k / 2;
        self.order.swap(k, to);
    }

    /// Advances the stamp; on wrap-around clears the table once and starts again.
    #[inline]
    fn next_stamp(&mut self) -> u32 {
        match self.stamp.checked_add(STAMP_STEP) {
            Some(s) => self.stamp = s,
            None => {
                self.table.fill(0);
                self.stamp = STAMP_STEP;
            }
        }
        self.stamp
    }
}

/// Bits of a magic that matter for `mask`: below `64 - lowest mask square`.
#[must_use]
pub fn period_mask(mask: u64) -> u64 {
    if mask == 0 {
        u64::MAX
    } else {
        u64::MAX >> mask.trailing_zeros()
    }
}

/// The check order: non-empty subsets grouped by attack set, groups from the rarest, taken
/// round-robin. Returns (subsets with their ids, id of the empty subset's set, distinct sets).
///
/// Linear in the subsets and allocation-light (one flat array, no list per group): building
/// the pads of all 128 targets is part of the all-squares benchmark.
fn check_order(pairs: &Occupancies) -> (Vec<(u64, u32)>, u32, usize) {
    // Attack set -> id through a small open-addressing table (no hashing library).
    const HASH_BITS: u32 = 11;
    let mut keys = [0u64; 1 << HASH_BITS];
    let mut vals = [u32::MAX; 1 << HASH_BITS];
    let mut sizes: Vec<u32> = Vec::new();
    let mut ids = Vec::with_capacity(pairs.pairs.len());
    for &(_, att) in &pairs.pairs {
        let mut h = (att.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - HASH_BITS)) as usize;
        while vals[h] != u32::MAX && keys[h] != att.0 {
            h = (h + 1) & ((1 << HASH_BITS) - 1);
        }
        if vals[h] == u32::MAX {
            keys[h] = att.0;
            vals[h] = sizes.len() as u32;
            sizes.push(0);
            assert!(
                sizes.len() <= (ID_MASK as usize + 1).min(1 << (HASH_BITS - 1)),
                "too many attack sets"
            );
        }
        sizes[vals[h] as usize] += 1;
        ids.push(vals[h]);
    }
    // The members of every group, contiguous, in carry-rippler order within a group.
    let mut start: Vec<usize> = Vec::with_capacity(sizes.len() + 1);
    let mut total = 0;
    for &size in &sizes {
        start.push(total);
        total += size as usize;
    }
    let mut fill = start.clone();
    let mut members = vec![0u64; total];
    for (&(sub, _), &g) in pairs.pairs.iter().zip(&ids) {
        members[fill[g as usize]] = sub.0;
        fill[g as usize] += 1;
    }
    let mut order: Vec<u32> = (0..sizes.len() as u32).collect();
    order.sort_by_key(|&g| (sizes[g as usize], g));
    // Round-robin from the rarest; groups sorted by size run out in order, so the live ones
    // are always a suffix of `order`.
    let mut checks = Vec::with_capacity(total);
    let mut live = 0;
    for round in 0.. {
        while live < order.len() && sizes[order[live] as usize] as usize <= round {
            live += 1;
        }
        if live == order.len() {
            break;
        }
        for &g in &order[live..] {
            let sub = members[start[g as usize] + round];
            if sub != 0 {
                checks.push((sub, g));
            }
        }
    }
    (checks, ids[0], sizes.len())
}
