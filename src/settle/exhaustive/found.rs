//! What a search knows of its magics: how many its parts counted, which ones they list (and
//! which another walk supplied), and the tightest of them; and `exhaust --add-found`, which
//! supplies the magics a part's list lacks ([`add_found`]).
//!
//! A part lists its magics as it finds them ([`crate::exhaust::campaign::found`]); one begun
//! before lists existed lists them only from where it resumed, and one with more than
//! [`MAX_LISTED`] stops listing. Another walk of the same search (the C walk of
//! `scripts/research/check-store.py`, which lists every magic of the period) can give the
//! rest: each is verified by [`magic::verify`], placed in the part whose subtrees hold it, and
//! kept apart from the part's own list with the name of its source. No part may then list
//! more magics than it counted: a walk that found a magic the search did not count is a
//! disagreement, and nothing is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::error::PartError;
use super::outcome::Whole;
use super::record;
use crate::exhaust::campaign::found::{listed, period_bits, task_of, MAX_LISTED};
use crate::exhaust::campaign::shard::Shard;
use crate::fs::lock::StoreLock;
use crate::magic::{self, format_magic, parse_magic, Verified};
use crate::question::{Formula, Question};
use crate::store::Store;
use crate::table::Exhaust;

/// The most bytes `--add-found` reads: 4,096 magics a part on lines of comments.
const MAX_FILE: u64 = 16 << 20;

/// The tightest of `magics` for `q`: the smallest highest index, then the fewest slots used,
/// then the smallest magic; each through the one verify (those it refuses are left out).
#[must_use]
pub fn tightest(q: Question, magics: impl IntoIterator<Item = u64>) -> Option<Verified> {
    let pairs = crate::attacks::Occupancies::new(q.target);
    magics
        .into_iter()
        .filter_map(|m| magic::verify_pairs(&pairs, q.bits, m).ok())
        .min_by_key(|v| (v.max_index, v.used_slots, v.magic))
}

/// What a search whose every part is done says of its magics: [`Whole::Exists`].
pub(super) fn exists(x: &Exhaust) -> Whole {
    let q = x.question();
    let known: BTreeSet<u64> = x
        .parts
        .values()
        .flat_map(|p| listed(p.found.as_ref(), p.supplied.as_ref()))
        .collect();
    // Each part's best has the smallest highest index of all its magics, listed or not.
    let bests = x
        .parts
        .values()
        .filter_map(|p| p.best.as_deref())
        .filter_map(|b| parse_magic(b).ok());
    Whole::Exists {
        magics: x.magics(),
        listed: known.len() as u64,
        tightest: tightest(q, known.iter().copied().chain(bests)),
        period_bits: period_bits(q.target),
        order: x.order,
    }
}

/// `exhaust --add-found FILE`: magics another walk of a search found, to supply where the
/// search's parts do not list them.
#[derive(Clone, Debug)]
pub struct FoundConfig {
    /// The question searched.
    pub question: Question,
    /// The parts the search is cut into (its record is the one of that many parts).
    pub shards: u32,
    /// The store holding the search.
    pub store: PathBuf,
    /// The file of magics: one a line (`0x` hex or decimal, first on its line), blank lines
    /// and lines starting with `#` skipped.
    pub file: PathBuf,
}

/// What [`add_found`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct Added {
    /// The question.
    pub question: Question,
    /// Magics the file gives (distinct, reduced modulo the period).
    pub given: u64,
    /// Of them, the ones the parts listed already.
    pub already: u64,
    /// Of them, the ones now supplied.
    pub supplied: u64,
    /// What the whole search says now (when every part is done).
    pub whole: Option<Whole>,
}

impl Added {
    /// What `magichunt exhaust --add-found` prints.
    #[must_use]
    pub fn render_text(&self) -> String {
        let q = self.question;
        let mut out = format!(
            "{} at {} bits: {} magics given, each verified: {} listed by the search already, {} supplied\n",
            q.target, q.bits, self.given, self.already, self.supplied
        );
        if let Some(w) = &self.whole {
            out += &w.render(q);
        }
        out
    }
}

/// Reads `cfg.file`, verifies each magic, supplies those the parts of the search do not
/// list (named by the file as given), offers the tightest magic of the search to the store,
/// and saves it.
///
/// # Errors
/// [`PartError::Record`] when the file is unreadable or gives a line that is not a magic of
/// the question, when the store holds no such search, or when a part would list more magics
/// than it counted (the store is then left as it was); lock, load and save errors.
pub fn add_found(cfg: &FoundConfig) -> Result<Added, PartError> {
    let q = cfg.question;
    if q.formula != Formula::Plain {
        return Err(PartError::Black);
    }
    let period = period_bits(q.target);
    let file = cfg.file.display().to_string();
    let bytes = crate::fs::input::read(&cfg.file, crate::fs::input::Kind::Other, MAX_FILE)
        .map_err(|e| PartError::Record(e.to_string()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| PartError::Record(format!("{file} is not UTF-8 text")))?;
    let pairs = crate::attacks::Occupancies::new(q.target);
    let mut given = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or_default();
        let bad = |why: String| PartError::Record(format!("{file} line {}: {why}", n + 1));
        let m = parse_magic(word).map_err(|e| bad(e.to_string()))?;
        let m = if period >= 64 {
            m
        } else {
            m & ((1u64 << period) - 1)
        };
        magic::verify_pairs(&pairs, q.bits, m).map_err(|c| {
            bad(format!(
                "{} is not a magic of {} at {} bits (two subsets collide at index {})",
                format_magic(m),
                q.target,
                q.bits,
                c.index
            ))
        })?;
        given.insert(m);
    }
    let lock = StoreLock::acquire(&cfg.store, crate::fs::output::Writes::Store)?;
    let path = lock.store();
    let name = cfg.store.display().to_string();
    let mut store = Store::load(path).map_err(|source| PartError::Load {
        name: name.clone(),
        source,
    })?;
    let Some(x) = store.exhaust(q.target, q.bits, cfg.shards) else {
        return Err(PartError::Record(format!(
            "{name} holds no exhaustive search of {} at {} bits in {} parts",
            q.target, q.bits, cfg.shards
        )));
    };
    let (task_bits, order, shards) = (x.task_bits, x.order, x.shards);
    // Each magic's part, and what the parts list already.
    let mut new: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    let mut already = 0;
    for &m in &given {
        let task = task_of(order, period, task_bits, m);
        let k = u32::try_from(task % u64::from(shards)).expect("below the parts") + 1;
        let Some(p) = x.parts.get(&k) else {
            return Err(PartError::Record(format!(
                "{} lies in part {k}/{shards}, which {name} has not begun",
                format_magic(m)
            )));
        };
        if listed(p.found.as_ref(), p.supplied.as_ref()).contains(&m) {
            already += 1;
        } else {
            new.entry(k).or_default().push(m);
        }
    }
    for (&k, magics) in &new {
        let p = x.parts.get(&k).expect("looked up above");
        let have = listed(p.found.as_ref(), p.supplied.as_ref()).len();
        let kept = p.supplied.as_ref().map_or(0, |s| s.magics.len());
        if (have + magics.len()) as u64 > p.magics {
            return Err(PartError::Record(format!(
                "{file} gives {} magics of part {k}/{shards} that it does not list, but the part counted {} and lists {have}: the search or the file is wrong ({name} left as it was)",
                magics.len(),
                p.magics
            )));
        }
        if kept + magics.len() > MAX_LISTED {
            return Err(PartError::Record(format!(
                "{file} gives more magics of part {k}/{shards} than a part keeps ({MAX_LISTED})"
            )));
        }
    }
    let mut supplied = 0;
    for (k, magics) in new {
        supplied += magics.len() as u64;
        let part = Shard {
            index: k,
            count: shards,
        };
        record::supply(&mut store, q, part, &file, &magics).map_err(PartError::Record)?;
    }
    let x = store
        .exhaust(q.target, q.bits, cfg.shards)
        .expect("looked up above");
    let whole = x.complete().then(|| record::whole_of(x));
    if let Some(Whole::Exists {
        tightest: Some(v), ..
    }) = &whole
    {
        record::offer_verified(&mut store, v, "listed");
    }
    store.save_locked(&lock)?;
    Ok(Added {
        question: q,
        given: given.len() as u64,
        already,
        supplied,
        whole,
    })
}
