//! The magics a part lists as it finds them, beside its count: what lets a store say *which*
//! magics a search found, not only how many, and keep the tightest of them.
//!
//! A part counts every magic of its subtrees (`magics`) and keeps one best (the smallest
//! highest index, then the smallest magic), which its residue digests. From the build that
//! brought lists in, it also lists each magic as the subtrees are credited in order, up to
//! [`MAX_LISTED`] (beyond that only the count grows). A part begun before lists existed
//! starts its list where it resumes: the list says from which subtree of its search order on
//! it holds every magic (`from`) and how many the part had counted before (`before`). Magics
//! the list lacks can be *supplied* afterwards by another walk of the same search (the
//! independent C walk of `scripts/research/check-store.py`): each one verified, kept apart
//! with the name of its source. Nothing here enters the residue, so no digest changes meaning.
//!
//! ```json
//! "found": {"from": 131466, "before": 6, "magics": ["0x…", "…"]},
//! "supplied": {"by": "results/checks/rook-b1-10-magics.txt", "magics": ["0x…"]}
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::shard::Shard;
use crate::exhaust::Order;
use crate::magic::{self, format_magic, parse_magic};
use crate::piece::Target;

/// Magics a part lists at most; beyond them it only counts. Rook b1 at 10 has a handful,
/// bishop d8 at 9 some 47 million: a list of 4,096 stays under 100 KB.
pub const MAX_LISTED: usize = 4096;

/// The longest `by` a supplied list may name (a path or a command).
const MAX_BY: usize = 300;

/// The list a part keeps as it searches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Subtrees of the part's search order searched before the list began (0: from the
    /// start).
    pub from: u64,
    /// Magics the part had counted by then: not in the list.
    pub before: u64,
    /// The magics found since, in search order, at most [`MAX_LISTED`].
    pub magics: Vec<u64>,
}

impl Listing {
    /// A list that begins after `done` subtrees, `counted` magics counted by then.
    #[must_use]
    pub fn starting(done: u64, counted: u64) -> Listing {
        Listing {
            from: done,
            before: counted,
            magics: Vec::new(),
        }
    }

    /// Adds a magic found; false (and nothing added) once the list is full.
    pub fn add(&mut self, m: u64) -> bool {
        if self.full() {
            return false;
        }
        self.magics.push(m);
        true
    }

    /// Whether the list holds [`MAX_LISTED`] magics.
    #[must_use]
    pub fn full(&self) -> bool {
        self.magics.len() >= MAX_LISTED
    }

    /// Whether the list holds every magic found since it began, of a part that counted
    /// `magics`.
    #[must_use]
    pub fn whole_since_from(&self, magics: u64) -> bool {
        self.before + self.magics.len() as u64 == magics
    }

    /// The list as the store keeps it; `None` for a list from the start with nothing in it
    /// (what a part without the field means when it found no magic).
    #[must_use]
    pub fn to_wire(&self) -> Option<FoundWire> {
        (self.from != 0 || !self.magics.is_empty()).then(|| FoundWire {
            from: self.from,
            before: self.before,
            magics: self.magics.iter().map(|&m| format_magic(m)).collect(),
            extra: BTreeMap::new(),
        })
    }

    /// The list of a stored part (checked on load by [`check_lists`]) that counted `magics`
    /// in `done` subtrees: a part without one lists from the start when it found nothing,
    /// and from `done` on otherwise (it was begun by a build without lists).
    #[must_use]
    pub fn from_wire(w: Option<&FoundWire>, done: u64, magics: u64) -> Listing {
        match w {
            Some(w) => Listing {
                from: w.from,
                before: w.before,
                magics: w
                    .magics
                    .iter()
                    .filter_map(|m| parse_magic(m).ok())
                    .collect(),
            },
            None if magics == 0 => Listing::default(),
            None => Listing::starting(done, magics),
        }
    }
}

/// A part's list on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoundWire {
    /// Subtrees of the part's search order searched before the list began.
    pub from: u64,
    /// Magics counted before it began (not listed).
    pub before: u64,
    /// The magics found since, in search order, `0x` hex, reduced modulo the period.
    pub magics: Vec<String>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// Magics of a part that its own list lacks, given by another walk of the same search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuppliedWire {
    /// Where they came from: the file (in the repository) or command that lists them.
    pub by: String,
    /// The magics, `0x` hex, reduced modulo the period, each verified.
    pub magics: Vec<String>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The period's bits of `target`: only `m mod 2^period` matters.
#[must_use]
pub fn period_bits(target: Target) -> u32 {
    let mask = crate::attacks::relevant_mask(target.piece, target.square).0;
    64 - mask.trailing_zeros()
}

/// The task (of `2^task_bits`) whose subtree holds the magic `m` (reduced modulo the
/// period of `2^period` values) in `order`: its low task bits in the low order, its top
/// ones in the others; folded, the task of `m` or of its negation, whichever lies in the
/// lower half (the half point is the first task of the upper half, which checks it alone).
#[must_use]
pub fn task_of(order: Order, period: u32, task_bits: u32, m: u64) -> u64 {
    if task_bits == 0 {
        return 0;
    }
    let width = period - task_bits;
    match order {
        Order::Low => m & ((1u64 << task_bits) - 1),
        Order::High | Order::Trim => m >> width,
        Order::Fold => {
            let half = 1u64 << (period - 1);
            if m == half {
                1u64 << (task_bits - 1)
            } else if m < half {
                m >> width
            } else {
                ((1u64 << period) - m) >> width
            }
        }
    }
}

/// What a part's lists must be: readable magics, each below the period, accepted by
/// [`magic::verify`] and held by the part's subtrees, none twice, no more of them than the
/// part counted (the list's own part at most [`MAX_LISTED`] and after `before`), `from`
/// within the part, `by` one short line.
///
/// # Errors
/// A message saying what is wrong.
#[allow(clippy::too_many_arguments)]
pub fn check_lists(
    target: Target,
    bits: u32,
    order: Order,
    task_bits: u32,
    shard: Shard,
    magics: u64,
    found: Option<&FoundWire>,
    supplied: Option<&SuppliedWire>,
) -> Result<(), String> {
    if found.is_none() && supplied.is_none() {
        return Ok(());
    }
    let period = period_bits(target);
    let mut seen = BTreeSet::new();
    let mut check = |text: &str, list: &str| -> Result<(), String> {
        let m = parse_magic(text).map_err(|e| format!("{list}: {e}"))?;
        if period < 64 && m >> period != 0 {
            return Err(format!(
                "{list}: {text} is not reduced modulo the period 2^{period}"
            ));
        }
        magic::verify(target, bits, m)
            .map_err(|_| format!("{list}: {text} fails verification at {bits} bits"))?;
        let task = task_of(order, period, task_bits, m);
        if task % u64::from(shard.count) != u64::from(shard.index - 1) {
            return Err(format!(
                "{list}: {text} lies in task {task}, not one of part {shard}'s"
            ));
        }
        if !seen.insert(m) {
            return Err(format!("{list}: {text} is listed twice"));
        }
        Ok(())
    };
    if let Some(f) = found {
        if f.magics.len() > MAX_LISTED {
            return Err(format!(
                "found: {} magics, at most {MAX_LISTED} are listed",
                f.magics.len()
            ));
        }
        let len = shard.len(1u64 << task_bits);
        if f.from > len {
            return Err(format!(
                "found: from {} beyond the part's {len} subtrees",
                f.from
            ));
        }
        if f.before.saturating_add(f.magics.len() as u64) > magics {
            return Err(format!(
                "found: {} magics before the list and {} in it, but the part counted {magics}",
                f.before,
                f.magics.len()
            ));
        }
        for m in &f.magics {
            check(m, "found")?;
        }
    }
    if let Some(s) = supplied {
        if s.by.is_empty() || s.by.len() > MAX_BY || s.by.chars().any(char::is_control) {
            return Err(format!(
                "supplied: `by` must be one line of 1 to {MAX_BY} bytes"
            ));
        }
        if s.magics.len() > MAX_LISTED {
            return Err(format!(
                "supplied: {} magics, at most {MAX_LISTED} are kept",
                s.magics.len()
            ));
        }
        for m in &s.magics {
            check(m, "supplied")?;
        }
    }
    if seen.len() as u64 > magics {
        return Err(format!(
            "{} magics listed, but the part counted {magics}",
            seen.len()
        ));
    }
    Ok(())
}

/// Every magic a stored part lists, its own and those supplied, as parsed (checked on load).
#[must_use]
pub fn listed(found: Option<&FoundWire>, supplied: Option<&SuppliedWire>) -> Vec<u64> {
    found
        .map(|f| f.magics.as_slice())
        .unwrap_or_default()
        .iter()
        .chain(supplied.map(|s| s.magics.as_slice()).unwrap_or_default())
        .filter_map(|m| parse_magic(m).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exhaust::Plan;
    use crate::{Piece, Square};

    fn target(p: Piece, s: &str) -> Target {
        Target::new(p, s.parse::<Square>().unwrap())
    }

    /// Each magic of a small period lies in the task `task_of` names: the task whose search
    /// collects it, in every order and at several splits.
    #[test]
    fn each_magic_lies_in_the_task_that_finds_it() {
        let t = target(Piece::Bishop, "d8");
        let stop = std::sync::atomic::AtomicBool::new(false);
        let period = period_bits(t);
        assert_eq!(period, Plan::new(t, 5).period_bits());
        let mut seen = 0;
        for order in [Order::Low, Order::High, Order::Trim, Order::Fold] {
            for task_bits in [0, 1, 5, 12] {
                let plan = Plan::new(t, 5).with_task_bits(task_bits).with_order(order);
                let mut s = crate::exhaust::Searcher::new(&plan);
                s.collect_magics();
                for task in 0..plan.tasks() {
                    s.run_task(task, &stop).unwrap();
                    for m in s.take_collected() {
                        assert_eq!(task_of(order, period, task_bits, m), task, "{order} {m:#x}");
                        seen += 1;
                    }
                }
            }
        }
        assert_eq!(seen, 16 * 9547);
    }

    #[test]
    fn lists_are_checked() {
        let t = target(Piece::Bishop, "d8");
        let plan = Plan::new(t, 5).with_task_bits(5);
        let all = crate::exhaust::all_magics(&plan);
        let part = Shard { index: 2, count: 3 };
        let mine: Vec<String> = all
            .iter()
            .filter(|&&m| task_of(Order::Low, 26, 5, m) % 3 == 1)
            .take(3)
            .map(|&m| format_magic(m))
            .collect();
        let found = |magics: &[String]| FoundWire {
            from: 0,
            before: 1,
            magics: magics.to_vec(),
            extra: BTreeMap::new(),
        };
        let check = |f: &FoundWire, s: Option<&SuppliedWire>, magics| {
            check_lists(t, 5, Order::Low, 5, part, magics, Some(f), s)
        };
        assert!(check(&found(&mine), None, 4).is_ok());
        // More listed than counted; a magic twice; one of another part; a non-magic; one
        // above the period.
        assert!(check(&found(&mine), None, 3)
            .unwrap_err()
            .contains("counted 3"));
        let twice = [mine[0].clone(), mine[0].clone()];
        assert!(check(&found(&twice), None, 4)
            .unwrap_err()
            .contains("twice"));
        let other = all
            .iter()
            .find(|&&m| task_of(Order::Low, 26, 5, m).is_multiple_of(3))
            .unwrap();
        let theirs = [format_magic(*other)];
        assert!(check(&found(&theirs), None, 4)
            .unwrap_err()
            .contains("task"));
        // 1 lies in task 1 (part 2 of 3) and sends every subset to slot 0.
        let bad = ["0x1".to_string()];
        assert!(check(&found(&bad), None, 4)
            .unwrap_err()
            .contains("verification"));
        let high = [format_magic(all[0] | 1 << 40)];
        assert!(check(&found(&high), None, 4)
            .unwrap_err()
            .contains("reduced"));
        // Supplied ones count with the list's.
        let s = SuppliedWire {
            by: "results/checks/x.txt".into(),
            magics: vec![mine[2].clone()],
            extra: BTreeMap::new(),
        };
        let two = &mine[..2];
        assert!(check(&found(two), Some(&s), 4).is_ok());
        assert!(check(&found(&mine), Some(&s), 9)
            .unwrap_err()
            .contains("twice"));
        let s2 = SuppliedWire {
            by: "two\nlines".into(),
            ..s.clone()
        };
        assert!(check(&found(two), Some(&s2), 4).unwrap_err().contains("by"));
    }

    #[test]
    fn a_listing_stops_at_its_bound_and_says_when_it_is_whole() {
        let mut l = Listing::starting(10, 2);
        for m in 0..MAX_LISTED as u64 + 5 {
            let added = l.add(m);
            assert_eq!(added, m < MAX_LISTED as u64);
        }
        assert!(l.full());
        assert!(l.whole_since_from(2 + MAX_LISTED as u64));
        assert!(!l.whole_since_from(2 + MAX_LISTED as u64 + 5));
        assert_eq!(Listing::default().to_wire(), None);
        let w = l.to_wire().unwrap();
        assert_eq!(Listing::from_wire(Some(&w), 99, 7), l);
        assert_eq!(Listing::from_wire(None, 99, 0), Listing::default());
        assert_eq!(Listing::from_wire(None, 99, 7), Listing::starting(99, 7));
    }
}
