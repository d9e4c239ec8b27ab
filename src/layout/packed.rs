//! Packed tables in the table format: every entry carries its `offset` into one shared array,
//! and the top level says `"layout": "packed"` and, under `packed_table`, the size the array
//! needs (`declared_size_entries`) and the slots it uses (`slots_actually_used`), the shape of
//! the published packed tables in `results/published/`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::shared::{fill, Fill, Overlap};
use super::{Layout, LayoutError};
use crate::question::Formula;
use crate::size::kib;
use crate::table::wire::TableWire;
use crate::table::{entry_wire, Entry, Table};

/// One square of a packed table.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedEntry {
    /// The verified magic (with its formula).
    pub entry: Entry,
    /// Where its index 0 lies in the shared array.
    pub offset: u32,
}

/// A packed table: the squares with their offsets, and what the file states about the array.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedTable {
    /// The squares, in file order.
    pub entries: Vec<PackedEntry>,
    /// The array size the file declares (`packed_table.declared_size_entries`).
    pub declared: Option<u64>,
    /// The slots used the file states (`packed_table.slots_actually_used`).
    pub stated_used: Option<u64>,
    /// Other top-level fields, kept as they are (`source`, `about`, ...).
    pub meta: BTreeMap<String, Value>,
}

/// Whether `table` is of the packed layout: `"layout": "packed"` or a `packed_table` object.
#[must_use]
pub fn is_packed(table: &Table) -> bool {
    table.meta.get("layout").and_then(Value::as_str) == Some(Layout::Packed.name())
        || table.meta.contains_key("packed_table")
}

/// The size of the shared array of `entries` with nothing shared: the sum of their `2^bits`.
/// A packed table larger than this packs worse than no packing at all, so every offset of one
/// is bounded by it before an array is sized from it (one offset of 2^32 would otherwise ask
/// for 96 GiB).
pub fn unshared_size<'a>(entries: impl Iterator<Item = &'a Entry>) -> u64 {
    entries.map(|e| 1u64 << e.bits).sum()
}

impl PackedTable {
    /// Reads the packed layout of a checked table (every entry already verified).
    ///
    /// # Errors
    /// [`LayoutError::Format`] when it is not packed, an entry has no whole `offset` up to
    /// [`MAX_OFFSET`](super::MAX_OFFSET), a square
    /// is listed twice, or `packed_table` is malformed.
    pub fn from_table(table: &Table) -> Result<PackedTable, LayoutError> {
        if !is_packed(table) {
            return Err(LayoutError::Format(
                "not a packed table (no `\"layout\": \"packed\"` and no `packed_table`)".into(),
            ));
        }
        let mut seen = BTreeSet::new();
        let mut entries = Vec::with_capacity(table.entries.len());
        let limit = unshared_size(table.entries.iter());
        for (k, e) in table.entries.iter().enumerate() {
            let offset = super::whole_field(e, k, "offset", "a packed table")?;
            // Bounded before anything is sized from it: no square of a packed table reaches
            // past what its magics take unshared, each at its own 2^bits.
            let end = u64::from(offset) + u64::from(e.max_index) + 1;
            if end > limit {
                return Err(LayoutError::Format(format!(
                    "entry {k} ({}): offset {offset} puts its slots up to {end}, past {limit}, what the table's {} magics take unshared (each its own 2^bits): not a packed table",
                    e.target,
                    table.entries.len()
                )));
            }
            if !seen.insert(e.target) {
                return Err(LayoutError::Format(format!(
                    "entry {k}: {} is listed twice",
                    e.target
                )));
            }
            entries.push(PackedEntry {
                entry: e.clone(),
                offset,
            });
        }
        let figure = |key: &str| -> Result<Option<u64>, LayoutError> {
            match table.meta.get("packed_table").map(|p| p.get(key)) {
                None | Some(None) => Ok(None),
                Some(Some(v)) => v.as_u64().map(Some).ok_or_else(|| {
                    LayoutError::Format(format!("`packed_table.{key}` is not a whole number"))
                }),
            }
        };
        let mut meta = table.meta.clone();
        meta.remove("packed_table");
        meta.remove("layout");
        Ok(PackedTable {
            entries,
            declared: figure("declared_size_entries")?,
            stated_used: figure("slots_actually_used")?,
            meta,
        })
    }

    /// Fills the shared array with every subset of every square (see [`fill`]).
    ///
    /// # Errors
    /// The first [`Overlap`].
    pub fn fill(&self) -> Result<Fill, Box<Overlap>> {
        let pairs: Vec<(&Entry, u32)> = self.entries.iter().map(|p| (&p.entry, p.offset)).collect();
        fill(&pairs)
    }

    /// The whole check: fills the array, then compares its size and slots used with what the
    /// file states (a file that states no size is refused: the size is what a packed table
    /// promises).
    ///
    /// # Errors
    /// [`LayoutError`]: an overlap, a size or a slots-used figure that does not match.
    pub fn check(&self) -> Result<Fill, LayoutError> {
        let f = self.fill().map_err(LayoutError::Overlap)?;
        let Some(declared) = self.declared else {
            return Err(LayoutError::Format(format!(
                "`packed_table.declared_size_entries` is missing (filling it needs {} entries)",
                f.size
            )));
        };
        if declared != f.size {
            return Err(LayoutError::Size {
                declared,
                computed: f.size,
            });
        }
        if let Some(stated) = self.stated_used.filter(|&u| u != f.used) {
            return Err(LayoutError::Used {
                stated,
                computed: f.used,
            });
        }
        Ok(f)
    }

    /// The formula every entry shares, if they share one.
    #[must_use]
    pub fn formula(&self) -> Option<Formula> {
        let first = self.entries.first()?.entry.formula;
        self.entries
            .iter()
            .all(|p| p.entry.formula == first)
            .then_some(first)
    }

    /// Per piece, the bits of its squares when they all share one (fixed shift), else `None`.
    #[must_use]
    pub fn fixed_bits(&self, piece: crate::Piece) -> Option<u32> {
        let mut bits = self
            .entries
            .iter()
            .filter(|p| p.entry.target.piece == piece)
            .map(|p| p.entry.bits);
        let first = bits.next()?;
        bits.all(|b| b == first).then_some(first)
    }

    /// The table as JSON in the table format, with `fill` (the result of [`PackedTable::check`]
    /// or [`PackedTable::fill`]) as its `packed_table` figures; the same table gives the same
    /// bytes.
    #[must_use]
    pub fn to_json(&self, fill: &Fill) -> String {
        let mut meta = self.meta.clone();
        meta.insert("layout".into(), json!(Layout::Packed.name()));
        if let Some(f) = self.formula() {
            meta.insert("formula".into(), json!(f.name()));
        }
        meta.insert(
            "packed_table".into(),
            json!({
                "declared_size_entries": fill.size,
                "computed_size_entries": fill.size,
                "computed_size_KiB": kib(fill.size),
                "slots_actually_used": fill.used,
                "shared_slots": fill.shared,
                "verified_valid": true,
            }),
        );
        let entries = self
            .entries
            .iter()
            .map(|p| {
                let mut w = entry_wire(&p.entry);
                w.extra.insert("offset".into(), json!(p.offset));
                w
            })
            .collect();
        let wire = TableWire::of_entries(meta, entries);
        let mut s = serde_json::to_string_pretty(&wire).expect("a packed table serializes");
        s.push('\n');
        s
    }
}
