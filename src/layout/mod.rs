//! Table layouts: how the magics of all 128 squares share memory, and what that costs.
//!
//! - **fancy**: one table per square, `2^bits` entries each (offsets in square order);
//! - **tight**: the same, but each square takes only the slots from its lowest to its highest
//!   index ([`Entry::span`]: `max_index + 1` for a plain magic, `max_index - min_index + 1` for
//!   a black one, whose lowest index is rarely 0);
//! - **packed**: one array shared by every square of both pieces, each square at an offset
//!   chosen so that its slots fall into slots no other square uses, or that hold the same
//!   attack set ([`shared`] fills and checks such an array, [`pack`] chooses the offsets,
//!   [`packed`] reads and writes packed tables).
//!
//! Verify, store, compare and export see layouts only through this module; the index formula
//! of each entry is its [`Formula`](crate::question::Formula), and a slot is always
//! `offset + index_with(formula, occ, mask, magic, bits)`.

pub mod anneal;
pub mod occupancy;
pub mod pack;
pub mod packed;
pub mod refit;
pub mod shared;
pub mod usage;

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;
use crate::table::Entry;

pub use packed::{PackedEntry, PackedTable};
pub use shared::{fill, Fill, Overlap, Pattern, Shared};
pub use usage::Usage;

/// How the squares' tables are laid out in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layout {
    /// One table per square of `2^bits` entries.
    Fancy,
    /// One table per square of [`Entry::span`] entries.
    Tight,
    /// One array shared by all squares, each at its own offset.
    Packed,
}

impl Layout {
    /// The three layouts, largest first.
    pub const ALL: [Layout; 3] = [Layout::Fancy, Layout::Tight, Layout::Packed];

    /// The name the table format and the command line use (`fancy`, `tight`, `packed`; the
    /// JSON export writes it as the top-level `layout`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Fancy => "fancy",
            Layout::Tight => "tight",
            Layout::Packed => "packed",
        }
    }

    /// Entries one square takes in a per-square layout (`None` for packed: that depends on
    /// the other squares).
    #[must_use]
    pub fn square_size(self, e: &Entry) -> Option<u64> {
        match self {
            Layout::Fancy => Some(1u64 << e.bits),
            Layout::Tight => Some(u64::from(e.span())),
            Layout::Packed => None,
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layout {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Layout, ParseError> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                ParseError::Other(format!(
                    "invalid layout '{s}' (expected fancy, tight or packed)"
                ))
            })
    }
}

/// Entries of a per-square layout of `entries`: the sum of [`Layout::square_size`].
///
/// # Panics
/// On [`Layout::Packed`], whose size needs offsets (see [`pack`] and [`fill`]).
pub fn per_square_size<'a>(layout: Layout, entries: impl IntoIterator<Item = &'a Entry>) -> u64 {
    entries
        .into_iter()
        .map(|e| layout.square_size(e).expect("a per-square layout"))
        .sum()
}

/// Why a packed table cannot be used or made.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// The table is not of the packed layout, or its layout fields are malformed.
    #[error("{0}")]
    Format(String),
    /// Two squares write different attack sets to one slot of the shared array.
    #[error("{0}")]
    Overlap(Box<Overlap>),
    /// The size the file declares is not the size its offsets need.
    #[error("the table declares {declared} entries, but its offsets need {computed}")]
    Size {
        /// What the file says.
        declared: u64,
        /// Highest slot written plus one.
        computed: u64,
    },
    /// The slots-used figure the file states is not what filling gives.
    #[error("the table states {stated} slots used, but filling it uses {computed}")]
    Used {
        /// What the file says.
        stated: u64,
        /// Distinct slots written.
        computed: u64,
    },
}

#[cfg(test)]
mod tests;
