//! Exporting a store as source for a chess engine, in one of the [`Layout`]s of
//! [`crate::layout`] (fancy, tight or packed) and either [`Formula`], with one back end per
//! output format.
//!
//! The tables are laid out once ([`Tables::build`], or [`Tables::from_packed`] for a packed
//! table written by `magichunt pack`) and every back end renders the same figures: a slot is
//! `offset + (key * magic >> shift)` with `shift = 64 - bits`, the product taken modulo 2^64,
//! and `key = occ & mask` (plain) or `occ | !mask` (black). A square the store lacks is filled
//! on the spot by a popcount-bit magic of the formula from [`crate::search::find_magic_for`]
//! with a seed derived from the target, so the output depends on the store's content only.
//!
//! Text from the store reaches generated code only through [`comment_text`], and `--out`
//! never replaces a store ([`out::check_out`]).

mod c;
mod escape;
mod json;
mod names;
mod rust;

pub use escape::comment_text;
pub use names::Prefix;

use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

use rayon::prelude::*;

use crate::attacks::{relevant_mask, Occupancies};
use crate::compare::{optimal_if_claims_hold, proven_optimal};
use crate::layout::pack::{pack_entries, PackOptions};
pub use crate::layout::Layout;
use crate::layout::{Fill, LayoutError, PackedTable};
use crate::magic::format_magic;
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};
use crate::search::find_magic_for;
use crate::store::Counting;
use crate::store::Store;
use crate::table::wire::MethodWire;
use crate::table::Entry;

/// Bytes per table entry (one `u64` attack set).
pub const ENTRY_BYTES: u64 = 8;

/// The method family of a magic the exporter filled on the spot.
pub const FILL_FAMILY: &str = "export-fill";

/// The base of the seed that fills a missing square; [`fill_seed`] mixes in the target.
pub const FILL_SEED: u64 = 0x6d61_6769_6368_756e;

/// The slot formula of plain magics, as every output states it.
pub const SLOT_FORMULA: &str =
    "slot = offset + ((((occ & mask) * magic) mod 2^64) >> shift), where shift = 64 - bits";

/// The slot formula of black magics.
pub const SLOT_FORMULA_BLACK: &str =
    "slot = offset + ((((occ | ~mask) * magic) mod 2^64) >> shift), where shift = 64 - bits (black magics)";

/// The slot formula of `formula`.
#[must_use]
pub const fn slot_formula(formula: Formula) -> &'static str {
    match formula {
        Formula::Plain => SLOT_FORMULA,
        Formula::Black => SLOT_FORMULA_BLACK,
    }
}

/// An output format of `magichunt export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Self-contained Rust source.
    Rust,
    /// A C99 header.
    C,
    /// The table format with `mask`, `shift` and `offset` added to each entry.
    Json,
}

impl std::str::FromStr for Format {
    type Err = crate::error::ParseError;

    fn from_str(s: &str) -> Result<Format, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "rust" | "rs" => Ok(Format::Rust),
            "c" | "h" => Ok(Format::C),
            "json" => Ok(Format::Json),
            _ => Err(crate::error::ParseError::Other(format!(
                "invalid format '{s}' (expected rust, c or json)"
            ))),
        }
    }
}

/// Why an export cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The fill search found no popcount-bit magic (never seen; the table would be incomplete).
    #[error("found no {bits}-bit magic for {target} to fill the square the store lacks")]
    NoMagic {
        /// The square.
        target: Target,
        /// The popcount bits tried.
        bits: u32,
    },
    /// A table would not fit the `u32` offsets of the generated code.
    #[error("the {0} table does not fit 32-bit offsets")]
    TooLarge(Piece),
    /// Packing failed its own check, or a packed table cannot be exported as it is.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

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
    /// True when no magic with fewer bits exists ([`crate::compare::proven_optimal`]: a
    /// proof of none one bit below, the store's (counted by its [`crate::store::Counting`])
    /// or published, or the lower bound).
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

/// The seed that fills a missing `target`: [`FILL_SEED`] mixed with the target, so a fill
/// is the same in every export of every store.
#[must_use]
pub fn fill_seed(target: Target) -> u64 {
    let piece = match target.piece {
        Piece::Rook => 0,
        Piece::Bishop => 1,
    };
    FILL_SEED ^ (piece << 6 | target.square.index() as u64)
}

/// A popcount-bit magic of `formula` for `target`, found with [`fill_seed`].
///
/// # Errors
/// [`ExportError::NoMagic`] if the search gives up.
pub fn fill(target: Target, formula: Formula) -> Result<Entry, ExportError> {
    let bits = relevant_mask(target.piece, target.square).count();
    let seed = fill_seed(target);
    let question = Question {
        target,
        bits,
        formula,
    };
    let v = find_magic_for(question, seed).ok_or(ExportError::NoMagic { target, bits })?;
    let method = MethodWire {
        family: FILL_FAMILY.into(),
        seed: Some(seed),
        run: None,
    };
    Ok(Entry::from_verified(&v, None, Some(method)))
}

impl Tables {
    /// Lays out the magics of `formula` of every square of `store` in `layout`, filling the
    /// squares it lacks with [`fill`]. Packed runs the library's packer: first-fit decreasing,
    /// then the default ruin-and-recreate steps of [`PackOptions`] (seeded: the same store
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
                    "the packer: first-fit decreasing ({} entries), then {} ruin-and-recreate steps with seed {} ({} entries)",
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
        // The proofs are of plain magics; the lower bound (distinct attack sets) holds for
        // every formula.
        let proven = match entry.formula {
            Formula::Plain => proven_optimal(store, target, entry.bits),
            Formula::Black => entry.bits == Occupancies::new(target).lower_bound_bits(),
        };
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

/// `entries` at 8 bytes each in KiB: whole numbers plain, otherwise one decimal.
#[must_use]
pub fn kib(entries: u64) -> String {
    let bytes = entries * ENTRY_BYTES;
    if bytes.is_multiple_of(1024) {
        (bytes / 1024).to_string()
    } else {
        format!("{:.1}", bytes as f64 / 1024.0)
    }
}

/// What the header says about where the output came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// What was read: `store`, or `packed table`.
    pub kind: &'static str,
    /// The store path as given.
    pub store: String,
    /// The latest `found_at` among the store's entries, if any: the header's "when", which
    /// depends on the store's content only (never the clock).
    pub latest: Option<String>,
}

impl Source {
    /// The source line for `store` read from `path`.
    #[must_use]
    pub fn of(store: &Store, path: &str) -> Source {
        Source {
            kind: "store",
            store: path.to_string(),
            latest: store.entries().filter_map(|e| e.found_at.clone()).max(),
        }
    }

    /// The source line for a packed table read from `path`.
    #[must_use]
    pub fn of_packed(table: &PackedTable, path: &str) -> Source {
        Source {
            kind: "packed table",
            store: path.to_string(),
            latest: table
                .entries
                .iter()
                .filter_map(|p| p.entry.found_at.clone())
                .max(),
        }
    }
}

/// The header lines every output starts with (without comment markers). The store path and
/// `found_at` are the store's text, raw here: the Rust and C back ends escape every line
/// ([`comment_text`]), the JSON one quotes it.
#[must_use]
pub fn header_lines(layout: &Tables, source: &Source) -> Vec<String> {
    let kind = source.kind;
    let mut lines = vec![
        format!(
            "Generated by magichunt {} from the {kind} {}.",
            env!("CARGO_PKG_VERSION"),
            source.store
        ),
        match &source.latest {
            Some(t) => format!("Generated at {t}, the latest found_at in the {kind}."),
            None => format!("Generated from a {kind} without found_at times."),
        },
        format!("Slot formula: {}.", slot_formula(layout.formula)),
        match (layout.layout, layout.formula, &layout.packed) {
            (_, _, Some(p)) => format!(
                "Layout: packed, one attack table shared by rooks and bishops; each square's slots lie at its offset + index, and two squares share a slot only where their attack sets are equal; offsets from {}.",
                p.how
            ),
            (Layout::Tight, Formula::Black, _) => "Layout: one table per piece, each square at its own offset, of length max_index - min_index + 1 (tight; a black square's slots run from offset + min_index to offset + max_index).".to_string(),
            (Layout::Tight, Formula::Plain, _) => "Layout: one table per piece, each square at its own offset, of length max_index + 1 (tight).".to_string(),
            _ => "Layout: one table per piece, each square at its own offset, of length 2^bits.".to_string(),
        },
        format!("Totals: {}.", layout.totals()),
    ];
    let proven: Vec<&Slot> = layout.proven().collect();
    if proven.is_empty() {
        lines.push("Proven optimal: none of the 128 squares.".into());
    } else {
        lines.push(format!(
            "Proven optimal, no magic with fewer bits exists (a proof of none one bit below, {}, or the square's lower bound): {} of 128 squares (marked `proven optimal`):",
            match layout.counting {
                Counting::Checked => "checked by the magichunt that wrote this file (certificate or exhaustive search) or published",
                Counting::Claimed => "checked, published or only claimed by the store (--count-claimed)",
            },
            proven.len()
        ));
        lines.extend(square_list(&proven));
    }
    let claimed: Vec<&Slot> = layout.claimed().collect();
    if !claimed.is_empty() {
        lines.push(format!(
            "Claimed optimal, not counted: the store records a proof of none one bit below that the magichunt writing this file did not check (`magichunt audit` checks it): {} squares:",
            claimed.len()
        ));
        lines.extend(square_list(&claimed));
    }
    let filled: Vec<&Slot> = layout.filled().collect();
    if filled.is_empty() {
        lines.push(format!(
            "Filled on the spot: none; all 128 squares come from the {kind}."
        ));
    } else {
        lines.push(format!(
            "Filled on the spot by the exporter at popcount bits, not from the store (marked `filled`): {} of 128 squares:",
            filled.len()
        ));
        lines.extend(square_list(&filled));
    }
    lines
}

/// The squares of `slots` by piece (`rook a1 b1; bishop c1`), in lines of at most 100
/// characters, each indented by two spaces.
fn square_list(slots: &[&Slot]) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for piece in Piece::ALL {
        let squares: Vec<String> = slots
            .iter()
            .filter(|s| s.entry.target.piece == piece)
            .map(|s| s.entry.target.square.to_string())
            .collect();
        if let Some((first, rest)) = squares.split_first() {
            if let Some(w) = words.last_mut() {
                w.push(';');
            }
            words.push(format!("{piece} {first}"));
            words.extend(rest.iter().cloned());
        }
    }
    let mut lines = Vec::new();
    let mut line = String::from(" ");
    for w in words {
        if line.len() + 1 + w.len() > 100 {
            lines.push(std::mem::replace(&mut line, String::from(" ")));
        }
        line.push(' ');
        line.push_str(&w);
    }
    lines.push(line);
    lines
}

/// Options of a render.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Add the ray-walk table fill and `rook_attacks` / `bishop_attacks` (Rust and C).
    pub with_lookup: bool,
    /// Put in front of every public name (Rust and C).
    pub prefix: Prefix,
}

/// Renders `layout` in `format`.
#[must_use]
pub fn render(format: Format, layout: &Tables, source: &Source, options: &Options) -> String {
    let header = header_lines(layout, source);
    match format {
        Format::Rust => rust::render(layout, &header, options),
        Format::C => c::render(layout, &header, options),
        Format::Json => json::render(layout, &header),
    }
}

/// A short note for the entry comment of a slot: square, bits, and where it came from.
fn slot_note(s: &Slot) -> String {
    let mut note = format!("{}, {} bits", s.entry.target.square, s.entry.bits);
    if s.filled {
        note.push_str(", filled");
    }
    if s.proven {
        note.push_str(", proven optimal");
    }
    if s.claimed {
        note.push_str(", optimal only by a claimed proof");
    }
    note
}

/// The hex spelling used in Rust and C literals.
fn hex(v: u64) -> String {
    format_magic(v)
}

/// Appends `lines` to `out` as comment lines, each after `prefix` and escaped by
/// [`comment_text`] (an empty line gets no trailing space).
fn comment_block(out: &mut String, prefix: &str, lines: &[String]) {
    for l in lines {
        let text = comment_text(l);
        let _ = writeln!(out, "{}", format!("{prefix}{text}").trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kib_is_exact_or_one_decimal() {
        assert_eq!(kib(89_280), "697.5");
        assert_eq!(kib(107_648), "841");
        assert_eq!(kib(1), "0.0");
        assert_eq!(kib(13), "0.1");
    }

    #[test]
    fn fill_seeds_differ_per_target() {
        let seeds: std::collections::BTreeSet<u64> = Target::all().map(fill_seed).collect();
        assert_eq!(seeds.len(), 128);
    }

    #[test]
    fn square_lists_wrap_and_keep_every_square() {
        let store = Store::new();
        let layout = Tables::build(&store, Layout::Fancy, Formula::Plain).unwrap();
        let all: Vec<&Slot> = layout.filled().collect();
        assert_eq!(all.len(), 128);
        let lines = square_list(&all);
        assert!(
            lines.iter().all(|l| l.len() <= 100 && l.starts_with("  ")),
            "{lines:?}"
        );
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words.len(), 130, "128 squares and two piece names");
        assert_eq!(&words[..2], ["rook", "a1"]);
        assert!(words.contains(&"h8;") && words.contains(&"bishop"));
        let header = header_lines(&layout, &Source::of(&store, "s.json"));
        assert!(
            header.iter().any(|l| l.contains(": 128 of 128 squares:")),
            "{header:?}"
        );
    }

    #[test]
    fn formats_parse() {
        assert_eq!("rust".parse::<Format>().unwrap(), Format::Rust);
        assert_eq!("C".parse::<Format>().unwrap(), Format::C);
        assert_eq!("json".parse::<Format>().unwrap(), Format::Json);
        assert!("yaml".parse::<Format>().is_err());
    }
}
