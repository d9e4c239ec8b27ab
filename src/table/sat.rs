//! SAT settlements in the table format: a question split into `shards` parts (cubes on the
//! low bits of the magic), each part's answer, and for a "none" the certificate that a
//! checker accepted and the SHA-256 of the CNF it refutes.
//!
//! ```json
//! "sat": [{"piece": "bishop", "square": "c1", "bits": 4, "shards": 1,
//!          "parts": [{"shard": 1, "result": "unsat",
//!                     "certificate": "proofs/bishop-c1-4.lrat.gz", "cnf_sha256": "…",
//!                     "solver": "CaDiCaL 3.0.1", "encoding": "magichunt-cnf 1 (…)",
//!                     "checker": "magichunt lrat-check 1", "conflicts": 1234, "seconds": 0.4}]}]
//! ```

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::magic::{self, format_magic, parse_magic};
use crate::question::{Formula, Question};

/// The wire form of a SAT settlement.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SatWire {
    /// `rook` or `bishop`.
    pub piece: String,
    /// `a1`..`h8`.
    pub square: String,
    /// Index bits.
    pub bits: i64,
    /// `plain` (the default, left out) or `black`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    /// Number of parts (a power of two).
    pub shards: u32,
    /// The parts settled so far.
    pub parts: Vec<SatPartWire>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The wire form of one settled part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SatPartWire {
    /// Part number, 1 to `shards`.
    pub shard: u32,
    /// `unsat` (no magic in the part) or `sat` (a magic, in `magic`).
    pub result: String,
    /// The magic of a `sat` part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub magic: Option<String>,
    /// The certificate of an `unsat` part, relative to the store's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
    /// SHA-256 of the part's CNF (DIMACS text, as `prove --emit-cnf` writes it).
    pub cnf_sha256: String,
    /// Solver and version.
    pub solver: String,
    /// Encoding and version.
    pub encoding: String,
    /// The checker that accepted the certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checker: Option<String>,
    /// Conflicts of the solve.
    pub conflicts: u64,
    /// Seconds of the solve.
    pub seconds: f64,
    /// When it was settled, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The answer of one part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SatAnswer {
    /// No magic in the part; the certificate's path relative to the store's folder.
    None {
        /// The certificate file.
        certificate: String,
    },
    /// A magic of the part (verified on load).
    Exists {
        /// The magic.
        magic: u64,
    },
}

/// One settled part.
#[derive(Clone, Debug, PartialEq)]
pub struct SatPart {
    /// The answer.
    pub answer: SatAnswer,
    /// Everything else, as on the wire (`result`, `magic` and `certificate` are derived from
    /// `answer` when written).
    pub wire: SatPartWire,
}

/// A SAT settlement of one question.
#[derive(Clone, Debug, PartialEq)]
pub struct Sat {
    /// The question.
    pub question: Question,
    /// Number of parts.
    pub shards: u32,
    /// The parts settled, by number.
    pub parts: BTreeMap<u32, SatPart>,
    /// Other fields, kept.
    pub extra: BTreeMap<String, Value>,
}

impl Sat {
    /// An empty settlement of `question` in `shards` parts.
    #[must_use]
    pub fn new(question: Question, shards: u32) -> Sat {
        Sat {
            question,
            shards,
            parts: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }

    /// Whether every part is settled and none holds a magic: the question's answer is "none".
    #[must_use]
    pub fn proves_none(&self) -> bool {
        (1..=self.shards).all(|k| {
            self.parts
                .get(&k)
                .is_some_and(|p| matches!(p.answer, SatAnswer::None { .. }))
        })
    }

    /// Parts settled so far.
    #[must_use]
    pub fn settled(&self) -> usize {
        self.parts.len()
    }

    /// The wire form.
    #[must_use]
    pub fn to_wire(&self) -> SatWire {
        SatWire {
            piece: self.question.target.piece.name().to_string(),
            square: self.question.target.square.to_string(),
            bits: self.question.bits.into(),
            formula: (self.question.formula != Formula::Plain)
                .then(|| self.question.formula.name().to_string()),
            shards: self.shards,
            parts: self
                .parts
                .iter()
                .map(|(&shard, p)| {
                    let mut w = p.wire.clone();
                    w.shard = shard;
                    match &p.answer {
                        SatAnswer::None { certificate } => {
                            w.result = "unsat".into();
                            w.magic = None;
                            w.certificate = Some(certificate.clone());
                        }
                        SatAnswer::Exists { magic } => {
                            w.result = "sat".into();
                            w.magic = Some(format_magic(*magic));
                            w.certificate = None;
                        }
                    }
                    w
                })
                .collect(),
            extra: self.extra.clone(),
        }
    }

    /// The checked form of `w`, whose target and bits the caller has parsed.
    ///
    /// # Errors
    /// A message naming the bad field.
    pub fn from_wire(w: SatWire, question: Question) -> Result<Sat, String> {
        if !w.shards.is_power_of_two() {
            return Err(format!("shards {} is not a power of two", w.shards));
        }
        let mut parts = BTreeMap::new();
        for p in w.parts {
            if !(1..=w.shards).contains(&p.shard) {
                return Err(format!("part {} outside 1..={}", p.shard, w.shards));
            }
            let answer = answer(&p, question)?;
            if !is_sha256(&p.cnf_sha256) {
                return Err(format!(
                    "part {}: cnf_sha256 is not 64 lower-case hex digits",
                    p.shard
                ));
            }
            let part = |e: String| format!("part {}: {e}", p.shard);
            super::check_seconds("seconds", p.seconds).map_err(part)?;
            super::check_count("conflicts", p.conflicts).map_err(part)?;
            if let Some(t) = &p.at {
                crate::timefmt::check_rfc3339(t).map_err(|e| part(format!("at {e}")))?;
            }
            let shard = p.shard;
            if parts.insert(shard, SatPart { answer, wire: p }).is_some() {
                return Err(format!("part {shard} is listed twice"));
            }
        }
        Ok(Sat {
            question,
            shards: w.shards,
            parts,
            extra: w.extra,
        })
    }
}

fn answer(p: &SatPartWire, question: Question) -> Result<SatAnswer, String> {
    match p.result.as_str() {
        "unsat" => {
            let c = p
                .certificate
                .as_deref()
                .ok_or_else(|| format!("part {}: an unsat part needs its certificate", p.shard))?;
            if !is_plain_relative(c) {
                return Err(format!(
                    "part {}: certificate '{c}' must be a relative path inside the store's folder",
                    p.shard
                ));
            }
            Ok(SatAnswer::None {
                certificate: c.to_string(),
            })
        }
        "sat" => {
            let text = p
                .magic
                .as_deref()
                .ok_or_else(|| format!("part {}: a sat part needs its magic", p.shard))?;
            let m = parse_magic(text).map_err(|e| e.to_string())?;
            magic::verify_question(question, m)
                .map_err(|_| format!("part {}: magic {text} fails verification", p.shard))?;
            Ok(SatAnswer::Exists { magic: m })
        }
        other => Err(format!(
            "part {}: result '{other}' (expected unsat or sat)",
            p.shard
        )),
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A relative path of plain names only (no `..`, no root, no drive).
#[must_use]
pub fn is_plain_relative(s: &str) -> bool {
    !s.is_empty()
        && Path::new(s)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_paths_stay_inside_the_store_folder() {
        assert!(is_plain_relative("proofs/bishop-c1-4.lrat.gz"));
        for bad in ["", "/etc/passwd", "../x", "proofs/../../x", "./x"] {
            assert!(!is_plain_relative(bad), "{bad}");
        }
    }
}
