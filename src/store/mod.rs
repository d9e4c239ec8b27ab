//! The results store: the best magic per target, the work done, proofs and exhaustive
//! progress; loaded with every entry verified, saved atomically, merged across machines.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use crate::error::{SaveError, TableError};
use crate::fs::lock::StoreLock;
use crate::fs::output::Writes;
use crate::piece::Target;
use crate::question::{Formula, Question};
use crate::table::sat::Sat;
use crate::table::{Effort, Entry, Exhaust, Proof, Provenance, Table};

/// What [`Store::offer`] did with a magic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The target had no magic; this one is stored.
    New,
    /// It replaced a worse magic, which had these bits and highest index.
    Improved {
        /// Bits of the replaced magic.
        old_bits: u32,
        /// Highest index of the replaced magic.
        old_max_index: u32,
    },
    /// The stored magic is as good or better; nothing changed.
    Kept,
}

/// The results store. One entry per target and formula: the best magic by
/// [`Entry::rank`] (fewer bits win, then a smaller tight table). A worse magic never replaces
/// a better one, and a black magic never replaces a plain one (nor the reverse).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Store {
    meta: BTreeMap<String, serde_json::Value>,
    entries: BTreeMap<(Target, Formula), Entry>,
    proofs: BTreeMap<(Target, Formula), Proof>,
    effort: BTreeMap<(Target, u32, String), Effort>,
    exhaust: BTreeMap<(Target, u32, u32), Exhaust>,
    sat: BTreeMap<(Question, u32), Sat>,
    /// What this build checked of the proofs' evidence, by question (never in the file).
    provenance: BTreeMap<Question, Provenance>,
    /// The bits of the proofs this build ships (the built-in table) that the store's own
    /// proofs repeat, by target and formula (never in the file).
    built_in: BTreeMap<(Target, Formula), u32>,
    /// Which proofs the counts of proven squares take.
    counting: Counting,
    /// Records a verified magic refuted since [`Store::take_refuted`] was last called.
    refuted: Vec<String>,
}

impl Store {
    /// An empty store.
    #[must_use]
    pub fn new() -> Store {
        Store::default()
    }

    /// Loads a store; a missing file is an empty store. Every entry is verified again. What
    /// [`Store::read`] notes (records listed twice, collapsed into one) goes to stderr.
    ///
    /// # Errors
    /// [`TableError`] when the file cannot be read, is not a table, is of a newer version, has
    /// an entry that fails verification, or contradicts itself (a magic where a proof says
    /// none exists). The file is never touched.
    pub fn load(path: &Path) -> Result<Store, TableError> {
        let (store, notes) = Store::read(path)?;
        for n in notes {
            crate::say!("magichunt: {n}");
        }
        Ok(store)
    }

    /// [`Store::load`] without printing: the store, and one line per record the file lists
    /// twice (a square's entry, a run's work, a search's parts), collapsed into one.
    ///
    /// # Errors
    /// As [`Store::load`].
    pub fn read(path: &Path) -> Result<(Store, Vec<String>), TableError> {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((Store::new(), Vec::new())),
            _ => Store::from_table_noting(
                Table::read_as(path, crate::fs::input::Kind::Store)?,
                &path.display().to_string(),
            ),
        }
    }

    /// Builds a store from a checked table; `name` names it in conflict messages.
    ///
    /// # Errors
    /// [`TableError::Conflict`] when a proof of none contradicts a magic of the table.
    pub fn from_table(table: Table, name: &str) -> Result<Store, TableError> {
        Ok(Store::from_table_noting(table, name)?.0)
    }

    /// [`Store::from_table`], with one line per record listed twice: the duplicates are
    /// collapsed as a merge would (the best entry, the strongest proof, the run record with
    /// the most work, the parts with the most progress).
    ///
    /// # Errors
    /// As [`Store::from_table`], and when two copies of a SAT part disagree.
    pub fn from_table_noting(table: Table, name: &str) -> Result<(Store, Vec<String>), TableError> {
        let mut meta = table.meta;
        // A store is saved as a store: what says how a table's entries are laid out or read
        // (an export's header and sizes, a packed table's array, a pool's kind, the entries'
        // default formula, applied to them as they were read) describes another file, as do
        // the figures a layout derives for each entry (dropped below).
        for key in crate::table::LAYOUT_FIELDS {
            meta.remove(key);
        }
        let mut store = Store {
            meta,
            ..Store::default()
        };
        let mut twice: BTreeMap<String, usize> = BTreeMap::new();
        let mut seen = |what: String| *twice.entry(what).or_default() += 1;
        for mut e in table.entries {
            seen(format!("entries for {} ({})", e.target, e.formula.name()));
            for key in crate::table::DERIVED_FIELDS {
                e.extra.remove(key);
            }
            store.offer(e);
        }
        for p in table.proofs {
            seen(format!("proofs for {} ({})", p.target, p.formula.name()));
            store.add_proof(p, name)?;
        }
        for e in table.effort {
            seen(format!(
                "effort records for {} at {} bits of run {}",
                e.target, e.bits, e.run
            ));
            store.unite_effort(e);
        }
        for x in table.exhaust {
            seen(format!(
                "exhaust records for {} at {} bits in {} parts",
                x.target, x.bits, x.shards
            ));
            store.unite_exhaust(x, name, name)?;
        }
        for x in table.sat {
            seen(format!(
                "sat records for {} in {} parts",
                x.question, x.shards
            ));
            store.unite_sat(x, name, name)?;
        }
        let notes = twice
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(what, n)| format!("{name}: {n} {what}: collapsed into one, keeping the best"))
            .collect();
        Ok((store, notes))
    }

    /// The store as a table, entries in target order, with `tried` and `seconds` per entry.
    #[must_use]
    pub fn to_table(&self) -> Table {
        Table {
            meta: self.meta.clone(),
            entries: self.entries.values().cloned().collect(),
            proofs: self.proofs.values().cloned().collect(),
            effort: self.effort.values().cloned().collect(),
            exhaust: self.exhaust.values().cloned().collect(),
            sat: self.sat.values().cloned().collect(),
        }
    }

    /// The store as JSON: entries carry the cumulative `tried` and `seconds` of their target.
    #[must_use]
    pub fn to_json(&self) -> String {
        let table = self.to_table();
        let mut value: serde_json::Value =
            serde_json::from_str(&table.to_json()).expect("own JSON parses");
        if let Some(entries) = value.get_mut("entries").and_then(|v| v.as_array_mut()) {
            for (item, e) in entries.iter_mut().zip(&table.entries) {
                let (tried, seconds) = self.work_with(e.target, e.formula);
                item["tried"] = tried.into();
                item["seconds"] = ((seconds * 1000.0).round() / 1000.0).into();
            }
        }
        let mut s = serde_json::to_string_pretty(&value).expect("serializes");
        s.push('\n');
        s
    }

    /// Saves atomically (temporary file beside it, fsync, rename) through the output guard
    /// ([`crate::fs::output`]): a packed table at `path` is never replaced by a store. No
    /// lock is taken: for a file no other process writes. A writer holding the store's lock
    /// saves with [`Store::save_locked`].
    ///
    /// # Errors
    /// [`SaveError`]; the file on disk is then left as it was.
    pub fn save(&self, path: &Path) -> Result<(), SaveError> {
        crate::fs::output::write(path, self.to_json().as_bytes(), Writes::Store, &[])
            .map(|_| ())
            .map_err(|source| SaveError {
                path: path.to_path_buf(),
                source,
            })
    }

    /// Saves to the store `lock` holds, as [`Store::save`] does, once the lock has made sure
    /// this writer still holds the store ([`StoreLock::write`]): a store another process
    /// took meanwhile is never overwritten.
    ///
    /// # Errors
    /// [`SaveError`]; the file on disk is then left as it was.
    pub fn save_locked(&self, lock: &StoreLock) -> Result<(), SaveError> {
        lock.write(self.to_json().as_bytes())
            .map_err(|source| SaveError {
                path: lock.store().to_path_buf(),
                source,
            })
    }

    /// The top-level fields of the store other than its lists (`about`, ...), kept as they
    /// were read.
    #[must_use]
    pub fn meta(&self) -> &BTreeMap<String, serde_json::Value> {
        &self.meta
    }

    /// Replaces the top-level fields (see [`Store::meta`]); those of
    /// [`LAYOUT_FIELDS`](crate::table::LAYOUT_FIELDS) are left out.
    pub fn set_meta(&mut self, mut meta: BTreeMap<String, serde_json::Value>) {
        for key in crate::table::LAYOUT_FIELDS {
            meta.remove(key);
        }
        self.meta = meta;
    }

    /// The stored plain magic of `target`.
    #[must_use]
    pub fn best(&self, target: Target) -> Option<&Entry> {
        self.best_with(target, Formula::Plain)
    }

    /// The stored magic of `target` under `formula`.
    #[must_use]
    pub fn best_with(&self, target: Target, formula: Formula) -> Option<&Entry> {
        self.entries.get(&(target, formula))
    }

    /// All stored magics in target order (a target's plain magic before its black one).
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }

    /// The stored magics of one formula, in target order.
    pub fn entries_with(&self, formula: Formula) -> impl Iterator<Item = &Entry> {
        self.entries.values().filter(move |e| e.formula == formula)
    }

    /// Offers a verified magic: stored if the target has none of its formula or a worse one.
    /// A magic that replaces another keeps the old entry's other fields (a note, say) that it
    /// does not set itself, except those of [`REPLACED_WITH_THE_MAGIC`].
    ///
    /// A stored magic refutes every record that says none exists at its bits or more (a
    /// magic at `b` bits is one at every count above): a proof, a finished exhaustive search
    /// that found none, a SAT settlement of none. Only a claim can be refuted so (a proof
    /// checked here cannot be, short of a bug), so a proof that was wrongly claimed never
    /// keeps a find out of the store: they are removed, and [`Store::take_refuted`] says
    /// which.
    pub fn offer(&mut self, entry: Entry) -> Offer {
        let (target, formula, bits) = (entry.target, entry.formula, entry.bits);
        let offer = self.offer_entry(entry);
        if offer != Offer::Kept {
            self.drop_refuted(target, formula, bits);
        }
        offer
    }

    /// The records of none removed because a magic refuted them (see [`Store::offer`]),
    /// one line each, since the last call.
    pub fn take_refuted(&mut self) -> Vec<String> {
        std::mem::take(&mut self.refuted)
    }

    fn drop_refuted(&mut self, target: Target, formula: Formula, bits: u32) {
        let key = (target, formula);
        if let Some(p) = self.proofs.get(&key).filter(|p| p.bits >= bits) {
            self.refuted.push(format!(
                "the magic at {bits} bits refutes the store's proof that no {}-bit magic exists for {target}: proof removed",
                p.bits
            ));
            self.proofs.remove(&key);
        }
        let mut gone = Vec::new();
        self.exhaust.retain(|&(t, b, shards), x| {
            let refuted = formula == Formula::Plain
                && t == target
                && b >= bits
                && x.complete()
                && x.magics() == 0;
            if refuted {
                gone.push(format!(
                    "the magic at {bits} bits refutes the exhaustive search of {t} at {b} bits in {shards} parts that found none: record removed"
                ));
            }
            !refuted
        });
        self.sat.retain(|(q, _), x| {
            let refuted =
                q.target == target && q.formula == formula && q.bits >= bits && x.proves_none();
            if refuted {
                gone.push(format!(
                    "the magic at {bits} bits refutes the SAT settlement of {q} that found none: record removed"
                ));
            }
            !refuted
        });
        self.refuted.extend(gone);
        self.provenance
            .retain(|q, _| !(q.target == target && q.formula == formula && q.bits >= bits));
        if self.built_in.get(&key).is_some_and(|&b| b >= bits) {
            self.built_in.remove(&key);
        }
    }

    fn offer_entry(&mut self, mut entry: Entry) -> Offer {
        let key = (entry.target, entry.formula);
        match self.entries.get(&key) {
            None => {
                self.entries.insert(key, entry);
                Offer::New
            }
            Some(old) if entry.rank() < old.rank() => {
                let out = Offer::Improved {
                    old_bits: old.bits,
                    old_max_index: old.max_index,
                };
                for (k, v) in &old.extra {
                    if !REPLACED_WITH_THE_MAGIC.contains(&k.as_str()) {
                        entry.extra.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                self.entries.insert(key, entry);
                out
            }
            Some(_) => Offer::Kept,
        }
    }

    /// Adds work done by `run` on (`target`, `bits`) to that run's record (plain magics).
    pub fn add_effort(&mut self, target: Target, bits: u32, run: &str, tried: u64, seconds: f64) {
        let q = Question {
            target,
            bits,
            formula: Formula::Plain,
        };
        self.add_effort_on(q, run, tried, seconds);
    }

    /// Adds work done by `run` on `question` to that run's record (a run hunts one formula,
    /// so the run names the record).
    pub fn add_effort_on(&mut self, question: Question, run: &str, tried: u64, seconds: f64) {
        let Question {
            target,
            bits,
            formula,
        } = question;
        let rec = self
            .effort
            .entry((target, bits, run.to_string()))
            .or_insert_with(|| Effort {
                target,
                bits,
                formula,
                run: run.to_string(),
                tried: 0,
                seconds: 0.0,
                extra: BTreeMap::new(),
            });
        rec.tried = rec.tried.saturating_add(tried);
        rec.seconds += seconds;
    }

    /// Candidates examined and seconds spent on plain magics of `target`, over all runs and
    /// bit counts (saturating at `u64::MAX`).
    #[must_use]
    pub fn work(&self, target: Target) -> (u64, f64) {
        self.work_with(target, Formula::Plain)
    }

    /// [`Store::work`] under `formula`.
    #[must_use]
    pub fn work_with(&self, target: Target, formula: Formula) -> (u64, f64) {
        sum_work(
            self.effort
                .values()
                .filter(|e| e.target == target && e.formula == formula),
        )
    }

    /// Candidates examined and seconds spent on (`target`, `bits`) plain, over all runs.
    #[must_use]
    pub fn work_at(&self, target: Target, bits: u32) -> (u64, f64) {
        self.work_on(Question {
            target,
            bits,
            formula: Formula::Plain,
        })
    }

    /// Candidates examined and seconds spent on `question`, over all runs.
    #[must_use]
    pub fn work_on(&self, question: Question) -> (u64, f64) {
        sum_work(self.effort.values().filter(|e| {
            (e.target, e.bits, e.formula) == (question.target, question.bits, question.formula)
        }))
    }

    /// All work records.
    pub fn effort(&self) -> impl Iterator<Item = &Effort> {
        self.effort.values()
    }
}

/// Fields of an entry that describe its magic rather than its square: they go when a better
/// magic replaces it (`found_by` and `source` would credit the old magic's finder; an
/// export's `shift` and `offset` belong to the old layout; a published table's `used_indices`
/// and `verified`, a pool's `slots` and `footprint`, an export's `filled` are figures of the
/// old magic, which `verify` would find false of the new one). Other fields are kept.
pub const REPLACED_WITH_THE_MAGIC: [&str; 9] = [
    "found_by",
    "source",
    "shift",
    "offset",
    "used_indices",
    "verified",
    "slots",
    "footprint",
    "filled",
];

/// Candidates and seconds over `records`, the candidates saturating at `u64::MAX`.
fn sum_work<'a>(records: impl Iterator<Item = &'a Effort>) -> (u64, f64) {
    records.fold((0, 0.0), |(t, s), e| {
        (t.saturating_add(e.tried), s + e.seconds)
    })
}

mod lead;
mod merge;
mod optimal;
mod proofs;

pub use lead::{Lead, LeadKind};
pub use proofs::Counting;
#[cfg(test)]
mod tests;

pub use optimal::{optimal_for_work, optimal_if_claims_hold, proven_optimal, proven_optimal_with};
