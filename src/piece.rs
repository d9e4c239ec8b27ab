//! Sliding pieces and (piece, square) targets.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;
use crate::square::Square;

/// A sliding piece whose attacks magic bitboards index. Queens use both tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Piece {
    /// Moves along ranks and files.
    Rook,
    /// Moves along diagonals.
    Bishop,
}

impl Piece {
    /// Both pieces, rook first (the order of stores and exports).
    pub const ALL: [Piece; 2] = [Piece::Rook, Piece::Bishop];

    /// Lower-case name, as in the table format: `rook` or `bishop`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Piece::Rook => "rook",
            Piece::Bishop => "bishop",
        }
    }

    /// The four ray directions as (file step, rank step).
    #[must_use]
    pub const fn directions(self) -> [(i32, i32); 4] {
        match self {
            Piece::Rook => [(0, 1), (0, -1), (1, 0), (-1, 0)],
            Piece::Bishop => [(1, 1), (1, -1), (-1, 1), (-1, -1)],
        }
    }

    /// The largest relevant-mask popcount over all squares: 12 for rooks, 9 for bishops.
    /// Index bits from 1 to this are accepted (more than a square's popcount is legal).
    #[must_use]
    pub const fn max_bits(self) -> u32 {
        match self {
            Piece::Rook => 12,
            Piece::Bishop => 9,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Piece {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Piece, ParseError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "rook" | "r" => Ok(Piece::Rook),
            "bishop" | "b" => Ok(Piece::Bishop),
            _ => Err(ParseError::Piece(s.to_string())),
        }
    }
}

/// A (piece, square) pair: one magic, one table, one search.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Target {
    /// The sliding piece.
    pub piece: Piece,
    /// The square it stands on.
    pub square: Square,
}

impl Target {
    /// The target of `piece` on `square`.
    #[must_use]
    pub const fn new(piece: Piece, square: Square) -> Target {
        Target { piece, square }
    }

    /// All 128 targets: the 64 rook squares a1..h8, then the 64 bishop squares.
    pub fn all() -> impl Iterator<Item = Target> {
        Piece::ALL
            .into_iter()
            .flat_map(|p| Square::all().map(move |s| Target::new(p, s)))
    }

    /// Checks that `bits` is a legal index width for this piece (1 to [`Piece::max_bits`]).
    ///
    /// # Errors
    /// [`ParseError::Bits`] naming the value and the legal range.
    pub fn check_bits(self, bits: u32) -> Result<u32, ParseError> {
        if (1..=self.piece.max_bits()).contains(&bits) {
            Ok(bits)
        } else {
            Err(ParseError::Bits {
                bits: bits.into(),
                piece: self.piece.name(),
                max: self.piece.max_bits(),
            })
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.piece, self.square)
    }
}
