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
    /// The order the bits are fixed in: every part of one search must use the same (the
    /// tasks and the node counts depend on it).
    pub order: crate::exhaust::Order,
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

    /// The question searched: exhaustive searches are of plain magics.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: crate::question::Formula::Plain,
        }
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

/// Where a proof of none gets its weight: whether a count of proven-optimal squares may take
/// it. A proof in a store is only a record that anyone can write; it counts once this build
/// has checked its evidence (the `trust` room computes this, and the store keeps it beside
/// its proofs, never in the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// Recorded but not checked here; the text says what is missing (no evidence, a
    /// certificate that fails, a search not audited).
    Claimed(String),
    /// Every certificate checked here: the CNF rebuilt, its SHA-256 compared, the LRAT proof
    /// checked by magichunt's checker.
    Certified,
    /// Every part of the exhaustive search carries a residue checked here: searched in full on
    /// this machine, or re-run in `audited` blocks by `magichunt audit` that matched.
    Evidenced {
        /// Blocks re-run by audits, over all parts (0 when every part was searched here).
        audited: u64,
    },
}

impl Provenance {
    /// Whether the proof counts as checked.
    #[must_use]
    pub fn is_checked(&self) -> bool {
        !matches!(self, Provenance::Claimed(_))
    }

    /// A few words for listings: `certificate checked`, `claimed: ...`.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Provenance::Claimed(why) => format!("claimed, not checked here: {why}"),
            Provenance::Certified => "certificate checked here".into(),
            Provenance::Evidenced { audited: 0 } => "exhaustive search run here".into(),
            Provenance::Evidenced { audited } => {
                format!("exhaustive search audited here ({audited} blocks re-run)")
            }
        }
    }

    /// The stronger of two provenances of one question (checked beats claimed; a
    /// certificate beats a sampled audit).
    #[must_use]
    pub fn or(self, other: Provenance) -> Provenance {
        let rank = |p: &Provenance| match p {
            Provenance::Claimed(_) => 0,
            Provenance::Evidenced { .. } => 1,
            Provenance::Certified => 2,
        };
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }
}
