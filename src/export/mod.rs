//! Exporting a store as source for a chess engine: the fancy layout (one table per piece,
//! each square at its own offset) and one back end per output format.
//!
//! The layout is computed once ([`Layout::build`]) and every back end renders the same
//! figures: a slot is `offset + ((occ & mask) * magic >> shift)` with `shift = 64 - bits`,
//! the product taken modulo 2^64. A square the store lacks is filled on the spot by a
//! popcount-bit magic from [`crate::search::find_magic`] with a seed derived from the target,
//! so the output depends on the store's content only.
//!
//! Text from the store reaches generated code only through [`comment_text`], and `--out`
//! never replaces a store ([`out::check_out`]).

mod c;
mod escape;
mod json;
mod names;
pub mod out;
mod rust;

pub use escape::comment_text;
pub use names::Prefix;

use std::fmt::Write as _;

use rayon::prelude::*;

use crate::attacks::relevant_mask;
use crate::compare::proven_optimal;
use crate::magic::format_magic;
use crate::piece::{Piece, Target};
use crate::search::find_magic;
use crate::store::Store;
use crate::table::wire::MethodWire;
use crate::table::Entry;

/// Bytes per table entry (one `u64` attack set).
pub const ENTRY_BYTES: u64 = 8;

/// The base of the seed that fills a missing square; [`fill_seed`] mixes in the target.
pub const FILL_SEED: u64 = 0x6d61_6769_6368_756e;

/// The slot formula, as every output states it.
pub const SLOT_FORMULA: &str =
    "slot = offset + ((((occ & mask) * magic) mod 2^64) >> shift), where shift = 64 - bits";

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
    /// `--out` names the store being exported.
    #[error("refusing to write the export onto the store {0} itself; choose another --out")]
    OutIsStore(std::path::PathBuf),
    /// `--out` names an existing magichunt store or table (not an earlier JSON export).
    #[error("refusing to overwrite {0}: it is a magichunt store (a table of entries, proofs or effort); choose another --out")]
    OutIsTable(std::path::PathBuf),
    /// `--out` exists but cannot be read, so it cannot be shown not to be a store.
    #[error("refusing to overwrite {path}: cannot read it to check it is not a store ({source})")]
    OutUnreadable {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
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
    /// Where the square's part of its piece's table starts.
    pub offset: u32,
    /// Entries the square takes: `2^bits`, or `max_index + 1` when tight.
    pub len: u32,
    /// True when the store lacked the square and the exporter found the magic.
    pub filled: bool,
    /// True when no magic with fewer bits exists ([`crate::compare::proven_optimal`]: a
    /// proof of none one bit below, the store's or published, or the lower bound).
    pub proven: bool,
}

/// The fancy layout of both pieces: 64 slots each, offsets in square order a1..h8.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Rook squares a1..h8.
    pub rook: Vec<Slot>,
    /// Bishop squares a1..h8.
    pub bishop: Vec<Slot>,
    /// Whether each square takes `max_index + 1` entries instead of `2^bits`.
    pub tight: bool,
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

/// A popcount-bit magic for `target`, found with [`fill_seed`].
///
/// # Errors
/// [`ExportError::NoMagic`] if the search gives up.
pub fn fill(target: Target) -> Result<Entry, ExportError> {
    let bits = relevant_mask(target.piece, target.square).count();
    let seed = fill_seed(target);
    let v = find_magic(target, bits, seed).ok_or(ExportError::NoMagic { target, bits })?;
    let method = MethodWire {
        family: "export-fill".into(),
        seed: Some(seed),
        run: None,
    };
    Ok(Entry::from_verified(&v, None, Some(method)))
}

impl Layout {
    /// Lays out every square of `store`, filling the squares it lacks with [`fill`].
    ///
    /// # Errors
    /// [`ExportError`] if a fill fails or a table overflows 32-bit offsets.
    pub fn build(store: &Store, tight: bool) -> Result<Layout, ExportError> {
        let entries: Vec<(Entry, bool)> = Target::all()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|t| match store.best(t) {
                Some(e) => Ok((e.clone(), false)),
                None => fill(t).map(|e| (e, true)),
            })
            .collect::<Result<_, _>>()?;
        let mut layout = Layout {
            rook: Vec::with_capacity(64),
            bishop: Vec::with_capacity(64),
            tight,
        };
        for (entry, filled) in entries {
            let piece = entry.target.piece;
            let slots = match piece {
                Piece::Rook => &mut layout.rook,
                Piece::Bishop => &mut layout.bishop,
            };
            let offset = slots
                .last()
                .map_or(Some(0), |s: &Slot| s.offset.checked_add(s.len));
            let len = if tight {
                Some(entry.max_index + 1)
            } else {
                1u32.checked_shl(entry.bits)
            };
            let (Some(offset), Some(len)) = (offset, len) else {
                return Err(ExportError::TooLarge(piece));
            };
            offset
                .checked_add(len)
                .ok_or(ExportError::TooLarge(piece))?;
            slots.push(Slot {
                mask: relevant_mask(piece, entry.target.square).0,
                shift: 64 - entry.bits,
                offset,
                len,
                filled,
                proven: proven_optimal(store, entry.target, entry.bits),
                entry,
            });
        }
        Ok(layout)
    }

    /// The slots of `piece`, a1..h8.
    #[must_use]
    pub fn slots(&self, piece: Piece) -> &[Slot] {
        match piece {
            Piece::Rook => &self.rook,
            Piece::Bishop => &self.bishop,
        }
    }

    /// Entries in the table of `piece`.
    #[must_use]
    pub fn size(&self, piece: Piece) -> u64 {
        self.slots(piece).iter().map(|s| u64::from(s.len)).sum()
    }

    /// The squares filled by the exporter.
    pub fn filled(&self) -> impl Iterator<Item = &Slot> {
        self.rook.iter().chain(&self.bishop).filter(|s| s.filled)
    }

    /// The squares whose bits are proven optimal.
    pub fn proven(&self) -> impl Iterator<Item = &Slot> {
        self.rook.iter().chain(&self.bishop).filter(|s| s.proven)
    }

    /// The totals line: entries and KiB per table and together.
    #[must_use]
    pub fn totals(&self) -> String {
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
            store: path.to_string(),
            latest: store.entries().filter_map(|e| e.found_at.clone()).max(),
        }
    }
}

/// The header lines every output starts with (without comment markers). The store path and
/// `found_at` are the store's text, raw here: the Rust and C back ends escape every line
/// ([`comment_text`]), the JSON one quotes it.
#[must_use]
pub fn header_lines(layout: &Layout, source: &Source) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Generated by magichunt {} from the store {}.",
            env!("CARGO_PKG_VERSION"),
            source.store
        ),
        match &source.latest {
            Some(t) => format!("Generated at {t}, the latest found_at in the store."),
            None => "Generated from a store without found_at times.".to_string(),
        },
        format!("Slot formula: {SLOT_FORMULA}."),
        format!(
            "Layout: one table per piece, each square at its own offset, of length {}.",
            if layout.tight {
                "max_index + 1 (tight)"
            } else {
                "2^bits"
            }
        ),
        format!("Totals: {}.", layout.totals()),
    ];
    let proven: Vec<&Slot> = layout.proven().collect();
    if proven.is_empty() {
        lines.push("Proven optimal: none of the 128 squares.".into());
    } else {
        lines.push(format!(
            "Proven optimal, no magic with fewer bits exists (a proof of none one bit below, the store's or published, or the square's lower bound): {} of 128 squares (marked `proven optimal`):",
            proven.len()
        ));
        lines.extend(square_list(&proven));
    }
    let filled: Vec<&Slot> = layout.filled().collect();
    if filled.is_empty() {
        lines.push("Filled on the spot: none; all 128 squares come from the store.".into());
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
pub fn render(format: Format, layout: &Layout, source: &Source, options: &Options) -> String {
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
        let layout = Layout::build(&store, false).unwrap();
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
