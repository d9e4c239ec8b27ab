//! The one index formula and the one verify that every other check trusts.
//!
//! ```
//! use magichunt::magic::{parse_magic, verify};
//! use magichunt::{Piece, Square, Target};
//!
//! let a1 = Target::new(Piece::Rook, "a1".parse::<Square>()?);
//! // Tord Romstad's popcount magic for a1 is valid at 12 bits...
//! let m = parse_magic("0x0a8002c000108020")?;
//! assert!(verify(a1, 12, m).is_ok());
//! // ...and at 11 bits two subsets with different attack sets meet in one slot.
//! let c = verify(a1, 11, m).unwrap_err();
//! assert_ne!(c.first.1, c.second.1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;

use crate::attacks::Occupancies;
use crate::bitboard::Bitboard;
use crate::error::ParseError;
use crate::piece::Target;
use crate::question::{Formula, Question};

/// Table slot of occupancy `occ` under `magic` with `bits` index bits:
/// `((occ & mask) * magic) >> (64 - bits)`, the product taken modulo 2^64.
///
/// This, [`index_with`] and [`index_masked`], which they call, are the only copy of the
/// formula: the search, verify, exhaust, prove, the store loader and the tests of the generated
/// code all call them. `bits` must be 1 to 64.
#[inline(always)]
#[must_use]
pub const fn index(occ: u64, mask: u64, magic: u64, bits: u32) -> usize {
    index_with(Formula::Plain, occ, mask, magic, bits)
}

/// [`index`] under either [`Formula`]: `(key * magic) >> (64 - bits)` with the formula's key
/// (`occ & mask` for plain magics, `occ | !mask` for black ones).
#[inline(always)]
#[must_use]
pub const fn index_with(formula: Formula, occ: u64, mask: u64, magic: u64, bits: u32) -> usize {
    index_masked(formula.key(occ, mask), magic, 64 - bits)
}

/// [`index`] for a key already computed (for a plain magic, an occupancy already inside the
/// mask), with `shift = 64 - bits` computed once: `(key * magic) >> shift`. The trial loops
/// call this: their subsets are built inside the mask, and the extra `& mask` measured 12 to
/// 28 % slower there.
#[inline(always)]
#[must_use]
pub const fn index_masked(key: u64, magic: u64, shift: u32) -> usize {
    (key.wrapping_mul(magic) >> shift) as usize
}

/// Parses a magic from `0x` hex (up to 16 digits, any case) or decimal (below 2^64).
///
/// # Errors
/// [`ParseError::Magic`] naming the text.
pub fn parse_magic(text: &str) -> Result<u64, ParseError> {
    let t = text.trim();
    let bad = || ParseError::Magic(text.to_string());
    let parsed = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        u64::from_str_radix(hex, 16)
    } else {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse::<u64>()
    };
    parsed.map_err(|_| bad())
}

/// The table format's spelling of a magic: `0x` and 16 lower-case hex digits.
#[must_use]
pub fn format_magic(magic: u64) -> String {
    format!("{magic:#018x}")
}

/// A magic that passed [`verify`], with the figures of its table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The target it was verified for.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The index formula it was verified under.
    pub formula: Formula,
    /// The multiplier.
    pub magic: u64,
    /// Distinct slots written.
    pub used_slots: u32,
    /// The highest slot written; a tight plain table has `max_index + 1` entries.
    pub max_index: u32,
    /// The lowest slot written: 0 for a plain magic (the empty subset's key is 0), usually
    /// more for a black one; a tight table has `max_index - min_index + 1` entries.
    pub min_index: u32,
    /// Subsets that landed on a slot already holding their (equal) attack set.
    pub constructive: u32,
}

impl Verified {
    /// Entries of the magic's tight table: `max_index - min_index + 1` (the span of the slots
    /// it writes; `max_index + 1` for a plain magic).
    #[must_use]
    pub fn span(&self) -> u32 {
        self.max_index - self.min_index + 1
    }
}

/// The first destructive collision found by [`verify`]: two subsets with different attack sets
/// sent to one slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The shared slot.
    pub index: usize,
    /// The subset that took the slot first (carry-rippler order), and its attack set.
    pub first: (Bitboard, Bitboard),
    /// The later subset whose different attack set collided, and its attack set.
    pub second: (Bitboard, Bitboard),
}

/// Checks `magic` for `target` at `bits` index bits against the slow reference.
///
/// Valid iff no two subsets with *different* attack sets get the same index; subsets with
/// equal attack sets may share a slot (constructive collisions). Subsets are visited in
/// carry-rippler order, so the collision reported is the first in that order.
///
/// # Errors
/// The first destructive [`Collision`].
///
/// # Panics
/// If `bits` is not 1 to 64.
pub fn verify(target: Target, bits: u32, magic: u64) -> Result<Verified, Collision> {
    verify_pairs(&Occupancies::new(target), bits, magic)
}

/// [`verify`] of a magic as an answer to `question`, under its formula.
///
/// # Errors
/// The first destructive [`Collision`].
pub fn verify_question(question: Question, magic: u64) -> Result<Verified, Collision> {
    verify_pairs_with(
        &Occupancies::new(question.target),
        question.bits,
        question.formula,
        magic,
    )
}

/// [`verify`] on pairs already built (saves rebuilding them when checking many magics of one
/// target).
///
/// # Errors
/// The first destructive [`Collision`].
///
/// # Panics
/// If `bits` is not 1 to 64.
pub fn verify_pairs(occ: &Occupancies, bits: u32, magic: u64) -> Result<Verified, Collision> {
    verify_pairs_with(occ, bits, Formula::Plain, magic)
}

/// [`verify_pairs`] under either formula: the one implementation of verify.
///
/// # Errors
/// The first destructive [`Collision`].
///
/// # Panics
/// If `bits` is not 1 to 64.
pub fn verify_pairs_with(
    occ: &Occupancies,
    bits: u32,
    formula: Formula,
    magic: u64,
) -> Result<Verified, Collision> {
    assert!((1..=64).contains(&bits), "bits {bits} out of range");
    // A flat table up to 16 bits (every real target): a hash map costs more than the search
    // that found the magic.
    let flat = bits <= 16;
    let mut table: Vec<Option<(Bitboard, Bitboard)>> = vec![None; if flat { 1 << bits } else { 0 }];
    let mut map: HashMap<usize, Option<(Bitboard, Bitboard)>> = HashMap::new();
    let mut used_slots = 0;
    let mut max_index = 0;
    let mut min_index = usize::MAX;
    let mut constructive = 0;
    for &(sub, att) in &occ.pairs {
        let i = index_with(formula, sub.0, occ.mask.0, magic, bits);
        let slot = if flat {
            &mut table[i]
        } else {
            map.entry(i).or_insert(None)
        };
        match *slot {
            None => {
                *slot = Some((sub, att));
                used_slots += 1;
                max_index = max_index.max(i);
                min_index = min_index.min(i);
            }
            Some((_, held)) if held == att => constructive += 1,
            Some(first) => {
                return Err(Collision {
                    index: i,
                    first,
                    second: (sub, att),
                })
            }
        }
    }
    Ok(Verified {
        target: occ.target,
        bits,
        formula,
        magic,
        used_slots,
        max_index: max_index as u32,
        min_index: min_index as u32,
        constructive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Piece, Square};

    fn t(piece: Piece, sq: &str) -> Target {
        Target::new(piece, sq.parse::<Square>().unwrap())
    }

    /// The direct definition: every pair of subsets, no table.
    fn pairwise_valid(target: Target, bits: u32, magic: u64) -> bool {
        pairwise_valid_with(target, bits, Formula::Plain, magic)
    }

    fn pairwise_valid_with(target: Target, bits: u32, formula: Formula, magic: u64) -> bool {
        let occ = Occupancies::new(target);
        let key = |o: u64| match formula {
            Formula::Plain => o & occ.mask.0,
            Formula::Black => o | !occ.mask.0,
        };
        let idx: Vec<usize> = occ
            .pairs
            .iter()
            .map(|p| (key(p.0 .0).wrapping_mul(magic) >> (64 - bits)) as usize)
            .collect();
        for i in 0..occ.pairs.len() {
            for j in i + 1..occ.pairs.len() {
                if idx[i] == idx[j] && occ.pairs[i].1 != occ.pairs[j].1 {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn parses_magics() {
        assert_eq!(
            parse_magic("0x00fffcddfced714a").unwrap(),
            0x00fffcddfced714a
        );
        assert_eq!(parse_magic("0XFF").unwrap(), 255);
        assert_eq!(parse_magic("18446744073709551615").unwrap(), u64::MAX);
        for bad in [
            "0xZZ",
            "0x",
            "",
            "18446744073709551616",
            "0x1ffffffffffffffff",
            "-1",
            "1e5",
        ] {
            assert!(parse_magic(bad).is_err(), "{bad:?} parsed");
        }
        assert_eq!(format_magic(0xff), "0x00000000000000ff");
    }

    #[test]
    fn known_reduced_magics_verify() {
        let v = verify(t(Piece::Rook, "a8"), 11, 0x00fffcddfced714a).unwrap();
        assert!(v.max_index < 2048);
        assert!(v.constructive > 0, "11 bits for 4096 subsets needs sharing");
        assert_eq!(v.used_slots + v.constructive, 4096);
        assert!(verify(t(Piece::Rook, "a8"), 11, 0xebffffb9ff9fc526).is_ok());
        assert!(verify(t(Piece::Bishop, "b1"), 4, 0xfc0962854a77f576).is_ok());
    }

    #[test]
    fn collision_reports_a_real_conflict() {
        let target = t(Piece::Rook, "a1");
        let c = verify(target, 11, 0x0a8002c000108020).unwrap_err();
        let mask = Occupancies::new(target).mask.0;
        assert_ne!(c.first.1, c.second.1);
        assert_eq!(index(c.first.0 .0, mask, 0x0a8002c000108020, 11), c.index);
        assert_eq!(index(c.second.0 .0, mask, 0x0a8002c000108020, 11), c.index);
    }

    /// Flipping any one bit of known magics: verify must agree with the pairwise definition.
    #[test]
    fn flipped_bits_are_judged_as_the_pairwise_check_says() {
        let cases = [
            (t(Piece::Bishop, "b1"), 4, 0xfc0962854a77f576u64),
            (t(Piece::Bishop, "h2"), 4, 0x000000410509fff0),
            (t(Piece::Bishop, "e4"), 9, 0x0009040086006104),
            (t(Piece::Rook, "h8"), 11, 0x0ef3fffd3bfd525a),
        ];
        let (mut valid, mut invalid) = (0, 0);
        for (target, bits, magic) in cases {
            for bit in 0..64 {
                let m = magic ^ (1 << bit);
                let fast = verify(target, bits, m).is_ok();
                assert_eq!(
                    fast,
                    pairwise_valid(target, bits, m),
                    "{target} {bits} {m:#x}"
                );
                if fast {
                    valid += 1;
                } else {
                    invalid += 1;
                }
            }
        }
        // The test means something only if both verdicts occur.
        assert!(valid > 0 && invalid > 0, "valid {valid} invalid {invalid}");
    }

    /// Black magics of the published shared table (Annuss and Fiekas, 2017) verify under the
    /// black formula at their fixed shift, and not under the plain one; flipped bits are judged
    /// as the pairwise definition says.
    #[test]
    fn black_magics_verify_under_their_formula() {
        let cases = [
            (t(Piece::Rook, "a1"), 12, 0x80280013ff84ffffu64),
            (t(Piece::Bishop, "a1"), 9, 0xa7020080601803d8),
        ];
        let (mut valid, mut invalid) = (0, 0);
        for (target, bits, magic) in cases {
            let q = Question::new(target, bits, Formula::Black).unwrap();
            let v = verify_question(q, magic).unwrap();
            assert_eq!(v.formula, Formula::Black);
            for bit in 0..64 {
                let m = magic ^ (1 << bit);
                let fast = verify_question(q, m).is_ok();
                assert_eq!(fast, pairwise_valid_with(target, bits, Formula::Black, m));
                if fast {
                    valid += 1;
                } else {
                    invalid += 1;
                }
            }
        }
        assert!(valid > 0 && invalid > 0, "valid {valid} invalid {invalid}");
    }
}
