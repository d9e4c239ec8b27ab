//! The records of a table besides its magics: proofs of none, work done, exhaustive searches.

use std::collections::BTreeMap;

use serde_json::Value;

use super::wire::PartWire;
use crate::piece::Target;
use crate::question::{Formula, Question};

/// A proof that no magic exists at `bits` index bits for a target (hence none at fewer:
/// a magic at `b - 1` bits is also one at `b` bits, since its index is the top `b - 1` bits).
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// Piece and square.
    pub target: Target,
    /// The bit count proven impossible.
    pub bits: u32,
    /// The index formula the proof is about.
    pub formula: Formula,
    /// How it was proven.
    pub method: Option<String>,
    /// Other fields (`claim`, `source`, ...).
    pub extra: BTreeMap<String, Value>,
}

/// Work done by one run on one (target, bits).
#[derive(Clone, Debug, PartialEq)]
pub struct Effort {
    /// Piece and square.
    pub target: Target,
    /// Index bits searched.
    pub bits: u32,
    /// The index formula searched (a run hunts one formula).
    pub formula: Formula,
    /// Run identifier.
    pub run: String,
    /// Candidates examined.
    pub tried: u64,
    /// Seconds of work.
    pub seconds: f64,
    /// Other fields, kept.
    pub extra: BTreeMap<String, Value>,
}

/// Progress of an exhaustive search of one (target, bits) split into `shards` parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Exhaust {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// Number of parts.
    pub shards: u32,
    /// `log2` of the number of tasks the space is cut into (and dealt to the parts): every
    /// part of one search must use the same.
    pub task_bits: u32,
    /// Parts worked on, by part number (1 to `shards`).
    pub parts: BTreeMap<u32, PartWire>,
    /// Other fields, kept.
    pub extra: BTreeMap<String, Value>,
}

impl Exhaust {
    /// Whether every part is done.
    #[must_use]
    pub fn complete(&self) -> bool {
        (1..=self.shards).all(|k| self.parts.get(&k).is_some_and(|p| p.done))
    }

    /// Magics found over all parts so far.
    #[must_use]
    pub fn magics(&self) -> u64 {
        self.parts
            .values()
            .fold(0, |n, p| n.saturating_add(p.magics))
    }
}

impl Proof {
    /// The question this proof answers "none" to.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: self.formula,
        }
    }
}
