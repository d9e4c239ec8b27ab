//! The slow reference: relevant-occupancy masks and ray-walk attacks.
//!
//! Everything else in magichunt (the search, verify, the exports' tests) trusts these two
//! functions. They are written for clarity, not speed, and are checked in the tests against an
//! independent formulation (line attacks by `o ^ (o - 2r)`) over every subset of every square.

use crate::bitboard::Bitboard;
use crate::piece::{Piece, Target};
use crate::square::Square;

/// Squares a slider on `sq` attacks, given the `occupied` squares: each ray runs from the
/// square outward and stops at, and includes, the first occupied square.
///
/// ```
/// use magichunt::{attacks::attacks_slow, Bitboard, Piece, Square};
/// let e4: Square = "e4".parse().unwrap();
/// let e6: Square = "e6".parse().unwrap();
/// let att = attacks_slow(Piece::Rook, e4, Bitboard::EMPTY.with(e6));
/// assert_eq!(att.count(), 7 + 5);
/// ```
///
/// The rook on e4 with a blocker on e6 attacks:
///
/// ```text
/// 8 . . . . . . . .
/// 7 . . . . . . . .
/// 6 . . . . 1 . . .
/// 5 . . . . 1 . . .
/// 4 1 1 1 1 . 1 1 1
/// 3 . . . . 1 . . .
/// 2 . . . . 1 . . .
/// 1 . . . . 1 . . .
///   a b c d e f g h
/// ```
#[must_use]
pub fn attacks_slow(piece: Piece, sq: Square, occupied: Bitboard) -> Bitboard {
    let mut att = Bitboard::EMPTY;
    for (df, dr) in piece.directions() {
        let mut cur = sq;
        while let Some(next) = cur.offset(df, dr) {
            att = att.with(next);
            if occupied.contains(next) {
                break;
            }
            cur = next;
        }
    }
    att
}

/// The relevant-occupancy mask of `piece` on `sq`: every ray square except the last one of each
/// ray (a blocker on the board's edge changes nothing). The rook on e4 has 10:
///
/// ```text
/// 8 . . . . . . . .
/// 7 . . . . 1 . . .
/// 6 . . . . 1 . . .
/// 5 . . . . 1 . . .
/// 4 . 1 1 1 . 1 1 .
/// 3 . . . . 1 . . .
/// 2 . . . . 1 . . .
/// 1 . . . . . . . .
///   a b c d e f g h
/// ```
#[must_use]
pub fn relevant_mask(piece: Piece, sq: Square) -> Bitboard {
    let mut mask = Bitboard::EMPTY;
    for (df, dr) in piece.directions() {
        let mut cur = sq;
        while let Some(next) = cur.offset(df, dr) {
            if next.offset(df, dr).is_none() {
                break;
            }
            mask = mask.with(next);
            cur = next;
        }
    }
    mask
}

/// Every blocker subset of a target's mask with its attack set, in carry-rippler order:
/// the (question, answer) pairs that a magic must hash without destructive collision.
#[derive(Clone, Debug)]
pub struct Occupancies {
    /// The target these pairs belong to.
    pub target: Target,
    /// The relevant-occupancy mask.
    pub mask: Bitboard,
    /// `(subset, attacks_slow(subset))`, 2^popcount pairs, the empty subset first.
    pub pairs: Vec<(Bitboard, Bitboard)>,
}

impl Occupancies {
    /// Builds the pairs of `target` from the slow reference.
    #[must_use]
    pub fn new(target: Target) -> Occupancies {
        let mask = relevant_mask(target.piece, target.square);
        let pairs = mask
            .subsets()
            .map(|occ| (occ, attacks_slow(target.piece, target.square, occ)))
            .collect();
        Occupancies {
            target,
            mask,
            pairs,
        }
    }

    /// Number of distinct attack sets among all subsets.
    #[must_use]
    pub fn distinct_attacks(&self) -> usize {
        let mut atts: Vec<u64> = self.pairs.iter().map(|p| p.1 .0).collect();
        atts.sort_unstable();
        atts.dedup();
        atts.len()
    }

    /// The fewest index bits any magic could use: `ceil(log2(distinct attack sets))`, since a
    /// table needs at least one slot per distinct attack set.
    #[must_use]
    pub fn lower_bound_bits(&self) -> u32 {
        let n = self.distinct_attacks();
        n.next_power_of_two().trailing_zeros()
    }
}

#[cfg(test)]
mod tests;
