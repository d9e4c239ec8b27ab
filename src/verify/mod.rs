//! What `magichunt verify` finds: one magic checked against the slow reference
//! ([`MagicReport`]), or every entry of a table text, its slots used and spans, and a packed
//! table, an indexed table or a pool as a whole ([`TableReport`]). Each renders as the command's text and as
//! one JSON document (`--json`, described in docs/format.md), from the same figures.
//!
//! ```
//! use magichunt::verify::MagicReport;
//! use magichunt::{Formula, Piece, Square, Target};
//!
//! let a8 = Target::new(Piece::Rook, "a8".parse::<Square>()?);
//! let report = MagicReport::check(a8, 11, Formula::Plain, 0x00ff_fcdd_fced_714a);
//! assert!(report.is_valid());
//! assert!(report.render_text().contains(": valid"));
//! assert!(report.to_json().contains("\"valid\": true"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fields;
mod json;
mod text;

pub use fields::LayoutCheck;

use std::path::Path;

use crate::attacks::Occupancies;
use crate::error::TableError;
use crate::layout::indexed::is_indexed;
use crate::layout::packed::is_packed;
use crate::layout::{Fill, IndexedFill, IndexedTable, LayoutError, PackedTable, Pattern, Usage};
use crate::magic::{verify_pairs_with, Collision, Verified};
use crate::piece::{Piece, Target};
use crate::pool::file::is_pool;
use crate::pool::Pool;
use crate::question::Formula;
use crate::table::{parse_claims, Claim, Table};

/// The version of the documents' keys (see [`crate::compare::SCHEMA_VERSION`]).
pub const SCHEMA_VERSION: u32 = 1;

/// Why a table text cannot be checked at all (not a failing entry: that is a finding).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Not a readable table, or not the pool it says it is.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A packed table whose layout fields are malformed.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The file cannot be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: TableError,
    },
}

/// One magic checked against the slow reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MagicReport {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The index formula.
    pub formula: Formula,
    /// The multiplier.
    pub magic: u64,
    /// The square's mask popcount.
    pub mask_popcount: u32,
    /// Blocker subsets.
    pub subsets: usize,
    /// Distinct attack sets among them.
    pub distinct_attacks: usize,
    /// `ceil(log2(distinct attack sets))`.
    pub lower_bound: u32,
    /// The figures of a valid magic, or the first destructive collision.
    pub result: Result<Verified, Collision>,
}

impl MagicReport {
    /// Checks `magic` for `target` at `bits` under `formula`.
    ///
    /// # Panics
    /// If `bits` is not 1 to 64 (the command line checks it first).
    #[must_use]
    pub fn check(target: Target, bits: u32, formula: Formula, magic: u64) -> MagicReport {
        let occ = Occupancies::new(target);
        MagicReport {
            target,
            bits,
            formula,
            magic,
            mask_popcount: occ.mask.count(),
            subsets: occ.pairs.len(),
            distinct_attacks: occ.distinct_attacks(),
            lower_bound: occ.lower_bound_bits(),
            result: verify_pairs_with(&occ, bits, formula, magic),
        }
    }

    /// Whether the magic is valid.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.result.is_ok()
    }
}

/// Why an entry of a table fails.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Two subsets with different attack sets collide.
    Collision {
        /// The two subsets.
        subsets: [u64; 2],
        /// The shared slot.
        index: usize,
    },
    /// The file's `max_index` is not what verify gives.
    MaxIndex {
        /// In the file.
        stated: u32,
        /// From verify.
        got: u32,
    },
    /// The file's `min_index` is not what verify gives.
    MinIndex {
        /// In the file.
        stated: u32,
        /// From verify.
        got: u32,
    },
    /// Another figure the file states (`mask`, `shift`, `mask_popcount`, `used_indices`,
    /// `verified`) is not what the reference gives.
    Field {
        /// The field.
        field: &'static str,
        /// In the file.
        stated: serde_json::Value,
        /// From the reference.
        got: serde_json::Value,
    },
}

/// One entry of a table that fails.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The entry as the file states it.
    pub claim: Claim,
    /// What is wrong.
    pub problem: Problem,
}

/// One entry's figures (`--per-square`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryFigures {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The index formula.
    pub formula: Formula,
    /// The multiplier.
    pub magic: u64,
    /// Distinct slots written.
    pub slots: u32,
    /// Entries of its tight table.
    pub span: u32,
}

/// A pool's figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolFigures {
    /// Magics held.
    pub magics: usize,
    /// Questions they answer.
    pub questions: usize,
    /// Fewest magics of a question.
    pub fewest: usize,
    /// Most magics of a question.
    pub most: usize,
    /// The footprint's gap.
    pub gap: u32,
    /// Places per question.
    pub capacity: usize,
}

/// A packed table checked as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedCheck {
    /// Squares it holds.
    pub squares: usize,
    /// The formula of every square, `None` when they mix.
    pub formula: Option<Formula>,
    /// The fixed bits of the rooks and the bishops, when all of a piece share them.
    pub fixed_bits: [Option<u32>; 2],
    /// What filling the shared array gave, or why it fails.
    pub result: Result<Fill, String>,
}

/// An indexed table checked as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexedCheck {
    /// Squares it holds.
    pub squares: usize,
    /// The formula of every square, `None` when they mix.
    pub formula: Option<Formula>,
    /// The fixed bits of the rooks and the bishops, when all of a piece share them.
    pub fixed_bits: [Option<u32>; 2],
    /// What filling the id array gave, or why it fails.
    pub result: Result<IndexedFill, String>,
}

/// Every entry of a table text checked, then its figures.
#[derive(Clone, Debug, PartialEq)]
pub struct TableReport {
    /// How to name the file.
    pub name: String,
    /// Entries checked.
    pub entries: usize,
    /// The entries that fail (then nothing below is computed).
    pub failures: Vec<Failure>,
    /// Slots used and spans, when every entry holds.
    pub usage: Option<Usage>,
    /// Every entry's figures, when asked for and every entry holds.
    pub per_square: Vec<EntryFigures>,
    /// A pool's figures.
    pub pool: Option<PoolFigures>,
    /// A packed table's whole check.
    pub packed: Option<PackedCheck>,
    /// The offsets and `table_sizes` of a table that names its layout (a JSON export), and
    /// the `packed_table` figures of a packed one.
    pub layout: Option<LayoutCheck>,
    /// The fields of the file that were checked (each once: `mask`, `table_sizes.rook`, ...).
    pub checked: Vec<String>,
    /// The fields and records of the file that were not (`entries[].found_by`, `comment`,
    /// `proofs (3)`): taken as stated.
    pub not_checked: Vec<String>,
    /// An indexed table's whole check.
    pub indexed: Option<IndexedCheck>,
}

impl TableReport {
    /// Reads and checks the table `magichunt verify` checks: the file `file` (gunzipped when
    /// its name ends in `.gz`), else the store `store` names as a reading command reads it
    /// ([`crate::locate::for_reading`]: the built-in table when there is no store); see
    /// [`TableReport::check`].
    ///
    /// # Errors
    /// The file cannot be read, or [`TableReport::check`] refuses it.
    pub fn read(
        file: Option<&Path>,
        store: Option<&Path>,
        per_square: bool,
        progress: &mut dyn crate::progress::Progress,
    ) -> Result<TableReport, VerifyError> {
        let path = match file {
            Some(p) => p.to_path_buf(),
            None => match crate::locate::for_reading(store, progress) {
                crate::locate::Reading::File(p) => p,
                crate::locate::Reading::BuiltIn => {
                    let name = Path::new(crate::shipped::NAME);
                    return TableReport::check(crate::shipped::JSON.as_bytes(), name, per_square);
                }
            },
        };
        let bytes = crate::pool::file::read_json(&path, crate::fs::input::Kind::Other).map_err(
            |source| VerifyError::Read {
                path: path.clone(),
                source,
            },
        )?;
        TableReport::check(&bytes, &path, per_square)
    }

    /// Checks every entry of the table text `bytes` (named `path`), then, when all hold, its
    /// slots used and spans (each entry's with `per_square`), and a pool or a packed table as a
    /// whole.
    ///
    /// # Errors
    /// [`VerifyError`] when the text is not a table (naming the entry), a pool states
    /// figures verify does not give, or a packed table's layout fields are malformed.
    pub fn check(bytes: &[u8], path: &Path, per_square: bool) -> Result<TableReport, VerifyError> {
        let claims = parse_claims(bytes, path)?;
        let mut failures = Vec::new();
        for c in &claims {
            let occ = Occupancies::new(c.target);
            let problem = match verify_pairs_with(&occ, c.bits, c.formula, c.magic) {
                Err(col) => Some(Problem::Collision {
                    subsets: [col.first.0 .0, col.second.0 .0],
                    index: col.index,
                }),
                Ok(v) => match (c.max_index, c.min_index) {
                    (Some(m), _) if m != v.max_index => Some(Problem::MaxIndex {
                        stated: m,
                        got: v.max_index,
                    }),
                    (_, Some(m)) if m != v.min_index => Some(Problem::MinIndex {
                        stated: m,
                        got: v.min_index,
                    }),
                    _ => fields::entry_problem(c, &v, &occ),
                },
            };
            if let Some(problem) = problem {
                failures.push(Failure {
                    claim: c.clone(),
                    problem,
                });
            }
        }
        let mut report = TableReport {
            name: path.display().to_string(),
            entries: claims.len(),
            failures,
            usage: None,
            per_square: Vec::new(),
            pool: None,
            packed: None,
            layout: None,
            checked: Vec::new(),
            not_checked: Vec::new(),
            indexed: None,
        };
        if !report.failures.is_empty() {
            return Ok(report);
        }
        let table = Table::parse(bytes, path)?;
        let top: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
        (report.checked, report.not_checked) = fields::coverage(&top, &table, is_pool(&table));
        if per_square {
            report.per_square = table
                .entries
                .iter()
                .map(|e| EntryFigures {
                    target: e.target,
                    bits: e.bits,
                    formula: e.formula,
                    magic: e.magic,
                    slots: Pattern::of(e).used(),
                    span: e.span(),
                })
                .collect();
        }
        report.usage = Some(Usage::of(&table.entries));
        if is_pool(&table) {
            let pool = Pool::from_table(table, path)?;
            let counts: Vec<usize> = pool
                .questions()
                .iter()
                .map(|&q| pool.members(q).len())
                .collect();
            report.pool = Some(PoolFigures {
                magics: pool.len(),
                questions: counts.len(),
                fewest: counts.iter().copied().min().unwrap_or(0),
                most: counts.iter().copied().max().unwrap_or(0),
                gap: pool.gap,
                capacity: pool.capacity,
            });
        } else if is_indexed(&table) {
            let indexed = IndexedTable::from_table(&table)?;
            let result = match indexed.check() {
                Ok(f) => Ok(f),
                Err(e @ LayoutError::Format(_)) => return Err(e.into()),
                Err(e) => Err(e.to_string()),
            };
            let fixed = |piece: Piece| {
                let mut bits = indexed
                    .entries
                    .iter()
                    .filter(|p| p.entry.target.piece == piece)
                    .map(|p| p.entry.bits);
                let first = bits.next()?;
                bits.all(|b| b == first).then_some(first)
            };
            report.indexed = Some(IndexedCheck {
                squares: indexed.entries.len(),
                formula: indexed.formula(),
                fixed_bits: [fixed(Piece::Rook), fixed(Piece::Bishop)],
                result,
            });
        } else if is_packed(&table) {
            let packed = PackedTable::from_table(&table)?;
            let result = match packed.check() {
                Ok(f) => Ok(f),
                Err(e @ LayoutError::Format(_)) => return Err(e.into()),
                Err(e) => Err(e.to_string()),
            };
            let fill = result.as_ref().map_err(|_| ());
            let mut layout = fields::layout_check(&table, Some(fill));
            let figures = fields::packed_figures(&table, fill);
            if !figures.is_empty() || layout.is_some() {
                layout
                    .get_or_insert_with(|| LayoutCheck {
                        layout: crate::layout::Layout::Packed,
                        sizes: Vec::new(),
                        stated_sizes: false,
                        problems: Vec::new(),
                    })
                    .problems
                    .extend(figures);
            }
            report.layout = layout;
            report.packed = Some(PackedCheck {
                squares: packed.entries.len(),
                formula: packed.formula(),
                fixed_bits: [
                    packed.fixed_bits(Piece::Rook),
                    packed.fixed_bits(Piece::Bishop),
                ],
                result,
            });
        } else {
            report.layout = fields::layout_check(&table, None);
        }
        Ok(report)
    }

    /// Whether every entry holds, a packed table as a whole, and the layout fields.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.failures.is_empty()
            && self.packed.as_ref().is_none_or(|p| p.result.is_ok())
            && self.layout.as_ref().is_none_or(|l| l.problems.is_empty())
            && self.indexed.as_ref().is_none_or(|p| p.result.is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_with_a_wrong_figure_fails_and_says_which() {
        let text = br#"{"version": 1, "entries": [
            {"piece": "rook", "square": "a8", "bits": 11, "magic": "0x00fffcddfced714a", "max_index": 7},
            {"piece": "rook", "square": "a8", "bits": 12, "magic": "0x00fffcddfced714a"}]}"#;
        let r = TableReport::check(text, Path::new("t.json"), true).unwrap();
        assert!(!r.is_valid());
        assert_eq!(r.failures.len(), 1);
        assert!(matches!(
            r.failures[0].problem,
            Problem::MaxIndex {
                stated: 7,
                got: 2047
            }
        ));
        // Nothing past the entries is computed for a failing table.
        assert!(r.usage.is_none() && r.per_square.is_empty());
        assert!(r
            .render_text()
            .contains("max_index 7 in the file, verify gives 2047"));
        let doc: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(doc["invalid_entries"], 1);
        assert_eq!(doc["failures"][0]["problem"], "max_index");
        assert_eq!(doc["slots"], serde_json::Value::Null);
        // Not a table at all: an error, not a finding.
        assert!(TableReport::check(b"[]", Path::new("x.json"), false).is_err());
    }
}
