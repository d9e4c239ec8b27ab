//! Table layouts: how the magics of all 128 squares share memory, and what that costs.
//!
//! - **fancy**: one table per square, `2^bits` entries each (offsets in square order);
//! - **tight**: the same, but each square takes only the slots from its lowest to its highest
//!   index ([`Entry::span`]: `max_index + 1` for a plain magic, `max_index - min_index + 1` for
//!   a black one, whose lowest index is rarely 0);
//! - **packed**: one array shared by every square of both pieces, each square at an offset
//!   chosen so that its slots fall into slots no other square uses, or that hold the same
//!   attack set ([`shared`] fills and checks such an array, [`pack`] chooses the offsets,
//!   [`packed`] reads and writes packed tables);
//! - **indexed**: the packed layout with one-byte slots: a slot holds the id of an attack set
//!   in its square's list, two squares may share a slot where their ids are equal, and the
//!   lists hold the bitboards ([`indexed`] reads, checks and writes such tables, [`lists`]
//!   lays out the lists, [`ids`] is the packer's view of the id array).
//!
//! Verify, store, compare and export see layouts only through this module; the index formula
//! of each entry is its [`Formula`](crate::question::Formula), and a slot is always
//! `offset + index_with(formula, occ, mask, magic, bits)`.

pub mod anneal;
pub mod ids;
pub mod indexed;
pub mod lists;
pub mod occupancy;
pub mod pack;
pub mod pack_indexed;
pub mod packed;
pub mod refit;
pub mod shared;
pub mod usage;

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;
use crate::table::Entry;

pub use indexed::{IndexedEntry, IndexedFill, IndexedTable};
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
    /// One array of one-byte ids shared by all squares, and lists of attack sets.
    Indexed,
}

impl Layout {
    /// The four layouts, largest first.
    pub const ALL: [Layout; 4] = [
        Layout::Fancy,
        Layout::Tight,
        Layout::Packed,
        Layout::Indexed,
    ];

    /// The name the table format and the command line use (`fancy`, `tight`, `packed`,
    /// `indexed`; the JSON export writes it as the top-level `layout`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Fancy => "fancy",
            Layout::Tight => "tight",
            Layout::Packed => "packed",
            Layout::Indexed => "indexed",
        }
    }

    /// Entries one square takes in a per-square layout (`None` for packed and indexed: that
    /// depends on the other squares).
    #[must_use]
    pub fn square_size(self, e: &Entry) -> Option<u64> {
        match self {
            Layout::Fancy => Some(1u64 << e.bits),
            Layout::Tight => Some(u64::from(e.span())),
            Layout::Packed | Layout::Indexed => None,
        }
    }

    /// Whether all squares share one array (packed and indexed).
    #[must_use]
    pub const fn shared(self) -> bool {
        matches!(self, Layout::Packed | Layout::Indexed)
    }
}

/// The highest offset a packed or indexed table may give a square: 4,194,304, eight times the
/// largest fancy table (128 squares at 12 bits). A file with one past it is refused when read,
/// before anything as large is allocated.
pub const MAX_OFFSET: u32 = 1 << 22;

/// The whole number `key` (an `offset` or a `list`) of entry `k` of a table of `kind`, up to
/// [`MAX_OFFSET`]: a larger one is refused before anything is sized from it.
fn whole_field(
    e: &crate::table::Entry,
    k: usize,
    key: &str,
    kind: &str,
) -> Result<u32, LayoutError> {
    let value = e.extra.get(key).and_then(serde_json::Value::as_u64);
    let Some(v) = value else {
        return Err(LayoutError::Format(format!(
            "entry {k} ({}) has no whole `{key}`: not {kind}",
            e.target
        )));
    };
    u32::try_from(v)
        .ok()
        .filter(|&v| v <= MAX_OFFSET)
        .ok_or_else(|| {
            LayoutError::Format(format!(
                "entry {k} ({}): {key} {v} is past {MAX_OFFSET}, the most a table may use: not {kind}",
                e.target
            ))
        })
}

/// Bytes of one square's magic in the C export of the 8-byte layouts (`struct magic_entry`:
/// mask and magic, 8 bytes each, shift and offset, 4 each).
pub const MAGIC_BYTES: u64 = 24;

/// Bytes of the data of an 8-byte layout's C export, as `nm -S` counts its objects: the
/// attack table (8 bytes an entry) and the magics of `squares` squares.
#[must_use]
pub const fn table_bytes(entries: u64, squares: u64) -> u64 {
    entries * crate::size::ENTRY_BYTES + squares * MAGIC_BYTES
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
                    "invalid layout '{s}' (expected fancy, tight, packed or indexed)"
                ))
            })
    }
}

/// Entries of a per-square layout of `entries`: the sum of [`Layout::square_size`].
///
/// # Panics
/// On [`Layout::Packed`] and [`Layout::Indexed`], whose size needs offsets (see [`pack`] and
/// [`fill`]).
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
    /// A square's ids do not read its attack sets from the lists (indexed tables).
    #[error("{0}")]
    Lists(String),
    /// Two squares write different ids to one slot of the id array (indexed tables).
    #[error("{0}")]
    IdClash(Box<indexed::IdClash>),
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
