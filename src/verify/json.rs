//! The JSON documents of `verify --json`: wire types apart from the text (see
//! [`crate::compare`]'s), built from the same reports. Keys are stable within a
//! [`SCHEMA_VERSION`]; docs/format.md describes them.

use serde::Serialize;
use serde_json::{json, Value};

use super::{MagicReport, Problem, TableReport, SCHEMA_VERSION};
use crate::magic::{format_magic, Verified};
use crate::piece::Piece;
use crate::question::Formula;
use crate::size::kib_number;

impl MagicReport {
    /// The `verify --json` document of one magic.
    #[must_use]
    pub fn to_json(&self) -> String {
        let v = self.result.as_ref().ok();
        let collision = self.result.as_ref().err().map(|c| CollisionWire {
            index: c.index,
            blockers: [format_magic(c.first.0 .0), format_magic(c.second.0 .0)],
            attacks: [format_magic(c.first.1 .0), format_magic(c.second.1 .0)],
        });
        pretty(&MagicWire {
            head: Head::of("magic"),
            piece: self.target.piece.to_string(),
            square: self.target.square.to_string(),
            bits: self.bits,
            formula: self.formula.name(),
            magic: format_magic(self.magic),
            valid: self.is_valid(),
            used_slots: v.map(|v| v.used_slots),
            slots: 1u64 << self.bits,
            min_index: v.map(|v| v.min_index),
            max_index: v.map(|v| v.max_index),
            span: v.map(Verified::span),
            constructive: v.map(|v| v.constructive),
            collision,
            mask_popcount: self.mask_popcount,
            subsets: self.subsets,
            distinct_attacks: self.distinct_attacks,
            lower_bound_bits: self.lower_bound,
        })
    }
}

impl TableReport {
    /// The `verify --json` document of a table.
    #[must_use]
    pub fn to_json(&self) -> String {
        let failures = self
            .failures
            .iter()
            .map(|f| {
                let c = &f.claim;
                let (problem, stated, got, subsets, index) = match &f.problem {
                    Problem::Collision { subsets, index } => (
                        "collision",
                        None,
                        None,
                        Some(subsets.map(format_magic)),
                        Some(*index),
                    ),
                    Problem::MaxIndex { stated, got } => (
                        "max_index",
                        Some(json!(stated)),
                        Some(json!(got)),
                        None,
                        None,
                    ),
                    Problem::MinIndex { stated, got } => (
                        "min_index",
                        Some(json!(stated)),
                        Some(json!(got)),
                        None,
                        None,
                    ),
                    Problem::Field { field, stated, got } => {
                        (*field, Some(stated.clone()), Some(got.clone()), None, None)
                    }
                };
                FailureWire {
                    entry: c.index,
                    piece: c.target.piece.to_string(),
                    square: c.target.square.to_string(),
                    bits: c.bits,
                    formula: c.formula.name(),
                    magic: format_magic(c.magic),
                    problem,
                    stated,
                    got,
                    subsets,
                    index,
                }
            })
            .collect();
        pretty(&TableWire {
            head: Head::of("table"),
            file: self.name.clone(),
            valid: self.is_valid(),
            entries: self.entries,
            valid_entries: self.entries - self.failures.len(),
            invalid_entries: self.failures.len(),
            failures,
            slots: self.usage.as_ref().map(|u| SlotsWire {
                total: u.total(),
                rook: u.slots[Piece::Rook as usize],
                bishop: u.slots[Piece::Bishop as usize],
                spans: u.spans.unwrap_or_default(),
            }),
            per_square: (!self.per_square.is_empty()).then(|| {
                self.per_square
                    .iter()
                    .enumerate()
                    .map(|(k, e)| EntryWire {
                        entry: k,
                        piece: e.target.piece.to_string(),
                        square: e.target.square.to_string(),
                        bits: e.bits,
                        formula: e.formula.name(),
                        magic: format_magic(e.magic),
                        slots: e.slots,
                        span: e.span,
                    })
                    .collect()
            }),
            pool: self.pool.as_ref().map(|p| PoolWire {
                magics: p.magics,
                questions: p.questions,
                fewest: p.fewest,
                most: p.most,
                gap: p.gap,
                capacity: p.capacity,
            }),
            packed: self.packed.as_ref().map(|p| {
                let fill = p.result.as_ref().ok();
                PackedWire {
                    valid: p.result.is_ok(),
                    squares: p.squares,
                    formula: p.formula.map_or("mixed", Formula::name),
                    rook_bits: p.fixed_bits[0],
                    bishop_bits: p.fixed_bits[1],
                    size: fill.map(|f| f.size),
                    kib: fill.map(|f| kib_number(f.size)),
                    used: fill.map(|f| f.used),
                    free: fill.map(|f| f.size - f.used),
                    shared: fill.map(|f| f.shared),
                    error: p.result.as_ref().err().cloned(),
                }
            }),
            layout: self.layout.as_ref().map(|l| LayoutWire {
                layout: l.layout.name(),
                valid: l.problems.is_empty(),
                sizes: l
                    .sizes
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), json!(v)))
                    .collect(),
                table_sizes_checked: l.stated_sizes,
                problems: l.problems.clone(),
            }),
            checked: self.checked.clone(),
            not_checked: self.not_checked.clone(),
            indexed: self.indexed.as_ref().map(|p| {
                let fill = p.result.as_ref().ok();
                IndexedWire {
                    valid: p.result.is_ok(),
                    squares: p.squares,
                    formula: p.formula.map_or("mixed", Formula::name),
                    rook_bits: p.fixed_bits[0],
                    bishop_bits: p.fixed_bits[1],
                    ids: fill.map(|f| f.size),
                    used: fill.map(|f| f.used),
                    free: fill.map(|f| f.size - f.used),
                    shared: fill.map(|f| f.shared),
                    list_entries: fill.map(|f| f.lists),
                    shared_lists: fill.map(|f| f.shared_lists),
                    bytes: fill.map(|f| f.bytes().total()),
                    error: p.result.as_ref().err().cloned(),
                }
            }),
        })
    }
}

/// Pretty JSON with a trailing newline.
fn pretty(doc: &impl Serialize) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("a document serializes");
    s.push('\n');
    s
}

/// The header of both documents.
#[derive(Serialize)]
struct Head {
    schema: &'static str,
    version: u32,
    magichunt: &'static str,
    /// `magic` or `table`.
    kind: &'static str,
}

impl Head {
    fn of(kind: &'static str) -> Head {
        Head {
            schema: "magichunt-verify",
            version: SCHEMA_VERSION,
            magichunt: env!("CARGO_PKG_VERSION"),
            kind,
        }
    }
}

#[derive(Serialize)]
struct CollisionWire {
    index: usize,
    blockers: [String; 2],
    attacks: [String; 2],
}

#[derive(Serialize)]
struct MagicWire {
    #[serde(flatten)]
    head: Head,
    piece: String,
    square: String,
    bits: u32,
    formula: &'static str,
    magic: String,
    valid: bool,
    used_slots: Option<u32>,
    /// `2^bits`.
    slots: u64,
    min_index: Option<u32>,
    max_index: Option<u32>,
    span: Option<u32>,
    constructive: Option<u32>,
    collision: Option<CollisionWire>,
    mask_popcount: u32,
    subsets: usize,
    distinct_attacks: usize,
    lower_bound_bits: u32,
}

#[derive(Serialize)]
struct FailureWire {
    entry: usize,
    piece: String,
    square: String,
    bits: u32,
    formula: &'static str,
    magic: String,
    /// `collision`, `max_index`, `min_index`, `mask`, `shift`, `mask_popcount`,
    /// `used_indices` or `verified`.
    problem: &'static str,
    stated: Option<Value>,
    got: Option<Value>,
    subsets: Option<[String; 2]>,
    index: Option<usize>,
}

#[derive(Serialize)]
struct SlotsWire {
    total: u64,
    rook: u64,
    bishop: u64,
    spans: u64,
}

#[derive(Serialize)]
struct EntryWire {
    entry: usize,
    piece: String,
    square: String,
    bits: u32,
    formula: &'static str,
    magic: String,
    slots: u32,
    span: u32,
}

#[derive(Serialize)]
struct PoolWire {
    magics: usize,
    questions: usize,
    fewest: usize,
    most: usize,
    gap: u32,
    capacity: usize,
}

#[derive(Serialize)]
struct PackedWire {
    valid: bool,
    squares: usize,
    formula: &'static str,
    rook_bits: Option<u32>,
    bishop_bits: Option<u32>,
    size: Option<u64>,
    kib: Option<f64>,
    used: Option<u64>,
    free: Option<u64>,
    shared: Option<u64>,
    error: Option<String>,
}

#[derive(Serialize)]
struct IndexedWire {
    valid: bool,
    squares: usize,
    formula: &'static str,
    rook_bits: Option<u32>,
    bishop_bits: Option<u32>,
    ids: Option<u64>,
    used: Option<u64>,
    free: Option<u64>,
    shared: Option<u64>,
    list_entries: Option<u64>,
    shared_lists: Option<bool>,
    bytes: Option<u64>,
    error: Option<String>,
}

#[derive(Serialize)]
struct TableWire {
    #[serde(flatten)]
    head: Head,
    file: String,
    /// Every entry holds, and a packed table as a whole.
    valid: bool,
    entries: usize,
    valid_entries: usize,
    invalid_entries: usize,
    failures: Vec<FailureWire>,
    slots: Option<SlotsWire>,
    /// Every entry's figures with `--per-square`, else null.
    per_square: Option<Vec<EntryWire>>,
    pool: Option<PoolWire>,
    packed: Option<PackedWire>,
    layout: Option<LayoutWire>,
    /// The fields of the file checked, and those taken as stated.
    checked: Vec<String>,
    not_checked: Vec<String>,
    /// An indexed table's whole check (`null` for any other file).
    indexed: Option<IndexedWire>,
}

#[derive(Serialize)]
struct LayoutWire {
    layout: &'static str,
    valid: bool,
    /// What the offsets give, as `table_sizes` names them (`null`: unknown).
    sizes: serde_json::Map<String, Value>,
    table_sizes_checked: bool,
    problems: Vec<String>,
}
