//! The tables an export renders: every square's magic, mask, shift, offset and length in one
//! [`Layout`], whether it was filled on the spot and whether its bits are proven optimal.

use std::sync::atomic::AtomicBool;

use rayon::prelude::*;

use super::{ExportError, FILL_FAMILY};
use crate::attacks::relevant_mask;
use crate::layout::pack::{pack_entries, PackOptions};
use crate::layout::{Fill, Layout, LayoutError, PackedTable};
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
    /// Which proofs the proven squares count (the store's [`Counting`]).
    pub counting: Counting,
}

/// The shared array of a packed export.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    /// What filling it with every subset of every square gave (size, slots used, shared).
    pub fill: Fill,
    /// Where the offsets come from (the packer's steps, or the packed table read).
    pub how: String,
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
            counting: store.counting(),
        };
        if layout == Layout::Packed {
            let list: Vec<Entry> = entries.iter().map(|e| e.0.clone()).collect();
            let opts = PackOptions::default();
            let (table, fill, packing) = pack_entries(&list, None, &opts, &AtomicBool::new(false))?;
            for (p, (_, filled)) in table.entries.into_iter().zip(entries) {
                tables.push(store, p.entry, p.offset, filled);
            }
            tables.packed = Some(Packed {
                fill,
                how: format!(
                    "the packer: first-fit decreasing ({} entries), then {} annealing steps over the order of the squares with seed {} ({} entries)",
                    packing.first_size, packing.steps, opts.seed, packing.size
                ),
            });
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
            counting: store.counting(),
        };
        for t in Target::all() {
            let p = table
                .entries
                .iter()
                .find(|p| p.entry.target == t)
                .ok_or_else(|| LayoutError::Format(format!("the packed table lacks {t}")))?;
            // Filled on the spot by `pack` or by an earlier export, as each marks it.
            let filled = p.entry.extra.get("filled") == Some(&serde_json::Value::Bool(true))
                || p.entry
                    .method
                    .as_ref()
                    .is_some_and(|m| m.family == FILL_FAMILY);
            tables.push(store, p.entry.clone(), p.offset, filled);
        }
        Ok(tables)
    }

    /// Adds the slot of `entry` at `offset`.
    fn push(&mut self, store: &Store, entry: Entry, offset: u32, filled: bool) {
        let target = entry.target;
        let len = match self.layout {
            Layout::Fancy => 1u32 << entry.bits,
            Layout::Tight | Layout::Packed => entry.max_index + 1,
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
    /// start is the rook table's size); packed shares the array, so both start at 0.
    #[must_use]
    pub fn start(&self, piece: Piece) -> u64 {
        match (&self.packed, piece) {
            (None, Piece::Bishop) => self.size(Piece::Rook),
            _ => 0,
        }
    }

    /// Entries of every table together (packed: the shared array).
    #[must_use]
    pub fn total(&self) -> u64 {
        match &self.packed {
            Some(p) => p.fill.size,
            None => self.size(Piece::Rook) + self.size(Piece::Bishop),
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
