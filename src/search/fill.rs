//! Filling a square a store lacks: a popcount-bit magic found on the spot, with a seed
//! derived from the target alone, so an export or a packing of the same store is the same
//! everywhere.

use crate::attacks::relevant_mask;
use crate::magic::Verified;
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};

use super::find_magic_for;

/// The base of the seed that fills a missing square; [`fill_seed`] mixes in the target.
pub const FILL_SEED: u64 = 0x6d61_6769_6368_756e;

/// The seed that fills a missing `target`: [`FILL_SEED`] mixed with the target, so a fill
/// is the same in every export of every store.
#[must_use]
pub fn fill_seed(target: Target) -> u64 {
    let piece = match target.piece {
        Piece::Rook => 0,
        Piece::Bishop => 1,
    };
    FILL_SEED ^ (piece << 6 | target.square.index() as u64)
}

/// The question a fill answers: `target` at its popcount bits under `formula`.
#[must_use]
pub fn fill_question(target: Target, formula: Formula) -> Question {
    Question {
        target,
        bits: relevant_mask(target.piece, target.square).count(),
        formula,
    }
}

/// A popcount-bit magic of `formula` for `target`, found with [`fill_seed`] (verified, as
/// every find is); `None` if the search gives up (never seen).
#[must_use]
pub fn fill_magic(target: Target, formula: Formula) -> Option<Verified> {
    find_magic_for(fill_question(target, formula), fill_seed(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_seeds_differ_per_target() {
        let seeds: std::collections::BTreeSet<u64> = Target::all().map(fill_seed).collect();
        assert_eq!(seeds.len(), 128);
    }
}
