//! The store's proofs of none, and the records they come from: exhaustive searches and SAT
//! settlements, turned into proofs once complete.

use std::collections::BTreeMap;

use super::Store;
use crate::error::TableError;
use crate::magic::format_magic;
use crate::piece::Target;
use crate::progress::count;
use crate::published;
use crate::question::{Formula, Question};
use crate::table::sat::{Sat, SatAnswer};
use crate::table::{Exhaust, Proof, Provenance};

impl Store {
    /// The store's own proofs of none.
    pub fn proofs(&self) -> impl Iterator<Item = &Proof> {
        self.proofs.values()
    }

    /// Records a proof of none, keeping the strongest (highest bits) per target and formula.
    ///
    /// # Errors
    /// [`TableError::Conflict`] when the store holds a magic of the proof's formula at
    /// `proof.bits` or fewer.
    pub fn add_proof(&mut self, proof: Proof, name: &str) -> Result<(), TableError> {
        if let Some(e) = self.entries.get(&(proof.target, proof.formula)) {
            if e.bits <= proof.bits {
                return Err(TableError::Conflict(format!(
                    "{name}: proof that no {}-bit magic exists for {} contradicts the verified magic {} at {} bits",
                    proof.bits,
                    proof.target,
                    format_magic(e.magic),
                    e.bits
                )));
            }
        }
        let key = (proof.target, proof.formula);
        match self.proofs.get(&key) {
            Some(old) if old.bits >= proof.bits => {}
            _ => {
                self.proofs.insert(key, proof);
            }
        }
        Ok(())
    }

    /// The store's own proof of none for `question` (at its bits or more), if any.
    #[must_use]
    pub fn proof_of(&self, question: Question) -> Option<&Proof> {
        self.proofs
            .get(&(question.target, question.formula))
            .filter(|p| p.bits >= question.bits)
    }

    /// The highest bit count proven impossible for plain magics of `target`: by the proofs
    /// that may decide which work is done (hunt, exhaust, prove, the campaign): the store's
    /// own proofs whose evidence this build checked ([`Store::set_provenance`], set by
    /// [`crate::trust::vet`]) or that this build ships ([`Store::set_built_in`]), and the
    /// published proofs. A proof only claimed steers nothing: [`Store::claimed_only`] says
    /// why it does not. A store that was not vetted has none of its own.
    #[must_use]
    pub fn proven_none(&self, target: Target) -> Option<u32> {
        self.proven_none_with(target, Formula::Plain)
    }

    /// [`Store::proven_none`] under `formula` (the published proofs are all of plain magics).
    #[must_use]
    pub fn proven_none_with(&self, target: Target, formula: Formula) -> Option<u32> {
        self.trusted_own_none_with(target, formula)
            .max(published_none(target, formula))
    }

    /// The highest bit count the store's own proofs of `target` under `formula` rule out
    /// among those that may steer work: checked here or shipped with this build (not the
    /// published ones).
    #[must_use]
    pub fn trusted_own_none_with(&self, target: Target, formula: Formula) -> Option<u32> {
        let own = self.proofs.get(&(target, formula)).map(|p| p.bits);
        let built_in = self.built_in.get(&(target, formula)).copied();
        self.checked_own_none_with(target, formula)
            .max(built_in.min(own))
    }

    /// The highest bit count the store's own proofs rule out whose evidence this build
    /// checked.
    fn checked_own_none_with(&self, target: Target, formula: Formula) -> Option<u32> {
        self.provenance
            .iter()
            .filter(|(q, p)| q.target == target && q.formula == formula && p.is_checked())
            .map(|(q, _)| q.bits)
            .max()
    }

    /// The highest bit count impossible for plain magics of `target` if every proof the
    /// store records held, checked or only claimed (and the published ones): what the store
    /// says, for display; never what decides work ([`Store::proven_none`]).
    #[must_use]
    pub fn claimed_none(&self, target: Target) -> Option<u32> {
        self.claimed_none_with(target, Formula::Plain)
    }

    /// [`Store::claimed_none`] under `formula`.
    #[must_use]
    pub fn claimed_none_with(&self, target: Target, formula: Formula) -> Option<u32> {
        let own = self.proofs.get(&(target, formula)).map(|p| p.bits);
        own.max(published_none(target, formula))
    }

    /// When the store records a proof that no magic answers `question` but it may not steer
    /// work (only claimed: not checked here, not shipped with this build), why: the proof's
    /// [`Provenance`] in a few words. `None` when no proof of the store rules it out, or one
    /// that may steer work does.
    #[must_use]
    pub fn claimed_only(&self, question: Question) -> Option<String> {
        let p = self.proof_of(question)?;
        if self
            .proven_none_with(question.target, question.formula)
            .is_some_and(|b| b >= question.bits)
        {
            return None;
        }
        Some(self.provenance(p).describe())
    }

    /// Records that this build ships a proof that no magic with `question.bits` or fewer
    /// exists for its target and formula (the built-in table holds it: [`crate::shipped`]),
    /// so that the store's own proof of it may steer work though its evidence is elsewhere
    /// (kept beside the proofs, never written to the file; not counted as checked).
    pub fn set_built_in(&mut self, question: Question) {
        let bits = self
            .built_in
            .entry((question.target, question.formula))
            .or_insert(question.bits);
        *bits = (*bits).max(question.bits);
    }

    /// [`Store::proven_none`] counting only the proofs [`Store::counting`] takes: by default
    /// those whose evidence this build checked ([`Store::set_provenance`]) and the published
    /// ones.
    #[must_use]
    pub fn proven_none_counted(&self, target: Target) -> Option<u32> {
        self.proven_none_counted_with(target, Formula::Plain)
    }

    /// [`Store::proven_none_counted`] under `formula` (the published proofs are all of plain
    /// magics).
    #[must_use]
    pub fn proven_none_counted_with(&self, target: Target, formula: Formula) -> Option<u32> {
        match self.counting {
            Counting::Claimed => self.claimed_none_with(target, formula),
            Counting::Checked => self
                .checked_own_none_with(target, formula)
                .max(published_none(target, formula)),
        }
    }

    /// Which proofs the counts of proven squares take ([`Counting::Checked`] unless set).
    #[must_use]
    pub fn counting(&self) -> Counting {
        self.counting
    }

    /// Sets which proofs the counts of proven squares take.
    pub fn set_counting(&mut self, counting: Counting) {
        self.counting = counting;
    }

    /// Records what this build checked of the evidence that no magic answers `question`
    /// (kept beside the proofs, never written to the file).
    pub fn set_provenance(&mut self, question: Question, provenance: Provenance) {
        let p = match self.provenance.remove(&question) {
            Some(old) => old.or(provenance),
            None => provenance,
        };
        self.provenance.insert(question, p);
    }

    /// The provenance of the store's proof `proof`: the strongest checked evidence of its
    /// question or a stronger one, else what was found missing, else "not checked".
    #[must_use]
    pub fn provenance(&self, proof: &Proof) -> Provenance {
        let q = proof.question();
        self.provenance
            .iter()
            .filter(|(k, _)| k.rules_out(q))
            .map(|(_, p)| p.clone())
            .reduce(Provenance::or)
            .unwrap_or_else(|| Provenance::Claimed("no evidence checked here".into()))
    }

    /// The exhaustive search record of (`target`, `bits`) split into `shards` parts.
    #[must_use]
    pub fn exhaust(&self, target: Target, bits: u32, shards: u32) -> Option<&Exhaust> {
        self.exhaust.get(&(target, bits, shards))
    }

    /// All exhaustive search records.
    pub fn exhausts(&self) -> impl Iterator<Item = &Exhaust> {
        self.exhaust.values()
    }

    /// The record of (`target`, `bits`, `shards`), created empty with `task_bits` if absent
    /// (an existing record keeps its own).
    pub fn exhaust_mut(
        &mut self,
        target: Target,
        bits: u32,
        shards: u32,
        task_bits: u32,
        order: crate::exhaust::Order,
    ) -> &mut Exhaust {
        self.exhaust
            .entry((target, bits, shards))
            .or_insert_with(|| Exhaust {
                target,
                bits,
                shards,
                task_bits,
                order,
                parts: BTreeMap::new(),
                extra: BTreeMap::new(),
            })
    }

    /// Turns every complete exhaustive search that found no magic into a proof of none.
    /// Returns the targets and bits newly proven.
    ///
    /// # Errors
    /// [`TableError::Conflict`] if such a proof contradicts a stored magic.
    pub fn settle_exhaust(&mut self, name: &str) -> Result<Vec<(Target, u32)>, TableError> {
        let mut newly = Vec::new();
        let complete: Vec<(Target, u32, u32, crate::exhaust::Order)> = self
            .exhaust
            .values()
            .filter(|x| x.complete() && x.magics() == 0)
            .map(|x| (x.target, x.bits, x.shards, x.order))
            .collect();
        for (target, bits, shards, order) in complete {
            if self
                .proofs
                .get(&(target, Formula::Plain))
                .is_some_and(|p| p.bits >= bits)
            {
                continue;
            }
            let method = format!(
                "exhaustive search of one period, {} (magichunt {}, {shards} parts)",
                match order {
                    crate::exhaust::Order::Low => "low bits first",
                    crate::exhaust::Order::High => "high bits first, carries bounded",
                    crate::exhaust::Order::Trim => "high bits first, windows trimmed",
                    crate::exhaust::Order::Fold => {
                        "high bits first, windows trimmed, the period folded by negation"
                    }
                },
                env!("CARGO_PKG_VERSION")
            );
            let mut extra = BTreeMap::new();
            extra.insert(
                "command".to_string(),
                format!(
                    "magichunt exhaust --piece {} --square {} --bits {bits}{}{}",
                    target.piece,
                    target.square,
                    if order == crate::exhaust::Order::Low {
                        String::new()
                    } else {
                        format!(" --order {order}")
                    },
                    if shards > 1 {
                        format!(" --shard K/{shards} (K = 1..{shards})")
                    } else {
                        String::new()
                    }
                )
                .into(),
            );
            let proof = Proof {
                target,
                bits,
                formula: Formula::Plain,
                method: Some(method),
                extra,
            };
            self.add_proof(proof, name)?;
            newly.push((target, bits));
        }
        Ok(newly)
    }

    /// The SAT settlement of `question` in `shards` parts.
    #[must_use]
    pub fn sat(&self, question: Question, shards: u32) -> Option<&Sat> {
        self.sat.get(&(question, shards))
    }

    /// All SAT settlements.
    pub fn sats(&self) -> impl Iterator<Item = &Sat> {
        self.sat.values()
    }

    /// The SAT settlement of `question` in `shards` parts, created empty if absent.
    pub fn sat_mut(&mut self, question: Question, shards: u32) -> &mut Sat {
        self.sat
            .entry((question, shards))
            .or_insert_with(|| Sat::new(question, shards))
    }

    /// Turns every SAT settlement whose parts are all "none" into a proof of none, naming the
    /// solver, the encoding, the checker and the CNF hash of every part. Returns the questions
    /// newly proven.
    ///
    /// # Errors
    /// [`TableError::Conflict`] if such a proof contradicts a stored magic.
    pub fn settle_sat(&mut self, name: &str) -> Result<Vec<Question>, TableError> {
        let done: Vec<Proof> = self
            .sat
            .values()
            .filter(|x| x.proves_none())
            .filter(|x| self.proof_of(x.question).is_none())
            .map(sat_proof)
            .collect();
        let mut newly = Vec::new();
        for proof in done {
            newly.push(proof.question());
            self.add_proof(proof, name)?;
        }
        Ok(newly)
    }
}

/// The proof of none a complete SAT settlement gives.
fn sat_proof(x: &Sat) -> Proof {
    let q = x.question;
    let first = &x.parts[&1].wire;
    let list = |f: &dyn Fn(&crate::table::sat::SatPart) -> String| -> serde_json::Value {
        if x.shards == 1 {
            f(&x.parts[&1]).into()
        } else {
            x.parts.values().map(f).collect::<Vec<_>>().into()
        }
    };
    let certificate = |p: &crate::table::sat::SatPart| match &p.answer {
        SatAnswer::None { certificate } => certificate.clone(),
        SatAnswer::Exists { .. } => unreachable!("a proof of none has no magic"),
    };
    let conflicts = x
        .parts
        .values()
        .fold(0u64, |n, p| n.saturating_add(p.wire.conflicts));
    let seconds: f64 = x.parts.values().map(|p| p.wire.seconds).sum();
    let method = format!(
        "SAT: {} on {} ({}), every LRAT certificate checked by {}",
        first.solver,
        first.encoding,
        count(x.shards as usize, "part"),
        first.checker.as_deref().unwrap_or("an LRAT checker")
    );
    let mut extra = BTreeMap::new();
    extra.insert("certificate".to_string(), list(&certificate));
    extra.insert(
        "cnf_sha256".to_string(),
        list(&|p| p.wire.cnf_sha256.clone()),
    );
    extra.insert("conflicts".to_string(), conflicts.into());
    extra.insert(
        "seconds".to_string(),
        ((seconds * 1000.0).round() / 1000.0).into(),
    );
    let formula = if q.formula == Formula::Plain {
        String::new()
    } else {
        format!(" --formula {}", q.formula)
    };
    let shard = if x.shards > 1 {
        format!(" --shard K/{} (K = 1..{})", x.shards, x.shards)
    } else {
        String::new()
    };
    extra.insert(
        "command".to_string(),
        format!(
            "magichunt prove --piece {} --square {} --bits {}{formula}{shard}",
            q.target.piece, q.target.square, q.bits
        )
        .into(),
    );
    Proof {
        target: q.target,
        bits: q.bits,
        formula: q.formula,
        method: Some(method),
        extra,
    }
}

/// Which proofs a count of proven-optimal squares takes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// Proofs whose evidence this build checked (certificates, exhaustive residues run here
    /// or audited), and the published proofs.
    #[default]
    Checked,
    /// Every proof the store records, checked or only claimed (`--count-claimed`).
    Claimed,
}

/// The published proof of none for `target` under `formula` (all are of plain magics).
fn published_none(target: Target, formula: Formula) -> Option<u32> {
    match formula {
        Formula::Plain => published::proof(target).map(|p| p.bits),
        Formula::Black => None,
    }
}
