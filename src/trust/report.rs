//! What `magichunt audit` found, line by line: each certificate checked, each finished
//! exhaustive part whose blocks were re-run, each proof left a claim; the text prints a line
//! per item as it is found ([`AuditItem::line`]), `--json` one document at the end
//! ([`AuditReport::to_json`], described in docs/format.md).

use serde::Serialize;

use crate::exhaust::campaign::shard::Shard;
use crate::question::Question;
use crate::timefmt::format_duration;

/// The version of the document's keys (see [`crate::compare::SCHEMA_VERSION`]).
pub const SCHEMA_VERSION: u32 = 1;

/// How an audited record came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The evidence checks (`ok`).
    Held,
    /// The evidence fails (`FAILS`).
    Failed,
    /// There is nothing to check: the record stays a claim (`claim`).
    Claimed,
}

/// What was audited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audited {
    /// One part's SAT certificate.
    Certificate {
        /// Its certificate file, relative to the store's folder.
        certificate: String,
    },
    /// Blocks of one finished part of an exhaustive search re-run.
    Exhaustive {
        /// The blocks drawn to re-run.
        drawn: usize,
        /// The blocks re-run that matched their record, in increasing order (fewer than
        /// drawn when Ctrl-C cut the re-runs short).
        matched: Vec<u64>,
        /// The blocks of the part.
        of: u64,
        /// The block that did not re-run to its record, with the recorded and re-run sums as
        /// the text writes them.
        wrong: Option<(u64, String, String)>,
    },
    /// A proof with no evidence at all.
    Proof,
}

/// One line of an audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditItem {
    /// The question of the record.
    pub question: Question,
    /// The part audited (none for a proof without evidence).
    pub part: Option<Shard>,
    /// What was audited.
    pub what: Audited,
    /// How it came out.
    pub outcome: Outcome,
    /// Why it failed or stays a claim (the checker's or the search's words).
    pub why: Option<String>,
    /// Seconds the check took (certificates and re-runs).
    pub seconds: Option<f64>,
}

impl AuditItem {
    /// The line the text prints for it.
    #[must_use]
    pub fn line(&self) -> String {
        let q = self.question;
        let took = || {
            self.seconds.map_or_else(String::new, |s| {
                format!(
                    " ({})",
                    format_duration(std::time::Duration::from_secs_f64(s))
                )
            })
        };
        let why = self.why.as_deref().unwrap_or("");
        match (&self.what, self.part) {
            (Audited::Certificate { certificate }, Some(part)) => match self.outcome {
                Outcome::Held => format!(
                    "ok    {q}, part {part}: certificate {certificate} checks{}",
                    took()
                ),
                _ => format!("FAILS {q}, part {part}: {why}"),
            },
            (
                Audited::Exhaustive {
                    matched, of, wrong, ..
                },
                Some(part),
            ) => {
                let what = format!(
                    "exhaustive search of {} at {} bits, part {part}",
                    q.target, q.bits
                );
                match (self.outcome, wrong) {
                    (Outcome::Failed, Some((block, recorded, got))) => format!(
                        "FAILS {what}: block {block} of {of} does not re-run to its record (recorded {recorded}, re-run {got})"
                    ),
                    (Outcome::Failed, None) => format!("FAILS {what}: {why}"),
                    (Outcome::Claimed, _) => format!("claim {what}: {why}"),
                    (Outcome::Held, _) => {
                        let list: Vec<String> = matched.iter().map(ToString::to_string).collect();
                        format!(
                            "ok    {what}: block{} {} of {of} re-run, matching{}",
                            if matched.len() == 1 { "" } else { "s" },
                            list.join(", "),
                            took()
                        )
                    }
                }
            }
            _ => format!("claim {q}: {why}"),
        }
    }
}

/// A whole audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditReport {
    /// How to name the store.
    pub store: String,
    /// Blocks of each finished exhaustive part to re-run.
    pub sample: u64,
    /// The seed of the blocks drawn.
    pub seed: u64,
    /// Every line, in the order found.
    pub items: Vec<AuditItem>,
    /// Stopped by Ctrl-C before the end (what was checked is kept).
    pub interrupted: bool,
}

impl AuditReport {
    /// The first line of the text.
    #[must_use]
    pub fn heading(&self) -> String {
        format!(
            "audit of {}: every certificate, and {} block(s) of every finished exhaustive part (seed {})",
            self.store, self.sample, self.seed
        )
    }

    /// Records audited in full that held: certificates that check, parts whose every block
    /// drawn re-ran to its record (not those Ctrl-C cut short, [`AuditItem::partial`]).
    #[must_use]
    pub fn held(&self) -> usize {
        self.count(Outcome::Held)
    }

    /// Records whose evidence fails.
    #[must_use]
    pub fn failed(&self) -> usize {
        self.count(Outcome::Failed)
    }

    /// Records left claims: nothing to check.
    #[must_use]
    pub fn claimed(&self) -> usize {
        self.count(Outcome::Claimed)
    }

    fn count(&self, outcome: Outcome) -> usize {
        self.items
            .iter()
            .filter(|i| i.outcome == outcome && !i.partial())
            .count()
    }

    /// The last line of the text.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "{} held, {} failed, {} only claimed",
            self.held(),
            self.failed(),
            self.claimed()
        )
    }

    /// The `audit --json` document (pretty, with a trailing newline).
    #[must_use]
    pub fn to_json(&self) -> String {
        let items = self
            .items
            .iter()
            .map(|i| {
                let (kind, certificate, blocks, of, wrong) = match &i.what {
                    Audited::Certificate { certificate } => {
                        ("certificate", Some(certificate.clone()), None, None, None)
                    }
                    Audited::Exhaustive {
                        matched, of, wrong, ..
                    } => (
                        "exhaustive",
                        None,
                        Some(matched.clone()),
                        Some(*of),
                        wrong.as_ref().map(|(block, recorded, got)| WrongBlock {
                            block: *block,
                            recorded: recorded.clone(),
                            rerun: got.clone(),
                        }),
                    ),
                    Audited::Proof => ("proof", None, None, None, None),
                };
                ItemWire {
                    kind,
                    outcome: i.outcome,
                    complete: !i.partial(),
                    piece: i.question.target.piece.to_string(),
                    square: i.question.target.square.to_string(),
                    bits: i.question.bits,
                    formula: i.question.formula.name(),
                    part: i.part.map(|p| p.to_string()),
                    certificate,
                    blocks_matched: blocks,
                    blocks: of,
                    wrong_block: wrong,
                    why: i.why.clone(),
                    seconds: i.seconds,
                    line: i.line(),
                }
            })
            .collect();
        let doc = AuditWire {
            schema: "magichunt-audit",
            version: SCHEMA_VERSION,
            magichunt: env!("CARGO_PKG_VERSION"),
            store: self.store.clone(),
            sample: self.sample,
            seed: self.seed,
            interrupted: self.interrupted,
            held: self.held(),
            failed: self.failed(),
            claimed: self.claimed(),
            items,
        };
        let mut s = serde_json::to_string_pretty(&doc).expect("a document serializes");
        s.push('\n');
        s
    }
}

impl AuditItem {
    /// A part whose re-runs matched but were cut short by Ctrl-C: it counts in no total.
    #[must_use]
    pub fn partial(&self) -> bool {
        matches!(&self.what, Audited::Exhaustive { drawn, matched, .. }
            if self.outcome == Outcome::Held && matched.len() < *drawn)
    }
}

#[derive(Serialize)]
struct WrongBlock {
    block: u64,
    recorded: String,
    rerun: String,
}

#[derive(Serialize)]
struct ItemWire {
    /// `certificate`, `exhaustive` or `proof`.
    kind: &'static str,
    outcome: Outcome,
    complete: bool,
    piece: String,
    square: String,
    bits: u32,
    formula: &'static str,
    part: Option<String>,
    certificate: Option<String>,
    blocks_matched: Option<Vec<u64>>,
    blocks: Option<u64>,
    wrong_block: Option<WrongBlock>,
    why: Option<String>,
    seconds: Option<f64>,
    line: String,
}

#[derive(Serialize)]
struct AuditWire {
    schema: &'static str,
    version: u32,
    magichunt: &'static str,
    store: String,
    sample: u64,
    seed: u64,
    interrupted: bool,
    held: usize,
    failed: usize,
    claimed: usize,
    items: Vec<ItemWire>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Piece, Square, Target};

    #[test]
    fn a_part_cut_short_is_listed_but_counts_in_no_total() {
        let f7 = Target::new(Piece::Rook, "f7".parse::<Square>().unwrap());
        let q = Question::new(f7, 8, crate::Formula::Plain).unwrap();
        let part = Some(Shard { index: 1, count: 1 });
        let item = |drawn, matched: Vec<u64>| AuditItem {
            question: q,
            part,
            what: Audited::Exhaustive {
                drawn,
                matched,
                of: 256,
                wrong: None,
            },
            outcome: Outcome::Held,
            why: None,
            seconds: Some(1.5),
        };
        let report = AuditReport {
            store: "s.json".into(),
            sample: 2,
            seed: 7,
            items: vec![item(2, vec![3, 9]), item(2, vec![4])],
            interrupted: true,
        };
        assert_eq!(
            report.items[0].line(),
            "ok    exhaustive search of rook f7 at 8 bits, part 1/1: blocks 3, 9 of 256 re-run, matching (1.5s)"
        );
        assert!(report.items[1].partial());
        assert_eq!(report.summary(), "1 held, 0 failed, 0 only claimed");
        let doc: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(doc["items"][1]["complete"], false);
        assert_eq!(doc["held"], 1);
    }
}
