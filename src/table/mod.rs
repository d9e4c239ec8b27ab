//! The table format shared by the results store, the published tables and the JSON export:
//! parsing with a checked, verified typed model, and writing it back deterministically.

mod parse;
mod records;
pub mod sat;
pub mod wire;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::TableError;
use crate::magic::Verified;
use crate::piece::Target;
use crate::question::{Formula, Question};
pub use parse::entry_wire;
use parse::{effort_wire, exhaust_wire, proof_wire, Ctx};
pub use records::{Effort, Exhaust, Proof, Provenance};
use sat::Sat;
use wire::{EntryWire, MethodWire, TableWire};

/// The newest table version this build reads, and the one it writes.
pub const VERSION: u64 = 1;

/// The largest count a table may hold in a work counter (`tried`, `nodes`, `magics`,
/// `conflicts`): 10^18, thirty years of one machine at a billion a second. A larger one is
/// taken for a corrupt file and refused, so that sums of counters stay far from overflow.
pub const MAX_COUNT: u64 = 1_000_000_000_000_000_000;

/// The largest `seconds` a table may hold in one work record: 10^12, some 31,700 years.
pub const MAX_SECONDS: f64 = 1e12;

/// Checks a work counter against [`MAX_COUNT`].
///
/// # Errors
/// A message naming the field.
pub fn check_count(field: &str, n: u64) -> Result<(), String> {
    if n > MAX_COUNT {
        return Err(format!(
            "{field} {n} is beyond any real run (at most {MAX_COUNT}): a corrupt file?"
        ));
    }
    Ok(())
}

/// Checks a work time: finite, not negative, at most [`MAX_SECONDS`].
///
/// # Errors
/// A message naming the field.
pub fn check_seconds(field: &str, x: f64) -> Result<(), String> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!("{field} {x} is not a time"));
    }
    if x > MAX_SECONDS {
        return Err(format!(
            "{field} {x} is beyond any real run (at most {MAX_SECONDS:e}): a corrupt file?"
        ));
    }
    Ok(())
}

/// The top-level fields that say how a table's entries are read or laid out, or what kind of
/// file it is: the entries' default `formula`, an export's `layout`, `comment` (its header) and
/// `table_sizes`, a packed table's `packed_table`, a pool's `kind`. A store keeps none of them
/// ([`crate::store::Store::from_table`]): its entries name their own formula, and it is saved
/// as a store, never as the kind of file it was read from.
pub const LAYOUT_FIELDS: [&str; 6] = [
    "formula",
    "layout",
    "comment",
    "table_sizes",
    "packed_table",
    "kind",
];

/// The fields of an entry that a layout or a table derives from its magic and square: an
/// export's `mask`, `shift` and `offset`, a published table's `mask_popcount`, `used_indices`
/// and `verified`, a pool's `slots` and `footprint`, an export's `filled`. A store keeps none
/// of them ([`crate::store::Store::from_table`]): they describe the table they came from, go
/// stale when a better magic replaces the entry, and `verify` computes them anew.
pub const DERIVED_FIELDS: [&str; 9] = [
    "mask",
    "mask_popcount",
    "shift",
    "offset",
    "used_indices",
    "verified",
    "slots",
    "footprint",
    "filled",
];

/// A verified magic with what is known of how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The index formula the magic was verified under.
    pub formula: Formula,
    /// The multiplier.
    pub magic: u64,
    /// Highest slot used, from verify.
    pub max_index: u32,
    /// Lowest slot used, from verify (0 for a plain magic).
    pub min_index: u32,
    /// Distinct slots written, from verify (never stored: verify gives it on every load).
    pub used_slots: u32,
    /// When it was found (RFC 3339), if known.
    pub found_at: Option<String>,
    /// How it was found, if known.
    pub method: Option<MethodWire>,
    /// Other fields of `method`, kept as they were.
    pub method_extra: BTreeMap<String, Value>,
    /// Other fields of the entry, kept as they were (`found_by`, `source`, ...).
    pub extra: BTreeMap<String, Value>,
}

impl Entry {
    /// An entry for a magic that [`crate::magic::verify`] accepted.
    #[must_use]
    pub fn from_verified(
        v: &Verified,
        found_at: Option<String>,
        method: Option<MethodWire>,
    ) -> Entry {
        Entry {
            target: v.target,
            bits: v.bits,
            formula: v.formula,
            magic: v.magic,
            max_index: v.max_index,
            min_index: v.min_index,
            used_slots: v.used_slots,
            found_at,
            method,
            method_extra: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }

    /// The ordering key of quality: fewer bits first (the `2^bits` table and the engine's
    /// shift), then a smaller tight table ([`Entry::span`]: `max_index + 1` for a plain
    /// magic), then fewer slots used (more room for other squares' slots in a packed
    /// layout), then a smaller magic (only so that ties break the same way everywhere).
    /// Smaller is better. Entries of different formulas are never ranked against each other.
    #[must_use]
    pub fn rank(&self) -> (u32, u32, u32, u64) {
        (self.bits, self.span(), self.used_slots, self.magic)
    }

    /// Entries of the magic's tight table: `max_index - min_index + 1`.
    #[must_use]
    pub fn span(&self) -> u32 {
        self.max_index - self.min_index + 1
    }

    /// The question this magic answers "yes" to.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: self.formula,
        }
    }

    /// A text field among the extra fields (`found_by`, `source`), if present.
    #[must_use]
    pub fn extra_str(&self, key: &str) -> Option<&str> {
        self.extra.get(key).and_then(Value::as_str)
    }
}

/// A parsed and checked table file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Top-level fields other than the lists (`about`, `source`, ...).
    pub meta: BTreeMap<String, Value>,
    /// Verified magics, in file order.
    pub entries: Vec<Entry>,
    /// Proofs of none.
    pub proofs: Vec<Proof>,
    /// Work records.
    pub effort: Vec<Effort>,
    /// Exhaustive searches.
    pub exhaust: Vec<Exhaust>,
    /// SAT settlements.
    pub sat: Vec<Sat>,
}

impl Table {
    /// Reads and checks a table file; every entry is verified against the slow reference.
    ///
    /// # Errors
    /// [`TableError`] naming the file and, for a bad entry, which one and why.
    pub fn read(path: &Path) -> Result<Table, TableError> {
        Table::read_as(path, crate::fs::input::Kind::Other)
    }

    /// [`Table::read`] of a file the command reads as `kind` (what an output may replace it,
    /// see [`crate::fs::output`]): a regular file only, at most
    /// [`MAX_TABLE_BYTES`](crate::fs::input::MAX_TABLE_BYTES).
    ///
    /// # Errors
    /// [`TableError`] naming the file and, for a bad entry, which one and why.
    pub fn read_as(path: &Path, kind: crate::fs::input::Kind) -> Result<Table, TableError> {
        // A plain file holds what it holds on disk (no bomb can unpack it): read whole, up to
        // the limit, and parsed from memory, which is faster than from a reader.
        let bytes = crate::fs::input::read(path, kind, crate::fs::input::MAX_TABLE_BYTES)?;
        crate::fs::input::check_json_units(&bytes, path)
            .map_err(|e| syntax_error(path, &e.to_string()))?;
        Table::parse(&bytes, path)
    }

    /// Parses and checks table JSON; `path` only names the source in errors.
    ///
    /// # Errors
    /// [`TableError`] naming the problem.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Table, TableError> {
        Table::from_top(top_level(bytes, path)?, path)
    }

    /// [`Table::parse`] of JSON read from `reader` as it comes (no copy of the text is held;
    /// a reader that fails, such as a [`crate::fs::input::Bounded`] past its limit, stops it), at
    /// most [`MAX_JSON_UNITS`](crate::fs::input::MAX_JSON_UNITS) of values.
    ///
    /// # Errors
    /// [`TableError`] naming the problem.
    pub fn from_reader(reader: impl std::io::Read, path: &Path) -> Result<Table, TableError> {
        let reader = crate::fs::input::JsonBounded::new(reader, path);
        let value: Value = serde_json::from_reader(reader).map_err(|e| {
            syntax_error(
                path,
                &if e.is_io() {
                    format!("cannot read it: {e}")
                } else {
                    e.to_string()
                },
            )
        })?;
        Table::from_top(checked_top(value, path)?, path)
    }

    fn from_top(mut top: serde_json::Map<String, Value>, path: &Path) -> Result<Table, TableError> {
        let syntax = |message: String| TableError::Syntax {
            path: path.to_path_buf(),
            message,
        };
        let mut list = |key: &str, required: bool| -> Result<Vec<Value>, TableError> {
            match top.remove(key) {
                Some(Value::Array(items)) => Ok(items),
                Some(_) => Err(syntax(format!("`{key}` is not a list"))),
                None if required => Err(syntax(format!("missing field `{key}`"))),
                None => Ok(Vec::new()),
            }
        };
        let entries = list("entries", true)?;
        let proofs = list("proofs", false)?;
        let effort = list("effort", false)?;
        let exhaust = list("exhaust", false)?;
        let sat = list("sat", false)?;
        let ctx = Ctx {
            path,
            formula: default_formula(&top, path)?,
            pairs: Default::default(),
        };
        Ok(Table {
            meta: top.into_iter().collect(),
            entries: ctx.each(entries, "entry", Ctx::entry)?,
            proofs: ctx.each(proofs, "proof", Ctx::proof)?,
            effort: ctx.each(effort, "effort", Ctx::effort)?,
            exhaust: ctx.each(exhaust, "exhaust", Ctx::exhaust)?,
            sat: ctx.each(sat, "sat", Ctx::sat)?,
        })
    }

    /// The table as pretty JSON with a trailing newline; the same table gives the same bytes.
    #[must_use]
    pub fn to_json(&self) -> String {
        let wire = TableWire {
            version: VERSION,
            meta: self.meta.clone(),
            entries: self.entries.iter().map(entry_wire).collect(),
            proofs: self.proofs.iter().map(proof_wire).collect(),
            effort: self.effort.iter().map(effort_wire).collect(),
            exhaust: self.exhaust.iter().map(exhaust_wire).collect(),
            sat: self.sat.iter().map(Sat::to_wire).collect(),
        };
        let mut s = serde_json::to_string_pretty(&wire).expect("table serializes");
        s.push('\n');
        s
    }
}

/// An entry of a table read for its claim only, before verification: what `verify --file`
/// judges one by one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Position in `entries`, from 0.
    pub index: usize,
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The multiplier.
    pub magic: u64,
    /// The index formula (the entry's own, else the table's, else plain).
    pub formula: Formula,
    /// The highest index the file states, if any.
    pub max_index: Option<u32>,
    /// The lowest index the file states, if any.
    pub min_index: Option<u32>,
    /// The entry's other fields, as the file states them (`mask`, `shift`, `offset`, ...).
    pub extra: BTreeMap<String, Value>,
}

impl Claim {
    /// The question the claim answers "yes" to.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: self.formula,
        }
    }
}

/// The formula of a table's entries that name none: the top-level `formula` (published
/// packed tables state it there), else plain.
fn default_formula(
    top: &serde_json::Map<String, Value>,
    path: &Path,
) -> Result<Formula, TableError> {
    match top.get("formula") {
        None => Ok(Formula::Plain),
        Some(Value::String(f)) => f
            .parse()
            .map_err(|e: crate::error::ParseError| syntax_error(path, &e.to_string())),
        Some(_) => Err(syntax_error(path, "`formula` is not a string")),
    }
}

/// Reads the entries of table JSON as claims: every structural check of [`Table::parse`]
/// (version, fields, piece, square, bits range, magic spelling) but no verification.
///
/// # Errors
/// [`TableError`] naming the file and the bad entry.
pub fn parse_claims(bytes: &[u8], path: &Path) -> Result<Vec<Claim>, TableError> {
    let mut top = top_level(bytes, path)?;
    let items = match top.remove("entries") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(syntax_error(path, "`entries` is not a list")),
        None => return Err(syntax_error(path, "missing field `entries`")),
    };
    let ctx = Ctx {
        path,
        formula: default_formula(&top, path)?,
        pairs: Default::default(),
    };
    let claims = ctx.each(items, "entry", |ctx, item| {
        let w: EntryWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        Ok(Claim {
            extra: w.extra.clone(),
            ..ctx.claim(&w)?
        })
    })?;
    Ok(claims
        .into_iter()
        .enumerate()
        .map(|(index, c)| Claim { index, ..c })
        .collect())
}

fn syntax_error(path: &Path, message: &str) -> TableError {
    TableError::Syntax {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// Parses the JSON, checks `version`, and returns the top-level object without `version`.
fn top_level(bytes: &[u8], path: &Path) -> Result<serde_json::Map<String, Value>, TableError> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| syntax_error(path, &e.to_string()))?;
    checked_top(value, path)
}

/// The top-level object of a parsed table without `version`, once its version is checked.
fn checked_top(value: Value, path: &Path) -> Result<serde_json::Map<String, Value>, TableError> {
    let Value::Object(mut top) = value else {
        return Err(syntax_error(path, "not a JSON object"));
    };
    let version = top
        .remove("version")
        .ok_or_else(|| syntax_error(path, "missing field `version`"))?
        .as_u64()
        .ok_or_else(|| syntax_error(path, "`version` is not a whole number"))?;
    if version > VERSION {
        return Err(TableError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: VERSION,
        });
    }
    if version == 0 {
        return Err(syntax_error(path, "`version` 0 is not a table version"));
    }
    Ok(top)
}

#[cfg(test)]
mod tests;
