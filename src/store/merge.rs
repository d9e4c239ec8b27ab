//! Uniting stores: [`Store::merge`], and the rules it shares with loading a file that lists a
//! record twice.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Store;
use crate::error::TableError;
use crate::magic::format_magic;
use crate::table::sat::Sat;
use crate::table::wire::PartWire;
use crate::table::{Effort, Entry, Exhaust, Proof};

impl Store {
    /// Merges `other` into this store: the best entry per target, work records united (one
    /// per run, so merging the same store twice adds nothing), proofs and exhaustive parts
    /// combined; a search whose parts are now all done and found nothing becomes a proof.
    /// Fields this build does not know are kept on both sides, in the records. The top-level
    /// fields are this store's own: `other`'s describe `other` (its source, its author), not
    /// the merged store, and are not taken.
    ///
    /// # Errors
    /// [`TableError::Conflict`] naming both sides when one proves none exists where the other
    /// holds a verified magic, or when they disagree on a SAT part.
    pub fn merge(&mut self, other: Store, mine: &str, theirs: &str) -> Result<(), TableError> {
        for p in other.proofs.values() {
            if let Some(e) = self.entries.get(&(p.target, p.formula)) {
                if e.bits <= p.bits {
                    return Err(conflict(p, theirs, e, mine));
                }
            }
        }
        for e in other.entries.values() {
            if let Some(p) = self.proofs.get(&(e.target, e.formula)) {
                if e.bits <= p.bits {
                    return Err(conflict(p, mine, e, theirs));
                }
            }
        }
        for (_, e) in other.entries {
            self.offer(e);
        }
        for (_, p) in other.proofs {
            self.add_proof(p, theirs)?;
        }
        for (_, e) in other.effort {
            self.unite_effort(e);
        }
        for (_, x) in other.exhaust {
            self.unite_exhaust(x, mine, theirs)?;
        }
        for (_, x) in other.sat {
            self.unite_sat(x, mine, theirs)?;
        }
        let name = format!("{mine} + {theirs}");
        self.settle_exhaust(&name)?;
        self.settle_sat(&name)?;
        Ok(())
    }

    /// Adds a run's work record: of two records of one run, the one with more candidates.
    pub(super) fn unite_effort(&mut self, e: Effort) {
        let key = (e.target, e.bits, e.run.clone());
        match self.effort.get_mut(&key) {
            Some(old) if old.tried >= e.tried => keep_extras(&mut old.extra, e.extra),
            Some(old) => {
                let extra = std::mem::take(&mut old.extra);
                *old = e;
                keep_extras(&mut old.extra, extra);
            }
            None => {
                self.effort.insert(key, e);
            }
        }
    }

    /// Adds an exhaustive search record: part by part, the copy with more progress. Two
    /// records that cut the space into different tasks cover different parts of it under
    /// one part number, so they are not united.
    pub(super) fn unite_exhaust(
        &mut self,
        x: Exhaust,
        mine: &str,
        theirs: &str,
    ) -> Result<(), TableError> {
        let ours = self
            .exhaust
            .entry((x.target, x.bits, x.shards))
            .or_insert_with(|| Exhaust {
                parts: BTreeMap::new(),
                extra: BTreeMap::new(),
                ..x.clone()
            });
        if ours.task_bits != x.task_bits {
            return Err(TableError::Conflict(format!(
                "{mine} and {theirs} split the exhaustive search of {} at {} bits in {} parts into different tasks (2^{} and 2^{}): their parts cannot be combined",
                x.target, x.bits, x.shards, ours.task_bits, x.task_bits
            )));
        }
        if ours.order != x.order {
            return Err(TableError::Conflict(format!(
                "{mine} and {theirs} search {} at {} bits in {} parts in different orders ({} and {}): their parts cannot be combined",
                x.target, x.bits, x.shards, ours.order, x.order
            )));
        }
        keep_extras(&mut ours.extra, x.extra);
        // Of two copies of a part: the finished one, then the one with evidence, then the
        // one further on. Two finished copies with residues are two runs of one search:
        // they must agree, or one of them is wrong.
        let rank = |p: &PartWire| (p.done, p.residue.is_some(), p.nodes);
        for (shard, mut part) in x.parts {
            match ours.parts.get_mut(&shard) {
                None => {
                    ours.parts.insert(shard, part);
                }
                Some(old) if disagree(old, &part) => {
                    return Err(TableError::Conflict(format!(
                        "{mine} and {theirs} hold different results for part {shard}/{} of the exhaustive search of {} at {} bits ({} and {} nodes, {} and {} magics, residues differ): one of them is wrong; `magichunt audit` each",
                        x.shards, x.target, x.bits, old.nodes, part.nodes, old.magics, part.magics
                    )))
                }
                Some(old) if rank(&part) > rank(old) => {
                    keep_extras(&mut part.extra, std::mem::take(&mut old.extra));
                    carry_lists(&mut part, old);
                    *old = part;
                }
                Some(old) => {
                    carry_lists(old, &part);
                    keep_extras(&mut old.extra, part.extra);
                }
            }
        }
        Ok(())
    }

    /// Adds a SAT settlement: part by part; two answers to one part must agree.
    pub(super) fn unite_sat(&mut self, x: Sat, mine: &str, theirs: &str) -> Result<(), TableError> {
        let ours = self
            .sat
            .entry((x.question, x.shards))
            .or_insert_with(|| Sat {
                parts: BTreeMap::new(),
                extra: BTreeMap::new(),
                ..x.clone()
            });
        keep_extras(&mut ours.extra, x.extra);
        for (shard, part) in x.parts {
            match ours.parts.get_mut(&shard) {
                None => {
                    ours.parts.insert(shard, part);
                }
                Some(old) if old.answer == part.answer => {
                    keep_extras(&mut old.wire.extra, part.wire.extra);
                }
                Some(old) => {
                    return Err(TableError::Conflict(format!(
                        "{mine} and {theirs} disagree on part {shard}/{} of {}: {:?} against {:?}",
                        ours.shards, ours.question, old.answer, part.answer
                    )))
                }
            }
        }
        Ok(())
    }
}

/// Whether two finished copies of one part, both with residues, give different results.
fn disagree(a: &PartWire, b: &PartWire) -> bool {
    match (&a.residue, &b.residue) {
        (Some(ra), Some(rb)) if a.done && b.done => {
            (ra.scheme == rb.scheme && ra.blocks != rb.blocks)
                || (a.nodes, a.magics) != (b.nodes, b.magics)
        }
        _ => false,
    }
}

/// Of two copies of one finished part with the same results, the kept one takes the other's
/// lists of magics (its own and those supplied, together: each copy's are consistent) when
/// they name more magics: a list supplied to one copy after the search is not lost.
fn carry_lists(kept: &mut PartWire, other: &PartWire) {
    let same = kept.done && other.done && (kept.nodes, kept.magics) == (other.nodes, other.magics);
    let named = |p: &PartWire| {
        crate::exhaust::campaign::found::listed(p.found.as_ref(), p.supplied.as_ref()).len()
    };
    if same && named(other) > named(kept) {
        kept.found.clone_from(&other.found);
        kept.supplied.clone_from(&other.supplied);
    }
}

/// Adds to `kept` the fields of `other` it lacks.
fn keep_extras(kept: &mut BTreeMap<String, Value>, other: BTreeMap<String, Value>) {
    for (k, v) in other {
        kept.entry(k).or_insert(v);
    }
}

fn conflict(p: &Proof, proof_side: &str, e: &Entry, magic_side: &str) -> TableError {
    TableError::Conflict(format!(
        "{proof_side} proves no {}-bit magic exists for {}, but {magic_side} holds the verified magic {} at {} bits",
        p.bits,
        p.target,
        format_magic(e.magic),
        e.bits
    ))
}
