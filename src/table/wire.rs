//! Serde wire types of the table format, kept apart from the logic that checks them.
//!
//! ```json
//! {"version": 1,
//!  "entries": [{"piece": "rook", "square": "a8", "bits": 11, "magic": "0x00fffcddfced714a"}],
//!  "proofs":  [{"piece": "bishop", "square": "d8", "bits": 4, "none": true, "method": "..."}]}
//! ```
//! Magics are strings (JSON numbers lose u64 precision). Unknown fields are kept and written
//! back, at every level (a flattened `extra` map on every record type), so published tables
//! keep their `found_by` and `source` and a newer magichunt's fields survive an older one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::exhaust::campaign::found::{FoundWire, SuppliedWire};
pub use crate::exhaust::campaign::residue::ResidueWire;

/// A whole table file: results store, published table or JSON export.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableWire {
    /// Schema version; this build writes and reads 1.
    pub version: u64,
    /// Other top-level fields (`about`, `source`, ...), kept as they are.
    #[serde(flatten)]
    pub meta: BTreeMap<String, Value>,
    /// One magic per entry.
    pub entries: Vec<EntryWire>,
    /// Proofs that no magic exists at a bit count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proofs: Vec<ProofWire>,
    /// Candidates examined, per target, bit count and run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effort: Vec<EffortWire>,
    /// Exhaustive searches under way or finished, part by part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exhaust: Vec<ExhaustWire>,
    /// SAT settlements, part by part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sat: Vec<super::sat::SatWire>,
}

impl TableWire {
    /// A table of entries only (an export, a packed table): no proofs or work records.
    #[must_use]
    pub fn of_entries(meta: BTreeMap<String, Value>, entries: Vec<EntryWire>) -> TableWire {
        TableWire {
            version: super::VERSION,
            meta,
            entries,
            proofs: Vec::new(),
            effort: Vec::new(),
            exhaust: Vec::new(),
            sat: Vec::new(),
        }
    }
}

/// One magic of a table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EntryWire {
    /// `rook` or `bishop`.
    pub piece: String,
    /// `a1`..`h8`.
    pub square: String,
    /// Index bits.
    pub bits: i64,
    /// `0x` and 16 hex digits.
    pub magic: String,
    /// `plain` (the default, left out) or `black`; an entry without it takes the table's
    /// top-level `formula`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// Highest slot used (checked against verify on load).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_index: Option<i64>,
    /// Lowest slot used, written for black magics (checked against verify on load).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_index: Option<i64>,
    /// When it was found, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_at: Option<String>,
    /// Candidates examined on this target, all runs and bit counts (derived from `effort`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tried: Option<u64>,
    /// Seconds spent on this target, all runs and bit counts (derived from `effort`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// How it was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<MethodRecord>,
    /// Other fields (`found_by`, `source`, `mask`, `shift`, `offset`, ...).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// An entry's `method` as it is on the wire: the known fields and any others, kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MethodRecord {
    /// The fields magichunt reads.
    #[serde(flatten)]
    pub known: MethodWire,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// How a magic was found: the candidate family, the seed and the run. (Other fields of a
/// stored `method` are kept beside it, in [`MethodRecord`].)
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MethodWire {
    /// Candidate family or method name (`sparse`, `dense`, `exhaustive`, ...).
    pub family: String,
    /// The run's seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The run's identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// A proof that no magic with `bits` (hence none with fewer) index bits exists.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProofWire {
    /// `rook` or `bishop`.
    pub piece: String,
    /// `a1`..`h8`.
    pub square: String,
    /// The bit count proven impossible.
    pub bits: i64,
    /// `plain` (the default, left out) or `black`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// Always `true`: the shape leaves room for other kinds of result.
    pub none: bool,
    /// How it was proven.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Other fields (`claim`, `source`, ...).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Work done on one (target, bits) by one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EffortWire {
    /// `rook` or `bishop`.
    pub piece: String,
    /// `a1`..`h8`.
    pub square: String,
    /// Index bits searched.
    pub bits: i64,
    /// `plain` (the default, left out) or `black`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// The run's identifier (merge keeps one record per run, so merging twice adds nothing).
    pub run: String,
    /// Candidates examined.
    pub tried: u64,
    /// Seconds of work (summed over threads).
    pub seconds: f64,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The task bits of an exhaust record that does not name them: every search was cut into
/// `2^18` tasks before the record said so.
pub const LEGACY_TASK_BITS: u32 = 18;

fn legacy_task_bits() -> u32 {
    LEGACY_TASK_BITS
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_legacy_task_bits(t: &u32) -> bool {
    *t == LEGACY_TASK_BITS
}

/// An exhaustive search of one (target, bits), split into `shards` parts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExhaustWire {
    /// `rook` or `bishop`.
    pub piece: String,
    /// `a1`..`h8`.
    pub square: String,
    /// Index bits.
    pub bits: i64,
    /// Number of parts the space is split into.
    pub shards: u32,
    /// The space is cut into `2^task_bits` tasks, dealt to the parts; absent means
    /// [`LEGACY_TASK_BITS`], what every build before this field used.
    #[serde(
        default = "legacy_task_bits",
        skip_serializing_if = "is_legacy_task_bits"
    )]
    pub task_bits: u32,
    /// The order the bits are fixed in, `low` or `high`; absent means `low`, the only order
    /// before this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// The parts worked on so far.
    pub parts: Vec<PartWire>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// One part of an exhaustive search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartWire {
    /// Part number, 1 to `shards`.
    pub shard: u32,
    /// Whether the whole part has been searched.
    pub done: bool,
    /// Where an unfinished part resumes (opaque to everything but `exhaust`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Magics found in the part so far.
    pub magics: u64,
    /// Partial magics tested so far.
    pub nodes: u64,
    /// Seconds of work so far.
    pub seconds: f64,
    /// The best magic of the part (tightest highest index), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
    /// The part's evidence (see `exhaust::campaign::residue`); absent in parts written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residue: Option<ResidueWire>,
    /// The magics the part listed as it found them (see `exhaust::campaign::found`); absent
    /// in parts written before lists, and in a part that lists from its start and found none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<FoundWire>,
    /// Magics of the part its list lacks, given by another walk of the search, each verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supplied: Option<SuppliedWire>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}
