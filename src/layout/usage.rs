//! What a table's magics spend, whatever the layout: the slots each square writes (two
//! subsets with equal attack sets may share one), the sum of the per-square spans, and the
//! floor no magic can go below (one slot per distinct attack set of each square).

use crate::attacks::Occupancies;
use crate::piece::{Piece, Target};
use crate::table::Entry;

use super::Pattern;

/// Slots used and spans of a set of magics, per piece (rook, bishop).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Distinct slots the squares write, summed per piece: `[rooks, bishops]`.
    pub slots: [u64; 2],
    /// Sum of the per-square spans (`max_index - min_index + 1`); `None` for the floor.
    pub spans: Option<u64>,
    /// Squares counted.
    pub squares: usize,
}

impl Usage {
    /// The usage of `entries` (each verified: its pattern is built from the reference).
    #[must_use]
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Usage {
        let mut u = Usage {
            spans: Some(0),
            ..Usage::default()
        };
        for e in entries {
            u.slots[e.target.piece as usize] += Pattern::of(e).slots.len() as u64;
            u.spans = u.spans.map(|s| s + u64::from(e.span()));
            u.squares += 1;
        }
        u
    }

    /// The floor: one slot per distinct attack set of every square, the fewest slots any
    /// magics can use.
    #[must_use]
    pub fn floor() -> Usage {
        let mut u = Usage::default();
        for t in Target::all() {
            u.slots[t.piece as usize] += Occupancies::new(t).distinct_attacks() as u64;
            u.squares += 1;
        }
        u
    }

    /// Slots used by both pieces.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.slots[Piece::Rook as usize] + self.slots[Piece::Bishop as usize]
    }

    /// `total (rooks + bishops)`.
    #[must_use]
    pub fn slots_text(&self) -> String {
        format!(
            "{} ({} + {})",
            self.total(),
            self.slots[Piece::Rook as usize],
            self.slots[Piece::Bishop as usize]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_4900_rook_and_1428_bishop_attack_sets() {
        let f = Usage::floor();
        assert_eq!((f.slots, f.squares), ([4900, 1428], 128));
    }
}
