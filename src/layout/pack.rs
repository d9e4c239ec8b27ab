//! Choosing the offsets of a packed table: first-fit decreasing, then ruin and recreate.
//!
//! 1. **First-fit decreasing.** Squares are placed one by one, the widest span first, each at
//!    the lowest offset where every slot it writes is free or already holds the same attack
//!    set (equal attack sets share a slot, whichever squares they come from). Two orders are
//!    tried, by span and by slots used, and the smaller result kept.
//! 2. **Ruin and recreate.** Repeatedly take out the square that ends highest and a few others
//!    (two to eight, drawn from a seeded generator, so a run is repeatable), put them back
//!    first-fit under the current size in a shuffled widest-first order, and keep the result
//!    when the array is no larger (equal sizes are kept too, so the search walks plateaus).
//!
//! The size can never drop below the slots used; on dense reduced-bit magics the holes inside
//! the squares' spans are what the packer fills.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::packed::{PackedEntry, PackedTable};
use super::shared::{Fill, Pattern, Shared};
use super::LayoutError;
use crate::attacks::relevant_mask;
use crate::piece::Target;
use crate::question::{Formula, Question};
use crate::search::candidates::splitmix;
use crate::search::{fill_seed, find_magic_for};
use crate::store::Store;
use crate::table::Entry;

/// How long and from where the packer searches.
#[derive(Clone, Debug)]
pub struct PackOptions {
    /// Ruin-and-recreate steps at most (0: first-fit decreasing only).
    pub steps: u64,
    /// Stop the improvement after this long, whatever `steps` says.
    pub time: Option<Duration>,
    /// Seed of the improvement's choices.
    pub seed: u64,
}

impl Default for PackOptions {
    fn default() -> PackOptions {
        PackOptions {
            steps: 20_000,
            time: None,
            seed: 1,
        }
    }
}

/// Offsets for every pattern and what they give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packing {
    /// One offset per pattern, in the patterns' order.
    pub offsets: Vec<u32>,
    /// Entries of the shared array: highest slot written plus one.
    pub size: u64,
    /// Distinct slots written.
    pub used: u64,
    /// The size first-fit decreasing reached, before improvement (or the starting size).
    pub first_size: u64,
    /// Improvement steps done.
    pub steps: u64,
}

/// The array with every pattern at its offset.
fn build(patterns: &[Pattern], offsets: &[u32]) -> Shared {
    let mut a = Shared::new();
    for (p, &o) in patterns.iter().zip(offsets) {
        a.place(p, o);
    }
    a
}

/// First-fit in `order`: each pattern at the lowest offset where it fits.
fn first_fit(patterns: &[Pattern], order: &[usize]) -> Vec<u32> {
    let mut a = Shared::new();
    let mut offsets = vec![0; patterns.len()];
    for &k in order {
        let o = a
            .first_fit(&patterns[k], 0, u64::MAX)
            .expect("an unbounded array always fits");
        a.place(&patterns[k], o);
        offsets[k] = o;
    }
    offsets
}

/// First-fit decreasing: by span, then by slots used; the smaller array wins.
#[must_use]
pub fn first_fit_decreasing(patterns: &[Pattern]) -> Vec<u32> {
    /// An order of placement: the key sorted on, largest first.
    type Key = fn(&Pattern) -> (u32, u32);
    let keys: [Key; 2] = [|p| (p.span(), p.used()), |p| (p.used(), p.span())];
    let mut best: Option<(u64, Vec<u32>)> = None;
    for key in keys {
        let mut order: Vec<usize> = (0..patterns.len()).collect();
        order.sort_by_key(|&k| (std::cmp::Reverse(key(&patterns[k])), k));
        let offsets = first_fit(patterns, &order);
        let size = build(patterns, &offsets).size();
        if best.as_ref().is_none_or(|b| size < b.0) {
            best = Some((size, offsets));
        }
    }
    best.map(|b| b.1).unwrap_or_default()
}

/// Packs `patterns` into one array: from `start` offsets when given (they must fit together),
/// else from first-fit decreasing, then improved by ruin and recreate within `opts`, or until
/// `stop` is set.
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
    let mut offsets = match start {
        Some(s) => {
            assert_eq!(s.len(), patterns.len(), "one offset per pattern");
            s.to_vec()
        }
        None => first_fit_decreasing(patterns),
    };
    let mut a = build(patterns, &offsets);
    let first_size = a.size();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(splitmix(opts.seed ^ 0x7061_636b));
    let deadline = opts.time.map(|t| Instant::now() + t);
    let mut steps = 0;
    while steps < opts.steps && !patterns.is_empty() {
        if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        steps += 1;
        let size = a.size();
        // The square ending highest, and a few others.
        let top = (0..patterns.len())
            .max_by_key(|&k| (u64::from(offsets[k]) + u64::from(patterns[k].max()), k))
            .expect("not empty");
        let mut out = vec![top];
        let extra = 2 + (rng.next_u64() % 7) as usize;
        for _ in 0..extra.min(patterns.len() - 1) {
            let k = (rng.next_u64() % patterns.len() as u64) as usize;
            if !out.contains(&k) {
                out.push(k);
            }
        }
        let before: Vec<u32> = out.iter().map(|&k| offsets[k]).collect();
        for &k in &out {
            a.remove(&patterns[k], offsets[k]);
        }
        // Widest first, with random ties broken by a shuffle key.
        let mut order: Vec<(u32, u64, usize)> = out
            .iter()
            .map(|&k| (patterns[k].span(), rng.next_u64() % 4, k))
            .collect();
        order.sort_by(|x, y| (y.0 >> 6, x.1).cmp(&(x.0 >> 6, y.1)));
        let mut ok = true;
        let mut placed = Vec::new();
        for &(_, _, k) in &order {
            match a.first_fit(&patterns[k], 0, size) {
                Some(o) => {
                    a.place(&patterns[k], o);
                    offsets[k] = o;
                    placed.push(k);
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok || a.size() > size {
            for &k in &placed {
                a.remove(&patterns[k], offsets[k]);
            }
            for (&k, &o) in out.iter().zip(&before) {
                offsets[k] = o;
                a.place(&patterns[k], o);
            }
        }
    }
    Packing {
        size: a.size(),
        used: a.used(),
        offsets,
        first_size,
        steps,
    }
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
