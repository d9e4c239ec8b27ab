//! Bitboards: sets of squares as a `u64`, bit `i` is square `i` (LERF).

use std::fmt;

use crate::square::Square;

/// A set of squares; bit `i` is `Square` number `i` (a1 = bit 0, h8 = bit 63).
///
/// `Display` draws the board with rank 8 on top, `1` for a member square:
///
/// ```text
/// 8 . . . . . . . .
/// 7 . . . . . . . .
/// 6 . . . . . . . .
/// 5 . . . . . . . .
/// 4 . . . . 1 . . .      Bitboard(1 << 28): e4
/// 3 . . . . . . . .
/// 2 . . . . . . . .
/// 1 . . . . . . . .
///   a b c d e f g h
/// ```
#[derive(Copy, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set of `sq` alone.
    #[must_use]
    pub const fn square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Number of squares in the set.
    #[must_use]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `sq` is in the set.
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set with `sq` added.
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The lowest square of the set, or `None` when empty.
    #[must_use]
    pub const fn lowest(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Square::new(self.0.trailing_zeros() as u8)
        }
    }

    /// The member squares from lowest to highest.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            let sq = Bitboard(rest).lowest()?;
            rest &= rest - 1;
            Some(sq)
        })
    }

    /// Every subset of this set, from the empty set up, by the carry-rippler trick.
    pub fn subsets(self) -> Subsets {
        Subsets {
            set: self.0,
            next: Some(0),
        }
    }

    /// Subset number `n` of this set: bit `k` of `n` says whether the `k`-th member square,
    /// counted from the lowest, is in the subset (so subset 0 is empty, `2^count - 1` is all).
    #[must_use]
    pub fn subset_number(self, n: u64) -> Bitboard {
        let mut out = 0;
        for (k, sq) in self.squares().enumerate() {
            if n >> k & 1 != 0 {
                out |= 1 << sq.index();
            }
        }
        Bitboard(out)
    }

    /// The board as eight lines of `.` and `1`, rank 8 first, with rank and file labels.
    #[must_use]
    pub fn board_lines(self) -> Vec<String> {
        let mut lines = Vec::with_capacity(9);
        for rank in (0..8).rev() {
            let mut line = format!("{}", rank + 1);
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).expect("on the board");
                line.push_str(if self.contains(sq) { " 1" } else { " ." });
            }
            lines.push(line);
        }
        lines.push("  a b c d e f g h".to_string());
        lines
    }
}

/// Draws several boards side by side under their captions, for terminal output.
#[must_use]
pub fn side_by_side(boards: &[(&str, Bitboard)]) -> String {
    const WIDTH: usize = 17;
    let mut out = String::new();
    let captions: Vec<String> = boards.iter().map(|(c, _)| format!("{c:<WIDTH$}")).collect();
    out.push_str(captions.join("   ").trim_end());
    out.push('\n');
    let drawn: Vec<Vec<String>> = boards.iter().map(|(_, b)| b.board_lines()).collect();
    for row in 0..9 {
        let cells: Vec<String> = drawn
            .iter()
            .map(|d| format!("{:<WIDTH$}", d[row]))
            .collect();
        out.push_str(cells.join("   ").trim_end());
        out.push('\n');
    }
    out
}

/// The one-square set: `Bitboard::from(e4)` is `Bitboard(1 << 28)`.
impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::square(sq)
    }
}

impl fmt::Display for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in self.board_lines() {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

/// Iterator over all subsets of a set (carry-rippler order: 0 first, the full set last).
#[derive(Clone, Debug)]
pub struct Subsets {
    set: u64,
    next: Option<u64>,
}

impl Iterator for Subsets {
    type Item = Bitboard;

    fn next(&mut self) -> Option<Bitboard> {
        let cur = self.next?;
        let after = cur.wrapping_sub(self.set) & self.set;
        self.next = (after != 0).then_some(after);
        Some(Bitboard(cur))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_all_distinct_and_inside() {
        let set = Bitboard(0x0000_0000_0000_817e);
        let all: Vec<_> = set.subsets().collect();
        assert_eq!(all.len(), 1 << set.count());
        let mut sorted: Vec<u64> = all.iter().map(|b| b.0).collect();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
        assert!(all.iter().all(|b| b.0 & !set.0 == 0));
        assert_eq!(all[0], Bitboard::EMPTY);
        assert_eq!(*all.last().unwrap(), set);
    }

    #[test]
    fn board_is_drawn_rank_eight_first() {
        let text = Bitboard(1 << 28 | 1 << 63).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "8 . . . . . . . 1");
        assert_eq!(lines[4], "4 . . . . 1 . . .");
        assert_eq!(lines[8], "  a b c d e f g h");
    }
}
