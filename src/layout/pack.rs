//! Choosing the offsets of a packed table, and the magics when a square has several.
//!
//! 1. **First-fit decreasing.** Squares are placed one by one, the widest span first, each at
//!    the lowest offset where every slot it writes is free. Two orders are tried, by span and
//!    by slots used, and the smaller result kept.
//! 2. **Annealing** ([`anneal`](super::anneal)): an order of the squares and a magic per
//!    square, each order placed first-fit, improved by simulated annealing on the array size.
//!
//! The size can never drop below the slots used; dense reduced-bit magics leave few holes to
//! fill, few-slot magics from a pool leave many, and which of each square's magics to take is
//! part of the search.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::anneal::{
    anneal, decode, first_fit_order, widest_first, AnnealOptions, Candidate, Item, LabelOf, Placed,
};
use super::occupancy::Shape;
use super::packed::{PackedEntry, PackedTable};
use super::shared::{Fill, Pattern};
use super::LayoutError;
use crate::attacks::relevant_mask;
use crate::piece::Target;
use crate::question::{Formula, Question};
use crate::search::{fill_seed, find_magic_for};
use crate::store::Store;
use crate::table::Entry;

/// How long and from where the packer searches.
#[derive(Clone, Debug)]
pub struct PackOptions {
    /// Annealing steps at most (0: first-fit decreasing only).
    pub steps: u64,
    /// Stop the annealing after this long, whatever `steps` says (the temperature then falls
    /// over this time).
    pub time: Option<Duration>,
    /// Seed of the annealing's choices.
    pub seed: u64,
    /// Starting temperature of the annealing, in entries.
    pub hot: f64,
    /// Final temperature, in entries.
    pub cold: f64,
}

impl Default for PackOptions {
    fn default() -> PackOptions {
        let a = AnnealOptions::default();
        PackOptions {
            steps: a.steps,
            time: a.time,
            seed: a.seed,
            hot: a.hot,
            cold: a.cold,
        }
    }
}

impl PackOptions {
    fn anneal(&self) -> AnnealOptions {
        AnnealOptions {
            steps: self.steps,
            time: self.time,
            seed: self.seed,
            hot: self.hot,
            cold: self.cold,
        }
    }
}

/// Offsets (and picks) for every square and what they give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packing {
    /// One offset per square, in the squares' order.
    pub offsets: Vec<u32>,
    /// Per square, the position of the magic taken among its candidates.
    pub picks: Vec<usize>,
    /// Entries of the shared array: highest slot written plus one.
    pub size: u64,
    /// Distinct slots written.
    pub used: u64,
    /// The size first-fit decreasing reached, before improvement (or the starting size).
    pub first_size: u64,
    /// Improvement steps done.
    pub steps: u64,
}

/// The candidates of one square: its patterns as shapes, with their lowest index.
fn candidates(patterns: &[Pattern]) -> Vec<Candidate> {
    patterns
        .iter()
        .map(|p| Candidate {
            shape: Shape::of(p),
            lo: p.min(),
        })
        .collect()
}

/// First-fit decreasing: by span, then by slots used; the smaller array wins. Returns the
/// offsets.
#[must_use]
pub fn first_fit_decreasing(patterns: &[Pattern]) -> Vec<u32> {
    let squares: Vec<Vec<Candidate>> = patterns
        .iter()
        .map(|p| candidates(std::slice::from_ref(p)))
        .collect();
    ffd(&squares).offsets(&squares)
}

/// [`first_fit_decreasing`] on candidates (the first of each square).
fn ffd<I: Item>(squares: &[Vec<Candidate<I>>]) -> Placed<LabelOf<I>> {
    let by_span = widest_first(squares);
    let mut by_used = by_span.clone();
    by_used.order.sort_by_key(|&k| {
        let s = &squares[k][0].shape;
        (std::cmp::Reverse((Item::used(s), s.span())), k)
    });
    let a = decode(squares, &by_span);
    let b = decode(squares, &by_used);
    if b.size < a.size {
        b
    } else {
        a
    }
}

/// Packs `patterns` (one magic per square) into one array: from `start` offsets when given
/// (they must fit together; the result is never larger), else from first-fit decreasing,
/// then annealed within `opts`, or until `stop` is set.
///
/// # Panics
/// If `start` has the wrong length or its offsets overlap.
#[must_use]
pub fn pack(
    patterns: &[Pattern],
    start: Option<&[u32]>,
    opts: &PackOptions,
    stop: &AtomicBool,
) -> Packing {
    let groups: Vec<Vec<Pattern>> = patterns.iter().map(|p| vec![p.clone()]).collect();
    let start = start.map(|s| (vec![0; s.len()], s.to_vec()));
    pack_choosing(&groups, start.as_ref(), opts, stop, &mut |_| {})
}

/// Packs squares that each offer several magics (`groups[k]`, best first): chooses a magic
/// and an offset for every square. From `start` (picks and offsets that fit together; the
/// result is never larger) when given, else from first-fit decreasing of every square's
/// first magic; annealed within `opts` or until `stop` is set. `on_better` gets every smaller
/// packing found.
///
/// # Panics
/// If a square has no magic, or `start` has the wrong length or overlaps.
pub fn pack_choosing(
    groups: &[Vec<Pattern>],
    start: Option<&(Vec<usize>, Vec<u32>)>,
    opts: &PackOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&Packing),
) -> Packing {
    let squares: Vec<Vec<Candidate>> = groups.iter().map(|g| candidates(g)).collect();
    let packing = |p: &Placed, first_size: u64, steps: u64| Packing {
        offsets: p.offsets(&squares),
        picks: p.plan.pick.clone(),
        size: u64::from(p.size),
        used: p.used,
        first_size,
        steps,
    };
    let start = start.map(|(picks, offsets)| {
        assert_eq!(offsets.len(), squares.len(), "one offset per square");
        (picks.clone(), offsets.clone(), vec![(); squares.len()])
    });
    let (best, first_size, steps) = pack_items(
        &squares,
        start.as_ref(),
        opts,
        stop,
        &mut |p, first_size| {
            on_better(&packing(p, first_size, 0));
        },
    );
    packing(&best, first_size, steps)
}

/// A starting table for [`pack_items`]: per square its pick, offset and label.
pub type Start<L> = (Vec<usize>, Vec<u32>, Vec<L>);

/// What [`pack_choosing`] does, for any array the annealing packs: from `start` (picks,
/// offsets and labels that fit together; the result is never larger) when given, else from
/// first-fit decreasing of every square's first candidate; annealed within `opts` or until
/// `stop` is set. `on_better` gets every placement smaller than the start (and the starting
/// size). Returns the best placement, the starting size and the annealing steps done.
///
/// # Panics
/// If a square has no candidate, or `start` has the wrong length or overlaps.
pub fn pack_items<I: Item>(
    squares: &[Vec<Candidate<I>>],
    start: Option<&Start<LabelOf<I>>>,
    opts: &PackOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&Placed<LabelOf<I>>, u64),
) -> (Placed<LabelOf<I>>, u64, u64) {
    // The start: the given table, with an order that first-fit decodes to it where one
    // exists, or first-fit decreasing.
    let given = start.map(|(picks, offsets, labels)| {
        assert_eq!(picks.len(), squares.len(), "one pick per square");
        assert_eq!(offsets.len(), squares.len(), "one offset per square");
        let base: Vec<u32> = (0..squares.len())
            .map(|k| offsets[k] + squares[k][picks[k]].lo)
            .collect();
        first_fit_order(squares, picks, &base, labels)
    });
    let first = given.clone().unwrap_or_else(|| ffd(squares));
    let first_size = u64::from(first.size);
    if opts.steps == 0 || squares.is_empty() {
        return (first, first_size, 0);
    }
    let mut report = |p: &Placed<LabelOf<I>>| {
        if given.as_ref().is_none_or(|g| p.size < g.size) {
            on_better(p, first_size);
        }
    };
    let (best, steps) = anneal(squares, &first, &opts.anneal(), stop, &mut report);
    let best = if best.size < first.size { best } else { first };
    (best, first_size, steps)
}

/// The magics to pack from `store`: its best of `formula` per square, and for a square it
/// lacks a popcount-bit magic found on the spot (seeded per target, as `export` fills), so
/// the table is always complete. Returns the entries in target order and the squares filled.
///
/// # Errors
/// [`LayoutError::Format`] if the fill search gives up (never seen).
pub fn complete(store: &Store, formula: Formula) -> Result<(Vec<Entry>, Vec<Target>), LayoutError> {
    let mut entries = Vec::with_capacity(128);
    let mut filled = Vec::new();
    for target in Target::all() {
        if let Some(e) = store.best_with(target, formula) {
            entries.push(e.clone());
            continue;
        }
        let bits = relevant_mask(target.piece, target.square).count();
        let q = Question {
            target,
            bits,
            formula,
        };
        let v = find_magic_for(q, fill_seed(target)).ok_or_else(|| {
            LayoutError::Format(format!("found no magic for {q} to fill the square"))
        })?;
        let mut e = Entry::from_verified(&v, None, None);
        e.extra.insert("filled".into(), true.into());
        entries.push(e);
        filled.push(target);
    }
    Ok((entries, filled))
}

/// Packs `entries` (at most one per target) into a packed table, from `start` offsets when
/// given, and checks the result as a whole (every subset of every square filled into the
/// shared array from the reference) before returning it.
///
/// # Errors
/// [`LayoutError`] if the check fails (a bug: the packer only places what fits).
pub fn pack_entries(
    entries: &[Entry],
    start: Option<&[u32]>,
    opts: &PackOptions,
    stop: &AtomicBool,
) -> Result<(PackedTable, Fill, Packing), LayoutError> {
    let patterns: Vec<Pattern> = entries.iter().map(Pattern::of).collect();
    let packing = pack(&patterns, start, opts, stop);
    let table = PackedTable {
        entries: entries
            .iter()
            .zip(&packing.offsets)
            .map(|(e, &offset)| PackedEntry {
                entry: e.clone(),
                offset,
            })
            .collect(),
        declared: Some(packing.size),
        stated_used: Some(packing.used),
        meta: Default::default(),
    };
    let fill = table.check()?;
    Ok((table, fill, packing))
}
