//! The question every settling method answers: does a magic exist for this target, with this
//! many index bits, under this index formula? `hunt` looks for a "yes", `exhaust` and `prove`
//! settle it either way, and a proof of none names the question it answers.

use std::fmt;
use std::str::FromStr;

use crate::attacks::relevant_mask;
use crate::error::ParseError;
use crate::piece::Target;

/// How an occupancy becomes the key that the magic multiplies.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Formula {
    /// `(occ & mask) * magic >> (64 - bits)`: the classic magic bitboard.
    #[default]
    Plain,
    /// `(occ | !mask) * magic >> (64 - bits)`: Volker Annuss's black magics. The key has every
    /// square outside the mask set, so the product depends on every bit of the magic.
    Black,
}

impl Formula {
    /// Both formulas, plain first.
    pub const ALL: [Formula; 2] = [Formula::Plain, Formula::Black];

    /// The key the magic multiplies for occupancy `occ` under `mask`.
    #[inline(always)]
    #[must_use]
    pub const fn key(self, occ: u64, mask: u64) -> u64 {
        match self {
            Formula::Plain => occ & mask,
            Formula::Black => occ | !mask,
        }
    }

    /// The table format's name: `plain` or `black`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Formula::Plain => "plain",
            Formula::Black => "black",
        }
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Formula {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Formula, ParseError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "plain" => Ok(Formula::Plain),
            "black" => Ok(Formula::Black),
            _ => Err(ParseError::Other(format!(
                "invalid formula '{s}' (expected plain or black)"
            ))),
        }
    }
}

/// Does a magic with `bits` index bits exist for `target` under `formula`?
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Question {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The index formula.
    pub formula: Formula,
}

impl Question {
    /// The question for `target` at `bits` under `formula`, with `bits` checked against the
    /// piece's range.
    ///
    /// # Errors
    /// [`ParseError::Bits`] when `bits` is out of range.
    pub fn new(target: Target, bits: u32, formula: Formula) -> Result<Question, ParseError> {
        target.check_bits(bits)?;
        Ok(Question {
            target,
            bits,
            formula,
        })
    }

    /// Whether "no magic answers `self`" also rules out `other`: the same target and formula,
    /// and `other` at as many bits or fewer (a table at fewer bits folds into one at more).
    #[must_use]
    pub fn rules_out(self, other: Question) -> bool {
        self.target == other.target && self.formula == other.formula && self.bits >= other.bits
    }

    /// `log2` of the period: only the low `period_bits` bits of a magic can change the answer.
    /// A plain key is a multiple of `2^l` (`l` the lowest mask square), so bits of the magic
    /// from `64 - l` up fall off the top of the product; a black key has bit 0 set (unless
    /// a1 is in the mask, which no relevant mask allows), so every bit counts.
    #[must_use]
    pub fn period_bits(self) -> u32 {
        match self.formula {
            Formula::Plain => {
                64 - relevant_mask(self.target.piece, self.target.square)
                    .0
                    .trailing_zeros()
            }
            Formula::Black => 64,
        }
    }
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {} bits", self.target, self.bits)?;
        if self.formula != Formula::Plain {
            write!(f, " ({})", self.formula)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Piece, Square};

    #[test]
    fn a_proof_of_none_rules_out_fewer_bits_of_its_own_target_and_formula_only() {
        let t = Target::new(Piece::Rook, "a1".parse::<Square>().unwrap());
        let q = |bits, formula| Question {
            target: t,
            bits,
            formula,
        };
        assert!(q(11, Formula::Plain).rules_out(q(11, Formula::Plain)));
        assert!(q(11, Formula::Plain).rules_out(q(10, Formula::Plain)));
        assert!(!q(10, Formula::Plain).rules_out(q(11, Formula::Plain)));
        assert!(!q(11, Formula::Plain).rules_out(q(10, Formula::Black)));
        let other = Question {
            target: Target::new(Piece::Rook, "b1".parse::<Square>().unwrap()),
            ..q(10, Formula::Plain)
        };
        assert!(!q(11, Formula::Plain).rules_out(other));
    }

    #[test]
    fn formulas_parse_and_print() {
        for f in Formula::ALL {
            assert_eq!(f.name().parse::<Formula>().unwrap(), f);
        }
        assert!("white".parse::<Formula>().is_err());
    }

    #[test]
    fn keys_follow_the_definitions() {
        let mask = 0x0000_0000_0001_fe00;
        assert_eq!(Formula::Plain.key(0xffff, mask), 0xfe00);
        assert_eq!(Formula::Black.key(0x0200, mask), !mask | 0x0200);
    }

    #[test]
    fn periods() {
        let q = |p, s: &str, f| Question::new(Target::new(p, s.parse::<Square>().unwrap()), 4, f);
        // Bishop d8's lowest mask square is g5 (38): period 2^26.
        assert_eq!(
            q(Piece::Bishop, "d8", Formula::Plain)
                .unwrap()
                .period_bits(),
            26
        );
        // Rook a1's lowest is b1 (1): period 2^63.
        assert_eq!(
            q(Piece::Rook, "a1", Formula::Plain).unwrap().period_bits(),
            63
        );
        assert_eq!(
            q(Piece::Rook, "a1", Formula::Black).unwrap().period_bits(),
            64
        );
        assert!(Question::new(
            Target::new(Piece::Bishop, "a1".parse().unwrap()),
            10,
            Formula::Plain
        )
        .is_err());
    }
}
