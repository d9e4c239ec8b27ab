//! Squares in little-endian rank-file order (LERF): a1 = 0, b1 = 1, ..., h8 = 63.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;

/// One of the 64 squares, LERF-numbered: a1 = 0, b1 = 1, ..., a2 = 8, ..., h8 = 63.
///
/// Parses from `a1`..`h8` in any case and from `0`..`63`; prints as `a1`.
///
/// ```
/// use magichunt::Square;
/// let e4: Square = "E4".parse().unwrap();
/// assert_eq!(e4.index(), 28);
/// assert_eq!(e4, "28".parse().unwrap());
/// assert_eq!(e4.to_string(), "e4");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// Number of squares on the board.
    pub const NUM: usize = 64;

    /// The square with LERF index `index`, or `None` when `index > 63`.
    #[must_use]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), or `None` off the board.
    #[must_use]
    pub const fn from_coords(file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && file < 8 && rank >= 0 && rank < 8 {
            Some(Square((rank * 8 + file) as u8))
        } else {
            None
        }
    }

    /// All 64 squares from a1 to h8.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator + Clone {
        (0..64u8).map(Square)
    }

    /// LERF index, 0 (a1) to 63 (h8).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 (a) to 7 (h).
    #[must_use]
    pub const fn file(self) -> i32 {
        (self.0 & 7) as i32
    }

    /// Rank, 0 (rank 1) to 7 (rank 8).
    #[must_use]
    pub const fn rank(self) -> i32 {
        (self.0 >> 3) as i32
    }

    /// The square `df` files and `dr` ranks away, or `None` off the board.
    #[must_use]
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        Square::from_coords(self.file() + df, self.rank() + dr)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = (b'a' + self.0 % 8) as char;
        let rank = (b'1' + self.0 / 8) as char;
        write!(f, "{file}{rank}")
    }
}

impl FromStr for Square {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Square, ParseError> {
        let bad = || ParseError::Square(s.to_string());
        let t = s.trim();
        if let Ok(n) = t.parse::<u8>() {
            return Square::new(n).ok_or_else(bad);
        }
        match t.as_bytes() {
            [f, r] => {
                let file = i32::from(f.to_ascii_lowercase()) - i32::from(b'a');
                let rank = i32::from(*r) - i32::from(b'1');
                Square::from_coords(file, rank).ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lerf_numbering() {
        let at = |s: &str| s.parse::<Square>().unwrap().index();
        assert_eq!(at("a1"), 0);
        assert_eq!(at("b1"), 1);
        assert_eq!(at("h1"), 7);
        assert_eq!(at("a2"), 8);
        assert_eq!(at("e4"), 28);
        assert_eq!(at("h8"), 63);
        assert_eq!(at("H8"), 63);
        assert_eq!(at("63"), 63);
        assert_eq!(at("0"), 0);
    }

    #[test]
    fn round_trip_and_rejects() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
            assert_eq!(sq.index().to_string().parse::<Square>().unwrap(), sq);
        }
        for bad in ["i9", "a9", "a0", "64", "-1", "", "e", "e44", "ä1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?} parsed");
        }
    }
}
