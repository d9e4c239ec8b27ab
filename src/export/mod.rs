//! Exporting a store as source for a chess engine, in one of the [`Layout`]s of
//! [`crate::layout`] (fancy, tight or packed) and either [`Formula`], with one back end per
//! output format.
//!
//! The tables are laid out once ([`Tables::build`], or [`Tables::from_packed`] for a packed
//! table written by `magichunt pack`) and every back end renders the same figures: a slot is
//! `offset + (key * magic >> shift)` with `shift = 64 - bits`, the product taken modulo 2^64,
//! and `key = occ & mask` (plain) or `occ | !mask` (black). A square the store lacks is filled
//! on the spot by a popcount-bit magic of the formula from [`crate::search::fill_magic`]
//! with a seed derived from the target, so the output depends on the store's content only.
//!
//! Text from the store reaches generated code only through [`comment_text`], and `--out`
//! never replaces a store ([`crate::fs::output`]).
//!
//! ```
//! use magichunt::export::{render, Format, Layout, Options, Source, Tables};
//! use magichunt::store::Store;
//! use magichunt::Formula;
//!
//! // An empty store: every square is filled on the spot at popcount bits.
//! let store = Store::new();
//! let tables = Tables::build(&store, Layout::Tight, Formula::Plain)?;
//! assert_eq!(tables.filled().count(), 128);
//! let options = Options { with_lookup: true, ..Options::default() };
//! let rust = render(Format::Rust, &tables, &Source::of(&store, "none.json"), &options);
//! assert!(rust.contains("pub fn rook_attacks("));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod c;
mod header;
mod indexed;
mod json;
mod names;
mod rust;
mod tables;
mod write;

pub use crate::escape::comment_text;
pub use header::{content_sha256, file_name, header_lines, Source};
pub use names::Prefix;
pub use tables::{fill, Indexed, Packed, Slot, Tables};
pub use write::{export, ExportConfig, ExportFileError};

use std::fmt::Write as _;

pub use crate::layout::Layout;
use crate::layout::LayoutError;
use crate::magic::format_magic;
use crate::piece::{Piece, Target};
use crate::question::Formula;

/// The method family of a magic the exporter filled on the spot.
pub const FILL_FAMILY: &str = "export-fill";

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

/// Options of a render.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Add the ray-walk table fill and `rook_attacks` / `bishop_attacks` (Rust and C).
    pub with_lookup: bool,
    /// Put in front of every public name (Rust and C).
    pub prefix: Prefix,
    /// Rust, 8-byte layouts: fill the tables at run time in a `std::sync::OnceLock` instead
    /// of computing them at compile time.
    pub runtime_fill: bool,
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

/// Fills the placeholders the C and Rust templates share: whose table a slot counts in, and
/// the attack table's size and each piece's start and size in it.
fn fill_sizes(template: String, layout: &Tables) -> String {
    let packed = layout.layout.shared();
    template
        .replace("@WHOSE@", if packed { "the shared" } else { "its piece's" })
        .replace("@ATTACK_SIZE@", &layout.total().to_string())
        .replace("@ROOK_START@", &layout.start(Piece::Rook).to_string())
        .replace("@ROOK_SIZE@", &layout.size(Piece::Rook).to_string())
        .replace("@BISHOP_START@", &layout.start(Piece::Bishop).to_string())
        .replace("@BISHOP_SIZE@", &layout.size(Piece::Bishop).to_string())
}

/// Closes a C header's declarations and opens its implementation section (every layout's).
const C_IMPLEMENTATION_START: &str = r#"
#ifdef __cplusplus
}
#endif

#endif /* $IMAGICS_H */

#if defined($IIMPLEMENTATION) && !defined($IMAGICS_IMPLEMENTED)
#define $IMAGICS_IMPLEMENTED

#ifdef __cplusplus
extern "C" {
#endif
"#;

/// Closes a C header's implementation section.
const C_IMPLEMENTATION_END: &str = r#"
#ifdef __cplusplus
}
#endif

#endif /* $IIMPLEMENTATION */
"#;

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
    fn formats_parse() {
        assert_eq!("rust".parse::<Format>().unwrap(), Format::Rust);
        assert_eq!("C".parse::<Format>().unwrap(), Format::C);
        assert_eq!("json".parse::<Format>().unwrap(), Format::Json);
        assert!("yaml".parse::<Format>().is_err());
    }
}
