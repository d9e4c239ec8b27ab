//! Pools: many valid magics per square, kept for the packer to choose from.
//!
//! A packed table is smallest when every square brings a magic whose slots fit the holes the
//! other squares leave, so the packer needs choices, not one magic per square. A pool keeps,
//! for every question (target, bits, formula), up to [`Pool::capacity`] magics with distinct
//! slot patterns, ranked by their **footprint**: the slots they write plus the holes inside
//! their span of at most [`Pool::gap`] slots, which no other square can fill
//! ([`Pattern::footprint`]). A gap of 0 ranks by slots alone (the few-slot magics of the
//! fixed-shift records); a larger gap prefers magics whose slots come in dense blocks.
//!
//! The file is a table in the table format (`"kind": "pool"`), gzip-compressed when its name
//! ends in `.gz`: every magic is verified again when it is read, and the slot figures the file
//! states must be what verify gives. Pools merge like stores: the union of both sides, the
//! best [`Pool::capacity`] per question kept, the work records of every run kept once.

pub mod file;
pub mod hunt;
pub mod indexed;
pub mod merge;
pub mod pack;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};

use serde_json::Value;

use crate::attacks::Occupancies;
use crate::layout::Pattern;
use crate::piece::Target;
use crate::question::{Formula, Question};
use crate::table::{Effort, Entry};

/// Magics kept per question when nothing else is said.
pub const DEFAULT_CAPACITY: usize = 64;

/// Holes of at most this many slots count as used when nothing else is said: about the
/// smallest run a bishop's dense table fills.
pub const DEFAULT_GAP: u32 = 64;

/// One magic of a pool, with the figures it is ranked by.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The verified magic.
    pub entry: Entry,
    /// Distinct slots it writes.
    pub slots: u32,
    /// Slots plus the short holes inside its span (see [`Pattern::footprint`]).
    pub footprint: u32,
    /// A hash of its slot pattern (indices from the lowest), so that two magics with the same
    /// pattern are kept once.
    pub shape: u64,
}

impl Member {
    /// The member for a verified entry whose pattern is `pattern`, ranked with `gap`.
    #[must_use]
    pub fn new(entry: Entry, pattern: &Pattern, gap: u32) -> Member {
        Member {
            slots: pattern.used(),
            footprint: pattern.footprint(gap),
            shape: shape_hash(pattern),
            entry,
        }
    }

    /// The ranking key: smaller footprint, then fewer slots, then a smaller span, then the
    /// smaller magic (only so that ties break the same way everywhere). Smaller is better.
    #[must_use]
    pub fn rank(&self) -> (u32, u32, u32, u64) {
        (
            self.footprint,
            self.slots,
            self.entry.span(),
            self.entry.magic,
        )
    }
}

/// What [`Pool::offer`] did with a magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Kept: new to the pool.
    Added,
    /// Not kept: the pool holds the same pattern already, or enough better ones.
    Refused,
}

/// Many magics per question, best first; the work that went into them.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    /// Holes of at most this many slots count against a magic (its footprint).
    pub gap: u32,
    /// Magics kept per question at most.
    pub capacity: usize,
    groups: BTreeMap<Question, Vec<Member>>,
    effort: BTreeMap<(Question, String), Effort>,
    /// Other top-level fields, kept as they are.
    pub meta: BTreeMap<String, Value>,
}

impl Pool {
    /// An empty pool.
    #[must_use]
    pub fn new(gap: u32, capacity: usize) -> Pool {
        Pool {
            gap,
            capacity: capacity.max(1),
            groups: BTreeMap::new(),
            effort: BTreeMap::new(),
            meta: BTreeMap::new(),
        }
    }

    /// Offers a verified magic with its pattern: kept if its pattern is new and it ranks
    /// among the best [`Pool::capacity`] of its question (a better magic with a pattern
    /// already held replaces the held one).
    pub fn offer(&mut self, entry: Entry, pattern: &Pattern) -> Taken {
        let member = Member::new(entry, pattern, self.gap);
        let capacity = self.capacity;
        let group = self.groups.entry(member.entry.question()).or_default();
        if let Some(k) = group.iter().position(|m| m.shape == member.shape) {
            if group[k].rank() <= member.rank() {
                return Taken::Refused;
            }
            group.remove(k);
        } else if group.len() >= capacity && group[capacity - 1].rank() <= member.rank() {
            return Taken::Refused;
        }
        let at = group.partition_point(|m| m.rank() < member.rank());
        group.insert(at, member);
        group.truncate(capacity);
        Taken::Added
    }

    /// The largest footprint a new magic of `question` may have to be kept: that of the
    /// worst kept one when the question is full, else `None` (any valid magic is kept).
    #[must_use]
    pub fn threshold(&self, question: Question) -> Option<u32> {
        self.groups
            .get(&question)
            .filter(|g| g.len() >= self.capacity)
            .and_then(|g| g.last())
            .map(|m| m.footprint)
    }

    /// The members of `question`, best first.
    #[must_use]
    pub fn members(&self, question: Question) -> &[Member] {
        self.groups.get(&question).map_or(&[], Vec::as_slice)
    }

    /// Every question with members, with them, in question order.
    pub fn groups(&self) -> impl Iterator<Item = (&Question, &[Member])> {
        self.groups.iter().map(|(q, g)| (q, g.as_slice()))
    }

    /// The members of every question of `target` under `formula`, all bits, best first.
    #[must_use]
    pub fn of_target(&self, target: Target, formula: Formula) -> Vec<&Member> {
        let mut v: Vec<&Member> = self
            .groups
            .iter()
            .filter(|(q, _)| q.target == target && q.formula == formula)
            .flat_map(|(_, g)| g.iter())
            .collect();
        v.sort_by_key(|m| m.rank());
        v
    }

    /// Magics held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.groups.values().map(Vec::len).sum()
    }

    /// No magic held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The work records, one per (question, run).
    pub fn effort(&self) -> impl Iterator<Item = &Effort> {
        self.effort.values()
    }

    /// Adds work on `question` by `run` (a run's record only grows).
    pub fn add_effort(&mut self, question: Question, run: &str, tried: u64, seconds: f64) {
        let e = self
            .effort
            .entry((question, run.to_string()))
            .or_insert_with(|| Effort {
                target: question.target,
                bits: question.bits,
                formula: question.formula,
                run: run.to_string(),
                tried: 0,
                seconds: 0.0,
                extra: BTreeMap::new(),
            });
        e.tried = e.tried.saturating_add(tried);
        e.seconds += seconds;
    }

    /// Candidates and seconds spent on `question` over every run.
    #[must_use]
    pub fn work_on(&self, question: Question) -> (u64, f64) {
        self.effort
            .values()
            .filter(|e| e.target == question.target && e.bits == question.bits)
            .filter(|e| e.formula == question.formula)
            .fold((0, 0.0), |(t, s), e| {
                (t.saturating_add(e.tried), s + e.seconds)
            })
    }

    /// Unites a work record read from a file or another pool: one per (question, run), the
    /// larger kept (a run's record only grows, so merging the same pool twice adds nothing).
    pub fn unite_effort(&mut self, e: Effort) {
        let key = (
            Question {
                target: e.target,
                bits: e.bits,
                formula: e.formula,
            },
            e.run.clone(),
        );
        match self.effort.get(&key) {
            Some(old) if (old.tried, old.seconds) >= (e.tried, e.seconds) => {}
            _ => {
                self.effort.insert(key, e);
            }
        }
    }

    /// Merges `other` into this pool, losing no slot pattern: every magic of `other` is
    /// ranked again by this pool's gap, and the capacity grows when a question's union holds
    /// more distinct patterns than either side kept (of two magics with one pattern, the one
    /// ranked first stays). Work records are united. The top-level fields stay this pool's
    /// own: `other`'s describe `other`.
    pub fn merge(&mut self, other: Pool) {
        let capacity = self.capacity.max(other.capacity);
        self.capacity = usize::MAX;
        for (q, group) in other.groups {
            let occ = Occupancies::new(q.target);
            for m in group {
                let p = Pattern::from_pairs(&occ, q.formula, q.bits, m.entry.magic)
                    .expect("a pool member is verified");
                self.offer(m.entry, &p);
            }
        }
        let largest = self.groups.values().map(Vec::len).max().unwrap_or(0);
        self.capacity = capacity.max(largest);
        for (_, e) in other.effort {
            self.unite_effort(e);
        }
    }

    /// Distinct questions held.
    #[must_use]
    pub fn questions(&self) -> HashSet<Question> {
        self.groups.keys().copied().collect()
    }
}

/// FNV-1a over the indices of a pattern, moved so that the lowest is 0.
pub(crate) fn shape_hash(p: &Pattern) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for i in p.shape() {
        for b in i.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
