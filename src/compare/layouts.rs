//! Table sizes by layout, ours beside the smallest published table of each: fancy (`2^bits`
//! per square), tight (each square's span of slots), packed (one shared array of 8-byte
//! attack sets) and indexed (one shared array of one-byte ids, and lists), for plain and
//! black magics, in entries and in bytes, each table named by its category.
//!
//! The category is the lookup a table needs: **per-square shifts** (each square's own bits,
//! the shift read from its entry, as Stockfish's fancy lookup) or **fixed shift** (one shift
//! per piece, every rook at 12 bits and every bishop at 9: the lookup hard-codes it, and a
//! better table there is a drop-in). A fixed-shift table also works with the per-square
//! lookup, so it counts in both rows; a per-square table never in the fixed-shift one.

use std::sync::atomic::AtomicBool;

use crate::layout::pack::{pack_entries, PackOptions};
use crate::layout::{
    lists, per_square_size, table_bytes, Fill, IndexedFill, IndexedTable, Layout, PackedTable,
    Usage,
};
use crate::piece::Piece;
use crate::published;
use crate::question::Formula;
use crate::store::Store;
use crate::table::Entry;

/// The lookup a table needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shift {
    /// Each square's own bits (the shift read per square).
    PerSquare,
    /// Every rook at 12 bits, every bishop at 9 (one shift per piece, hard-coded).
    Fixed,
}

impl Shift {
    /// The category of `entries`: fixed shift when every rook has 12 bits and every bishop 9.
    #[must_use]
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Shift {
        let fixed = entries.into_iter().all(|e| match e.target.piece {
            Piece::Rook => e.bits == 12,
            Piece::Bishop => e.bits == 9,
        });
        if fixed {
            Shift::Fixed
        } else {
            Shift::PerSquare
        }
    }

    /// `per-square shifts` or `fixed shift`.
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Shift::PerSquare => "per-square shifts",
            Shift::Fixed => "fixed shift",
        }
    }

    /// `per-square` or `fixed`, for the JSON documents.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Shift::PerSquare => "per-square",
            Shift::Fixed => "fixed",
        }
    }

    /// Whether a table of this category can be used with `row`'s lookup.
    #[must_use]
    pub fn fits(self, row: Shift) -> bool {
        row == Shift::PerSquare || self == Shift::Fixed
    }
}

/// One side of a layout row: entries, bytes, squares counted, how the figure was made and the
/// table's category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// Entries of the table: 8-byte attack sets, or (indexed) one-byte ids.
    pub entries: u64,
    /// Bytes of the data of its C export, as `nm -S` counts them: the tables and the magics.
    pub bytes: u64,
    /// Squares it holds (of 128).
    pub squares: usize,
    /// Where the figure comes from (`the store`, a file, a published table).
    pub how: String,
    /// The lookup the table needs.
    pub shift: Shift,
}

/// One layout, formula and category: our size and the smallest published one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutRow {
    /// The layout.
    pub layout: Layout,
    /// The index formula.
    pub formula: Formula,
    /// The lookup of the row: tables of that category (fixed-shift ones count as per-square
    /// too).
    pub shift: Shift,
    /// Ours: `None` when we have no such table.
    pub ours: Option<Size>,
    /// The smallest published, with its source: `None` when none is published.
    pub theirs: Option<Size>,
}

impl Size {
    /// `N (K KiB), B B`, or for the ids of an indexed table `N ids, B B (K KiB)`; with the
    /// squares when fewer than 128.
    #[must_use]
    pub fn text(&self, layout: Layout) -> String {
        let mut s = if layout == Layout::Indexed {
            format!(
                "{} ids, {} B ({} KiB)",
                self.entries,
                self.bytes,
                crate::size::kib_bytes(self.bytes)
            )
        } else {
            format!(
                "{} ({} KiB), {} B",
                self.entries,
                crate::size::kib(self.entries),
                self.bytes
            )
        };
        if self.squares < 128 {
            s.push_str(&format!(" {}/128", self.squares));
        }
        s
    }
}

impl LayoutRow {
    /// `packed, plain` and the like, with `, fixed shift` for the fixed-shift rows.
    #[must_use]
    pub fn name(&self) -> String {
        match self.shift {
            Shift::PerSquare => format!("{}, {}", self.layout, self.formula),
            Shift::Fixed => format!("{}, {}, fixed shift", self.layout, self.formula),
        }
    }

    /// Smaller in bytes than the smallest published table of its layout, formula and
    /// category, with all 128 squares: a record in that metric.
    #[must_use]
    pub fn record(&self) -> bool {
        match (&self.ours, &self.theirs) {
            (Some(o), Some(t)) => o.squares == 128 && o.bytes < t.bytes,
            _ => false,
        }
    }
}

/// A table of ours given to `compare` (`--packed FILE`), checked.
#[derive(Clone, Debug, PartialEq)]
pub enum OurTable {
    /// A packed table and its fill.
    Packed(PackedTable, Fill),
    /// An indexed table and its fill.
    Indexed(IndexedTable, IndexedFill),
}

/// A named table of ours, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct OurFile {
    /// How to name it (the path given).
    pub name: String,
    /// The table.
    pub table: OurTable,
}

impl OurFile {
    /// Its entries.
    fn entries(&self) -> Vec<&Entry> {
        match &self.table {
            OurTable::Packed(t, _) => t.entries.iter().map(|p| &p.entry).collect(),
            OurTable::Indexed(t, _) => t.entries.iter().map(|p| &p.entry).collect(),
        }
    }

    /// Its layout.
    #[must_use]
    pub fn layout(&self) -> Layout {
        match &self.table {
            OurTable::Packed(..) => Layout::Packed,
            OurTable::Indexed(..) => Layout::Indexed,
        }
    }

    /// Its formula, when every entry shares one.
    fn formula(&self) -> Option<Formula> {
        match &self.table {
            OurTable::Packed(t, _) => t.formula(),
            OurTable::Indexed(t, _) => t.formula(),
        }
    }

    /// Its size.
    fn size(&self) -> Size {
        let entries = self.entries();
        let (n, bytes) = match &self.table {
            OurTable::Packed(_, f) => (f.size, table_bytes(f.size, entries.len() as u64)),
            OurTable::Indexed(_, f) => (f.size, f.bytes().total()),
        };
        Size {
            entries: n,
            bytes,
            squares: entries.len(),
            how: self.name.clone(),
            shift: Shift::of(entries.iter().copied()),
        }
    }
}

/// The size of a published packed table.
fn published_packed(name: &str, t: &PackedTable) -> Size {
    let size = t.declared.unwrap_or_default();
    Size {
        entries: size,
        bytes: table_bytes(size, t.entries.len() as u64),
        squares: t.entries.len(),
        how: name.to_string(),
        shift: Shift::of(t.entries.iter().map(|p| &p.entry)),
    }
}

/// The smallest published table of each layout, formula and category. Plain fancy and tight:
/// the best published bits per square (`records.json`); packed: the published packed tables
/// (Annuss's fixed shift 2017, plain; Annuss and Fiekas 2017, black), which are fixed shift
/// and so count in both categories; black fancy and tight: the Annuss and Fiekas table laid
/// out per square (the only published black magics); indexed: none published.
fn theirs(layout: Layout, formula: Formula, shift: Shift) -> Option<Size> {
    let per_square = |entries: Vec<&Entry>, how: String| {
        let size = per_square_size(layout, entries.iter().copied());
        Size {
            entries: size,
            bytes: table_bytes(size, entries.len() as u64),
            squares: entries.len(),
            how,
            shift: Shift::of(entries.iter().copied()),
        }
    };
    let found = match (layout, formula) {
        (Layout::Indexed, _) => None,
        (Layout::Packed, f) => {
            let (name, t) = published::best_packed(f);
            Some(published_packed(name, t))
        }
        (l, Formula::Plain) => {
            let records: Vec<&Entry> = crate::piece::Target::all()
                .filter_map(published::best)
                .collect();
            debug_assert!(l != Layout::Packed);
            Some(per_square(records, "best published bits per square".into()))
        }
        (_, Formula::Black) => {
            let (name, t) = published::best_packed(Formula::Black);
            Some(per_square(
                t.entries.iter().map(|p| &p.entry).collect(),
                name.to_string(),
            ))
        }
    };
    found.filter(|s| s.shift.fits(shift))
}

/// Our quick packing of the store's magics of `formula` in `layout` (packed or indexed):
/// first-fit decreasing, no improvement steps (`magichunt pack` goes further); indexed, the
/// same offsets with one-byte ids and the shared lists.
fn quick(entries: &[Entry], layout: Layout) -> Option<Size> {
    if entries.is_empty() {
        return None;
    }
    let opts = PackOptions {
        steps: 0,
        ..PackOptions::default()
    };
    let (table, f, _) = pack_entries(entries, None, &opts, &AtomicBool::new(false)).ok()?;
    let how = "first-fit decreasing of the store".to_string();
    let shift = Shift::of(entries);
    if layout == Layout::Indexed {
        let placed = table
            .entries
            .into_iter()
            .map(|p| (p.entry, p.offset))
            .collect();
        let mut indexed = IndexedTable::new(placed, lists::shared());
        indexed.declared = Some(f.size);
        let fill = indexed.check().ok()?;
        return Some(Size {
            entries: fill.size,
            bytes: fill.bytes().total(),
            squares: entries.len(),
            how: format!("{how}, one-byte ids with the shared lists"),
            shift,
        });
    }
    Some(Size {
        entries: f.size,
        bytes: table_bytes(f.size, entries.len() as u64),
        squares: entries.len(),
        how,
        shift,
    })
}

/// Ours in a shared layout: the smallest in bytes of the store's quick packing and the files
/// of that layout, formula and a category that fits the row (more squares first).
fn ours_shared(
    entries: &[Entry],
    files: &[OurFile],
    layout: Layout,
    formula: Formula,
    shift: Shift,
) -> Option<Size> {
    let mut best = quick(entries, layout).filter(|s| s.shift.fits(shift));
    for f in files
        .iter()
        .filter(|f| f.layout() == layout && f.formula() == Some(formula))
    {
        let size = f.size();
        if !size.shift.fits(shift) {
            continue;
        }
        let key = |s: &Size| (s.squares, std::cmp::Reverse(s.bytes));
        if best.as_ref().is_none_or(|b| key(&size) > key(b)) {
            best = Some(size);
        }
    }
    best
}

/// The rows: plain then black, each fancy, tight, packed and indexed with per-square shifts,
/// then packed and indexed with a fixed shift where ours or theirs has one. `files` are
/// tables of ours, already checked, that may beat the store's quick packing.
#[must_use]
pub fn layout_rows(store: &Store, files: &[OurFile]) -> Vec<LayoutRow> {
    let mut rows = Vec::new();
    for formula in Formula::ALL {
        let entries: Vec<Entry> = store.entries_with(formula).cloned().collect();
        for shift in [Shift::PerSquare, Shift::Fixed] {
            for layout in Layout::ALL {
                if shift == Shift::Fixed && !layout.shared() {
                    continue;
                }
                let ours = if layout.shared() {
                    ours_shared(&entries, files, layout, formula, shift)
                } else {
                    (!entries.is_empty()).then(|| {
                        let size = per_square_size(layout, &entries);
                        Size {
                            entries: size,
                            bytes: table_bytes(size, entries.len() as u64),
                            squares: entries.len(),
                            how: "the store".into(),
                            shift: Shift::of(&entries),
                        }
                    })
                };
                let theirs = theirs(layout, formula, shift);
                if shift == Shift::Fixed && ours.is_none() && theirs.is_none() {
                    continue;
                }
                rows.push(LayoutRow {
                    layout,
                    formula,
                    shift,
                    ours,
                    theirs,
                });
            }
        }
    }
    rows
}

/// One table's spending: slots used, sum of spans and its shared array (packed and indexed
/// tables) with its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageRow {
    /// The table (a file of ours, the store, a published table, the floor).
    pub name: String,
    /// Its slots used and spans.
    pub usage: Usage,
    /// The shared array of a packed or indexed table, in entries (indexed: ids).
    pub array: Option<u64>,
    /// Bytes of the table's C export (packed and indexed tables).
    pub bytes: Option<u64>,
}

/// Slots used, sum of spans and shared array: ours (the store's plain magics, then each
/// table given) beside the published packed tables and the floor.
#[must_use]
pub fn usage_rows(store: &Store, files: &[OurFile]) -> Vec<UsageRow> {
    let mut rows = Vec::new();
    for formula in Formula::ALL {
        let entries: Vec<&Entry> = store.entries_with(formula).collect();
        if !entries.is_empty() {
            let of = if entries.len() < 128 {
                format!(", {} of 128 squares", entries.len())
            } else {
                String::new()
            };
            rows.push(UsageRow {
                name: format!("ours, the store ({formula}, one magic per square{of})"),
                usage: Usage::of(entries),
                array: None,
                bytes: None,
            });
        }
    }
    for f in files {
        let size = f.size();
        rows.push(UsageRow {
            name: format!("ours, {} ({}, {})", f.name, f.layout(), size.shift.text()),
            usage: Usage::of(f.entries()),
            array: Some(size.entries),
            bytes: Some(size.bytes),
        });
    }
    for formula in Formula::ALL {
        let (name, t) = published::best_packed(formula);
        let size = published_packed(name, t);
        rows.push(UsageRow {
            name: format!("{name} ({formula}, {})", size.shift.text()),
            usage: Usage::of(t.entries.iter().map(|p| &p.entry)),
            array: t.declared,
            bytes: Some(size.bytes),
        });
    }
    rows.push(UsageRow {
        name: "floor: one slot per distinct attack set".into(),
        usage: Usage::floor(),
        array: None,
        bytes: None,
    });
    rows
}
