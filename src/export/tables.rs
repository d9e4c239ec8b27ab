//! The tables an export renders: every square's magic, mask, shift, offset and length in one
//! [`Layout`], whether it was filled on the spot and whether its bits are proven optimal.

use std::sync::atomic::AtomicBool;

use rayon::prelude::*;

use super::{ExportError, FILL_FAMILY};
use crate::attacks::relevant_mask;
use crate::layout::lists;
use crate::layout::pack::{pack_entries, PackOptions};
use crate::layout::{Fill, IndexedFill, IndexedTable, Layout, LayoutError, PackedTable};
use crate::piece::{Piece, Target};
use crate::question::Formula;
use crate::search::{fill_magic, fill_question, fill_seed};
use crate::size::{kib, ENTRY_BYTES};
use crate::store::{optimal_if_claims_hold, proven_optimal_with, Counting, Store};
use crate::table::wire::MethodWire;
use crate::table::Entry;

/// One square of the layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    /// The magic (from the store, or found by the fill).
    pub entry: Entry,
    /// The relevant-occupancy mask.
    pub mask: u64,
    /// `64 - bits`.
    pub shift: u32,
    /// Where the square's index 0 lies in its table (its piece's, or the shared one when
    /// packed). A black square's slots start at `offset + min_index`.
    pub offset: u32,
    /// Entries from `offset` the square reaches: `2^bits` (fancy), else `max_index + 1`.
    pub len: u32,
    /// True when the store lacked the square and the exporter found the magic.
    pub filled: bool,
    /// True when no magic with fewer bits exists ([`crate::store::proven_optimal`]: a
    /// proof of none one bit below, the store's (counted by its [`Counting`]) or published,
    /// or the lower bound).
    pub proven: bool,
    /// True when only a proof the store records but this build did not check (claimed, not
    /// counted) would make the bits optimal.
    pub claimed: bool,
    /// Indexed: where its ids count from in the lists (0 in the other layouts).
    pub list: u32,
    /// Indexed: every square it attacks on an empty board, what its lookup keeps of a shared
    /// list entry (0 in the other layouts).
    pub rays: u64,
}

/// The tables of both pieces laid out in one [`Layout`]: 64 slots each, a1..h8. Fancy and
/// tight give each piece its own table, offsets in square order; packed gives both pieces one
/// shared array, offsets chosen by the packer ([`crate::layout::pack`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    /// The layout.
    pub layout: Layout,
    /// The index formula of every square.
    pub formula: Formula,
    /// Rook squares a1..h8.
    pub rook: Vec<Slot>,
    /// Bishop squares a1..h8.
    pub bishop: Vec<Slot>,
    /// The shared array of the packed layout (`None` otherwise).
    pub packed: Option<Packed>,
    /// The id array and lists of the indexed layout (`None` otherwise).
    pub indexed: Option<Indexed>,
    /// Which proofs the proven squares count (the store's [`Counting`]).
    pub counting: Counting,
}

/// The id array and the lists of an indexed export.
#[derive(Clone, Debug, PartialEq)]
pub struct Indexed {
    /// What filling it with every subset of every square gave.
    pub fill: IndexedFill,
    /// Where the offsets and lists come from.
    pub how: String,
    /// The id array, holes 0.
    pub ids: Vec<u8>,
    /// The list entries.
    pub lists: Vec<u64>,
    /// The table itself (squares in [`Target::all`] order), for the JSON export.
    pub table: IndexedTable,
}

impl Indexed {
    /// Whether the lookup keeps the square's rays of a list entry (shared lists).
    #[must_use]
    pub fn masked(&self) -> bool {
        self.fill.shared_lists
    }
}

/// The shared array of a packed export.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    /// What filling it with every subset of every square gave (size, slots used, shared).
    pub fill: Fill,
    /// Where the offsets come from (the packer's steps, or the packed table read).
    pub how: String,
}

/// Whether `entry` was filled on the spot by `pack` or by an earlier export, as each marks it.
fn was_filled(entry: &Entry) -> bool {
    entry.extra.get("filled") == Some(&serde_json::Value::Bool(true))
        || entry
            .method
            .as_ref()
            .is_some_and(|m| m.family == FILL_FAMILY)
}

/// A popcount-bit magic of `formula` for `target` ([`crate::search::fill_magic`]), as an
/// entry whose method says the exporter filled it.
///
/// # Errors
/// [`ExportError::NoMagic`] if the search gives up.
pub fn fill(target: Target, formula: Formula) -> Result<Entry, ExportError> {
    let v = fill_magic(target, formula).ok_or(ExportError::NoMagic {
        target,
        bits: fill_question(target, formula).bits,
    })?;
    let method = MethodWire {
        family: FILL_FAMILY.into(),
        seed: Some(fill_seed(target)),
        run: None,
    };
    Ok(Entry::from_verified(&v, None, Some(method)))
}

impl Tables {
    /// Lays out the magics of `formula` of every square of `store` in `layout`, filling the
    /// squares it lacks with [`fill`]. Packed runs the library's packer: first-fit decreasing,
    /// then the default annealing steps of [`PackOptions`] over the order of the squares (seeded: the same store
    /// gives the same offsets).
    ///
    /// # Errors
    /// [`ExportError`] if a fill fails or a table overflows 32-bit offsets.
    pub fn build(store: &Store, layout: Layout, formula: Formula) -> Result<Tables, ExportError> {
        let entries: Vec<(Entry, bool)> = Target::all()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|t| match store.best_with(t, formula) {
                Some(e) => Ok((e.clone(), false)),
                None => fill(t, formula).map(|e| (e, true)),
            })
            .collect::<Result<_, _>>()?;
        let mut tables = Tables {
            layout,
            formula,
            rook: Vec::with_capacity(64),
            bishop: Vec::with_capacity(64),
            packed: None,
            indexed: None,
            counting: store.counting(),
        };
        if layout.shared() {
            let list: Vec<Entry> = entries.iter().map(|e| e.0.clone()).collect();
            let opts = PackOptions::default();
            let (table, fill, packing) = pack_entries(&list, None, &opts, &AtomicBool::new(false))?;
            let how = format!(
                "the packer: first-fit decreasing ({} entries), then {} annealing steps over the order of the squares with seed {} ({} entries)",
                packing.first_size, packing.steps, opts.seed, packing.size
            );
            if layout == Layout::Indexed {
                // The packed placement with one-byte ids (slots never meet, so the shared
                // lists' ids fit as they are); `magichunt pack --layout indexed` goes further.
                let placed = table
                    .entries
                    .into_iter()
                    .map(|p| (p.entry, p.offset))
                    .collect();
                let mut indexed = IndexedTable::new(placed, lists::shared());
                indexed.declared = Some(fill.size);
                let ifill = indexed.check()?;
                let filled = entries.into_iter().map(|(_, f)| f).collect::<Vec<_>>();
                tables.set_indexed(
                    &indexed,
                    ifill,
                    store,
                    &filled,
                    format!("{how}, as one-byte ids with the shared lists"),
                );
                return Ok(tables);
            }
            for (p, (_, filled)) in table.entries.into_iter().zip(entries) {
                tables.push(store, p.entry, p.offset, filled);
            }
            tables.packed = Some(Packed { fill, how });
            return Ok(tables);
        }
        let mut end = [0u64; 2];
        for (entry, filled) in entries {
            let piece = entry.target.piece;
            let end = &mut end[piece as usize];
            // A black square's slots run from min_index: its offset is where they start
            // minus min_index (never below 0).
            let offset = match layout {
                Layout::Tight => end.saturating_sub(u64::from(entry.min_index)),
                _ => *end,
            };
            let offset = u32::try_from(offset).map_err(|_| ExportError::TooLarge(piece))?;
            tables.push(store, entry, offset, filled);
            let s = tables.slots(piece).last().expect("just pushed");
            *end = u64::from(s.offset) + u64::from(s.len);
            if *end > u64::from(u32::MAX) {
                return Err(ExportError::TooLarge(piece));
            }
        }
        Ok(tables)
    }

    /// Lays out a packed table (checked by [`PackedTable::check`], which gave `fill`) as it
    /// is: its magics at its offsets in one shared array. `store` only says which bits are
    /// proven optimal. `how` names the table in the header.
    ///
    /// # Errors
    /// [`ExportError::Layout`] if the table lacks a square or mixes formulas.
    pub fn from_packed(
        table: &PackedTable,
        fill: Fill,
        store: &Store,
        how: String,
    ) -> Result<Tables, ExportError> {
        let formula = table.formula().ok_or_else(|| {
            LayoutError::Format("the packed table mixes plain and black magics".into())
        })?;
        let mut tables = Tables {
            layout: Layout::Packed,
            formula,
            rook: Vec::with_capacity(64),
            bishop: Vec::with_capacity(64),
            packed: Some(Packed { fill, how }),
            indexed: None,
            counting: store.counting(),
        };
        for t in Target::all() {
            let p = table
                .entries
                .iter()
                .find(|p| p.entry.target == t)
                .ok_or_else(|| LayoutError::Format(format!("the packed table lacks {t}")))?;
            tables.push(store, p.entry.clone(), p.offset, was_filled(&p.entry));
        }
        Ok(tables)
    }

    /// Lays out an indexed table (checked by [`IndexedTable::check`], which gave `fill`) as
    /// it is: its magics, offsets, ids and lists. `store` only says which bits are proven
    /// optimal. `how` names the table in the header.
    ///
    /// # Errors
    /// [`ExportError::Layout`] if the table lacks a square or mixes formulas.
    pub fn from_indexed(
        table: &IndexedTable,
        fill: IndexedFill,
        store: &Store,
        how: String,
    ) -> Result<Tables, ExportError> {
        let formula = table.formula().ok_or_else(|| {
            LayoutError::Format("the indexed table mixes plain and black magics".into())
        })?;
        let mut tables = Tables {
            layout: Layout::Indexed,
            formula,
            rook: Vec::with_capacity(64),
            bishop: Vec::with_capacity(64),
            packed: None,
            indexed: None,
            counting: store.counting(),
        };
        let mut sorted = Vec::with_capacity(128);
        for t in Target::all() {
            let p = table
                .entries
                .iter()
                .find(|p| p.entry.target == t)
                .ok_or_else(|| LayoutError::Format(format!("the indexed table lacks {t}")))?;
            sorted.push(p.clone());
        }
        let filled: Vec<bool> = sorted.iter().map(|p| was_filled(&p.entry)).collect();
        let table = IndexedTable {
            entries: sorted,
            ..table.clone()
        };
        tables.set_indexed(&table, fill, store, &filled, how);
        Ok(tables)
    }

    /// Adds every square of `table` (in [`Target::all`] order, `filled[k]` whether the k-th
    /// was filled on the spot) and its id array and lists.
    fn set_indexed(
        &mut self,
        table: &IndexedTable,
        fill: IndexedFill,
        store: &Store,
        filled: &[bool],
        how: String,
    ) {
        for (p, &f) in table.entries.iter().zip(filled) {
            self.push(store, p.entry.clone(), p.offset, f);
            let s = match p.entry.target.piece {
                Piece::Rook => self.rook.last_mut(),
                Piece::Bishop => self.bishop.last_mut(),
            }
            .expect("just pushed");
            s.list = p.list;
            s.rays = lists::rays(p.entry.target);
        }
        self.indexed = Some(Indexed {
            ids: table.ids(&fill),
            lists: table.lists.clone(),
            table: table.clone(),
            fill,
            how,
        });
    }

    /// Adds the slot of `entry` at `offset`.
    fn push(&mut self, store: &Store, entry: Entry, offset: u32, filled: bool) {
        let target = entry.target;
        let len = match self.layout {
            Layout::Fancy => 1u32 << entry.bits,
            Layout::Tight | Layout::Packed | Layout::Indexed => entry.max_index + 1,
        };
        let proven = proven_optimal_with(store, target, entry.bits, entry.formula);
        let claimed = !proven
            && entry.formula == Formula::Plain
            && optimal_if_claims_hold(store, target, entry.bits);
        let slot = Slot {
            mask: relevant_mask(target.piece, target.square).0,
            shift: 64 - entry.bits,
            offset,
            len,
            filled,
            proven,
            claimed,
            list: 0,
            rays: 0,
            entry,
        };
        match target.piece {
            Piece::Rook => self.rook.push(slot),
            Piece::Bishop => self.bishop.push(slot),
        }
    }

    /// The slots of `piece`, a1..h8.
    #[must_use]
    pub fn slots(&self, piece: Piece) -> &[Slot] {
        match piece {
            Piece::Rook => &self.rook,
            Piece::Bishop => &self.bishop,
        }
    }

    /// Entries in the table of `piece`: its highest slot plus one (packed: the part of the
    /// shared array the piece reaches).
    #[must_use]
    pub fn size(&self, piece: Piece) -> u64 {
        self.slots(piece)
            .iter()
            .map(|s| u64::from(s.offset) + u64::from(s.len))
            .max()
            .unwrap_or(0)
    }

    /// Where the slots of `piece` are counted from in the one array that holds both pieces'
    /// tables: fancy and tight put the rook table first, then the bishop table (the bishop's
    /// start is the rook table's size); packed and indexed share the array, so both start at 0.
    #[must_use]
    pub fn start(&self, piece: Piece) -> u64 {
        match (self.layout.shared(), piece) {
            (false, Piece::Bishop) => self.size(Piece::Rook),
            _ => 0,
        }
    }

    /// Entries of every table together (packed: the shared array; indexed: its ids).
    #[must_use]
    pub fn total(&self) -> u64 {
        match (&self.packed, &self.indexed) {
            (Some(p), _) => p.fill.size,
            (_, Some(i)) => i.fill.size,
            _ => self.size(Piece::Rook) + self.size(Piece::Bishop),
        }
    }

    /// Bytes of the data the C export defines, as `nm -S` counts its objects: the attack table
    /// and the magics, or (indexed) the ids, the lists and the magics.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        match &self.indexed {
            Some(i) => i.fill.bytes().total(),
            None => crate::layout::table_bytes(self.total(), 128),
        }
    }

    /// The squares filled by the exporter.
    pub fn filled(&self) -> impl Iterator<Item = &Slot> {
        self.rook.iter().chain(&self.bishop).filter(|s| s.filled)
    }

    /// The squares whose bits are proven optimal.
    pub fn proven(&self) -> impl Iterator<Item = &Slot> {
        self.rook.iter().chain(&self.bishop).filter(|s| s.proven)
    }

    /// The squares whose bits only a claimed proof (not checked) would make optimal.
    pub fn claimed(&self) -> impl Iterator<Item = &Slot> {
        self.rook.iter().chain(&self.bishop).filter(|s| s.claimed)
    }

    /// The totals line: entries and KiB per table and together.
    #[must_use]
    pub fn totals(&self) -> String {
        if let Some(i) = &self.indexed {
            let (f, b) = (&i.fill, i.fill.bytes());
            return format!(
                "one id array shared by rooks and bishops, {} ids of one byte, {} slots used, {} of them shared by two squares with equal ids; {} list entries of 8 bytes ({}); {} bytes of data ({} KiB: ids {}, lists {}, magics {})",
                f.size,
                f.used,
                f.shared,
                f.lists,
                if i.masked() { "shared by squares, each keeping its rays" } else { "each square's own" },
                b.total(),
                crate::size::kib_bytes(b.total()),
                b.ids,
                b.lists,
                b.magics
            );
        }
        if let Some(p) = &self.packed {
            let f = &p.fill;
            return format!(
                "one table shared by rooks and bishops, {} entries ({} KiB) at {ENTRY_BYTES} bytes per entry, {} slots used, {} of them shared by two squares with equal attack sets",
                f.size,
                kib(f.size),
                f.used,
                f.shared
            );
        }
        let (r, b) = (self.size(Piece::Rook), self.size(Piece::Bishop));
        format!(
            "rook table {r} entries ({} KiB), bishop table {b} entries ({} KiB), total {} entries ({} KiB) at {ENTRY_BYTES} bytes per entry",
            kib(r),
            kib(b),
            r + b,
            kib(r + b)
        )
    }
}
