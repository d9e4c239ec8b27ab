//! One square of a comparison: how our magic stands against theirs ([`Row`]), why its bits
//! are optimal when they are ([`Evidence`]), and everything `magichunt show` says about the
//! square ([`SquareReport`]): its geometry, the published record and proof, our magic.

use std::fmt::Write as _;

use super::{Row, Standing, Theirs};
use crate::attacks::Occupancies;
use crate::bitboard::Bitboard;
use crate::magic::format_magic;
use crate::piece::Target;
use crate::published;
use crate::question::Formula;
use crate::store::{optimal_if_claims_hold, proven_optimal, Counting, Store};
use crate::table::Entry;

/// Where a proof of none comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofSource {
    /// The store's own proof.
    Store,
    /// A published proof (`results/published/records.json`).
    Published,
}

impl ProofSource {
    /// `store` or `published`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ProofSource::Store => "store",
            ProofSource::Published => "published",
        }
    }
}

/// Why a square's bits are optimal, or would be if a claimed proof held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The bits are the square's lower bound, `ceil(log2(distinct attack sets))`.
    LowerBound,
    /// A proof that no magic with one bit fewer exists.
    Proof {
        /// The bits proven impossible (ours minus one).
        none: u32,
        /// The store's proof or a published one.
        source: ProofSource,
        /// How it was proven: the store's `method`, or the published proof's `source`.
        method: Option<String>,
        /// Whether the count of proven squares takes it: a published proof, a store proof
        /// whose evidence this build checked, or any store proof with `--count-claimed`.
        counted: bool,
        /// What this build checked of a store proof's evidence (`certificate checked here`,
        /// `claimed, not checked here: ...`); `None` for a published proof.
        provenance: Option<String>,
    },
}

impl Evidence {
    /// Why `bits` are optimal for plain magics of `target` in `store`, by the rule of
    /// [`proven_optimal`] (then `counted` is true, or it is the lower bound) or, failing it,
    /// of [`optimal_if_claims_hold`] (a store proof not counted); `None` when neither holds.
    /// A counted store proof comes first, then the lower bound, then a published proof.
    #[must_use]
    pub fn of(store: &Store, target: Target, bits: u32, lower_bound: u32) -> Option<Evidence> {
        let own = store
            .proofs()
            .find(|p| p.target == target && p.formula == Formula::Plain && p.bits + 1 == bits);
        let own_evidence = |counted: bool| {
            own.map(|p| Evidence::Proof {
                none: p.bits,
                source: ProofSource::Store,
                method: p.method.clone(),
                counted,
                provenance: Some(store.provenance(p).describe()),
            })
        };
        let proven = proven_optimal(store, target, bits);
        if let Some(p) = own {
            let checked = store.provenance(p).is_checked();
            if proven && (checked || store.counting() == Counting::Claimed) {
                return own_evidence(true);
            }
        }
        if bits == lower_bound {
            return Some(Evidence::LowerBound);
        }
        if let Some(p) = published::proof(target).filter(|p| p.bits + 1 == bits) {
            return Some(Evidence::Proof {
                none: p.bits,
                source: ProofSource::Published,
                method: p
                    .extra
                    .get("source")
                    .and_then(|v| v.as_str())
                    .map(String::from),
                counted: true,
                provenance: None,
            });
        }
        if proven {
            // Counted by a checked search the store records without a proof of its own.
            return Some(Evidence::Proof {
                none: bits - 1,
                source: ProofSource::Store,
                method: None,
                counted: true,
                provenance: None,
            });
        }
        if optimal_if_claims_hold(store, target, bits) {
            return own_evidence(false);
        }
        None
    }

    /// Whether the count of proven squares takes it.
    #[must_use]
    pub fn counted(&self) -> bool {
        match self {
            Evidence::LowerBound => true,
            Evidence::Proof { counted, .. } => *counted,
        }
    }
}

impl Row {
    /// Compares `ours` with `theirs` on `target`.
    #[must_use]
    pub fn of(ours: &Store, theirs: &Theirs, target: Target) -> Row {
        let mine = ours.best(target).cloned();
        let other = theirs.entries.get(&target).cloned();
        let standing = match (&mine, &other) {
            (None, _) => Standing::Missing,
            (Some(_), None) => Standing::Ahead,
            (Some(m), Some((o, _))) => match m.bits.cmp(&o.bits) {
                std::cmp::Ordering::Less => Standing::Ahead,
                std::cmp::Ordering::Equal => Standing::Level,
                std::cmp::Ordering::Greater => Standing::Behind,
            },
        };
        let optimal = mine
            .as_ref()
            .is_some_and(|m| proven_optimal(ours, target, m.bits));
        let claimed = !optimal
            && mine
                .as_ref()
                .is_some_and(|m| optimal_if_claims_hold(ours, target, m.bits));
        let evidence = mine.as_ref().and_then(|m| {
            Evidence::of(
                ours,
                target,
                m.bits,
                Occupancies::new(target).lower_bound_bits(),
            )
        });
        Row {
            target,
            ours: mine,
            theirs: other,
            standing,
            optimal,
            claimed,
            evidence,
        }
    }
}

/// What `magichunt show` says of one square: its mask and the figures that bound its bits,
/// the best published magic and proof, and the store's magic with its [`Row`] against the
/// published records.
#[derive(Clone, Debug, PartialEq)]
pub struct SquareReport {
    /// Piece and square.
    pub target: Target,
    /// The relevant-occupancy mask.
    pub mask: Bitboard,
    /// Blocker subsets (`2^popcount`).
    pub subsets: usize,
    /// Distinct attack sets among them.
    pub distinct_attacks: usize,
    /// `ceil(log2(distinct attack sets))`.
    pub lower_bound: u32,
    /// The highest bit count a published proof rules out, with the proof's source.
    pub published_none: Option<(u32, String)>,
    /// How to name the store.
    pub store_name: String,
    /// The store's magic against the published records (status, evidence).
    pub row: Row,
}

impl SquareReport {
    /// The report of `target` in `store` (named `store_name`).
    #[must_use]
    pub fn new(store: &Store, store_name: &str, target: Target) -> SquareReport {
        let occ = Occupancies::new(target);
        SquareReport {
            target,
            mask: occ.mask,
            subsets: occ.pairs.len(),
            distinct_attacks: occ.distinct_attacks(),
            lower_bound: occ.lower_bound_bits(),
            published_none: published::proof(target).map(|p| {
                let source = p.extra.get("source").and_then(|v| v.as_str());
                (p.bits, source.unwrap_or("unknown source").to_string())
            }),
            store_name: store_name.to_string(),
            row: Row::of(store, &Theirs::published(), target),
        }
    }

    /// The best published magic and who found it.
    #[must_use]
    pub fn published(&self) -> Option<&(Entry, String)> {
        self.row.theirs.as_ref()
    }

    /// The verdict line of the text: whether our bits are proven optimal, and by what.
    #[must_use]
    pub fn verdict(&self) -> String {
        let Some(e) = &self.row.ours else {
            return String::new();
        };
        match &self.row.evidence {
            Some(Evidence::LowerBound) => "yes: at the lower bound".to_string(),
            Some(Evidence::Proof {
                none,
                source: ProofSource::Published,
                ..
            }) => format!("yes: no magic at {none} bits (published proof)"),
            Some(Evidence::Proof {
                none,
                method,
                counted: true,
                ..
            }) => format!(
                "yes: no magic at {none} bits ({})",
                method.as_deref().unwrap_or("the store's proof")
            ),
            Some(Evidence::Proof { none, method, .. }) => format!(
                "claimed: the store records no magic at {none} bits ({}), not checked here (`magichunt audit` or `prove --check-certificates` on a checkout's store checks it)",
                method.as_deref().unwrap_or("the store's proof")
            ),
            None => format!("not known: nobody has settled {} bits", e.bits - 1),
        }
    }

    /// The text of `magichunt show`.
    #[must_use]
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}: relevant-occupancy mask", self.target);
        let _ = write!(out, "{}", self.mask);
        let _ = writeln!(out, "mask popcount       {}", self.mask.count());
        let _ = writeln!(out, "blocker subsets     {}", self.subsets);
        let _ = writeln!(out, "distinct attacks    {}", self.distinct_attacks);
        let _ = writeln!(
            out,
            "lower bound         {} bits (ceil log2 of distinct attack sets)",
            self.lower_bound
        );
        match self.published() {
            Some((e, by)) => {
                let _ = writeln!(
                    out,
                    "best published      {} bits, magic {}, highest index {}, found by {by}",
                    e.bits,
                    format_magic(e.magic),
                    e.max_index
                );
            }
            None => out.push_str("best published      none\n"),
        }
        if let Some((bits, source)) = &self.published_none {
            let _ = writeln!(out, "proven impossible   {bits} bits or fewer ({source})");
        }
        let name = &self.store_name;
        let Some(e) = &self.row.ours else {
            let _ = writeln!(out, "in the store        none ({name})");
            return out;
        };
        let how = e
            .method
            .as_ref()
            .map_or_else(String::new, |m| format!(", found by {}", m.family));
        let _ = writeln!(
            out,
            "in the store        {} bits, magic {}, highest index {}{how} ({name})",
            e.bits,
            format_magic(e.magic),
            e.max_index
        );
        let _ = writeln!(out, "proven optimal      {}", self.verdict());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{shipped, Piece};

    /// The evidence agrees with the status on every square: counted exactly when the bits
    /// are proven optimal, a store proof not counted exactly when they are only claimed.
    #[test]
    fn evidence_agrees_with_the_status() {
        let mut counting_claimed = shipped::store().clone();
        counting_claimed.set_counting(Counting::Claimed);
        for store in [shipped::store(), &counting_claimed, &Store::new()] {
            let mut kinds = [0; 3];
            for t in Target::all() {
                let row = Row::of(store, &Theirs::published(), t);
                match &row.evidence {
                    None => assert!(!row.optimal && !row.claimed, "{t}"),
                    Some(e) => {
                        assert_eq!(e.counted(), row.optimal, "{t}");
                        assert_eq!(!e.counted(), row.claimed, "{t}");
                        kinds[match e {
                            Evidence::LowerBound => 0,
                            Evidence::Proof {
                                source: ProofSource::Published,
                                ..
                            } => 1,
                            Evidence::Proof { .. } => 2,
                        }] += 1;
                    }
                }
            }
            if store.entries().count() > 0 {
                // The shipped store has squares of every kind of evidence.
                assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
            }
        }
        // Claimed counting turns every claimed square into a proven one.
        let a = crate::compare::Report::new(shipped::store(), "a", &Theirs::published());
        let b = crate::compare::Report::new(&counting_claimed, "b", &Theirs::published());
        assert_eq!(b.optimal(), a.optimal() + a.claimed());
        assert_eq!(b.claimed(), 0);
    }

    #[test]
    fn show_says_why_in_words() {
        let store = shipped::store();
        let e4 = Target::new(Piece::Rook, "e4".parse().unwrap());
        let report = SquareReport::new(store, shipped::NAME, e4);
        assert_eq!(report.subsets, 1 << report.mask.count());
        assert!(report.render_text().contains("proven optimal      yes: "));
        assert!(report.to_json().contains("\"schema\": \"magichunt-show\""));
        let empty = SquareReport::new(&Store::new(), "none.json", e4);
        assert!(empty
            .render_text()
            .ends_with("in the store        none (none.json)\n"));
        assert_eq!(empty.verdict(), "");
    }
}
