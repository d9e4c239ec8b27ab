//! Hunting magics for a packed table: the approach behind the fixed-shift records.
//!
//! The array's size is set by the square that ends highest. Take that square out, hunt new
//! magics for it (at its bits, or up to `spread` bits more: wider, sparser patterns), and put
//! each valid one at the lowest offset where its slots meet only holes or equal attack sets;
//! keep the magic that ends lowest if it ends below where the square ended. Then a few
//! annealing steps close the gaps, and the next square is taken from the top. A
//! square that could not be moved is passed over (the next one down is tried) until something
//! moves again.
//!
//! Every magic kept passed the one verify; the table handed to the caller has passed the whole
//! check (every subset of every square filled from the reference).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::pack::{pack, PackOptions};
use super::packed::{PackedEntry, PackedTable};
use super::shared::{Fill, Pattern, Shared};
use super::LayoutError;
use crate::magic::Verified;
use crate::search::{neighbour_bases, portfolio, round_family, search, task_rng, Scratchpad};
use crate::table::wire::MethodWire;
use crate::table::Entry;
use crate::timefmt::now_rfc3339;

/// How long and how widely the refit hunt searches.
#[derive(Clone, Debug)]
pub struct RefitOptions {
    /// The whole hunt.
    pub time: Duration,
    /// Seed of the candidate streams.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Bits above a square's own that may be tried.
    pub spread: u32,
    /// Ruin-and-recreate steps after each move.
    pub pack_steps: u64,
}

/// Candidates drawn per call of the trial loop.
const BATCH: u64 = 1 << 12;

/// Time spent on one square before passing to the next.
const SLICE: Duration = Duration::from_secs(4);

/// The best placement found for a square during one slice.
#[derive(Clone, Debug)]
struct Find {
    v: Verified,
    pattern: Pattern,
    offset: u32,
}

/// Hunts, until `opts.time` runs out or `stop` is set, magics that let `table` shrink; calls
/// `on_better` with every smaller table (checked as a whole), and stops early when it returns
/// false. Returns the smallest table reached, checked.
///
/// # Errors
/// [`LayoutError`] when `table` or a table reached fails the whole check (the latter would
/// be a bug).
pub fn refit(
    table: &PackedTable,
    opts: &RefitOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&PackedTable, &Fill) -> bool,
) -> Result<(PackedTable, Fill), LayoutError> {
    let start = Instant::now();
    let deadline = start + opts.time;
    let mut best_fill = table.check()?;
    let mut entries: Vec<Entry> = table.entries.iter().map(|p| p.entry.clone()).collect();
    let mut offsets: Vec<u32> = table.entries.iter().map(|p| p.offset).collect();
    let mut patterns: Vec<Pattern> = entries.iter().map(Pattern::of).collect();
    let mut array = Shared::new();
    for (p, &o) in patterns.iter().zip(&offsets) {
        array.place(p, o);
    }
    let mut best = table.clone();
    // How far down from the top the next square to move is (0: the one ending highest).
    let mut depth = 0usize;
    let mut stream = 0u64;
    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
        let mut by_end: Vec<usize> = (0..patterns.len()).collect();
        by_end.sort_by_key(|&k| std::cmp::Reverse((offsets[k] + patterns[k].max(), k)));
        let k = by_end[depth % by_end.len()];
        let end = offsets[k] + patterns[k].max();
        array.remove(&patterns[k], offsets[k]);
        let slice_end = deadline.min(Instant::now() + SLICE);
        let known: Vec<_> = entries.iter().map(|e| (e.target, e.magic)).collect();
        let found = hunt_square(
            &entries[k],
            &array,
            end,
            &known,
            opts,
            stream,
            slice_end,
            stop,
        );
        stream += opts.threads as u64;
        match found {
            Some(f) => {
                let mut e = Entry::from_verified(
                    &f.v,
                    Some(now_rfc3339()),
                    Some(MethodWire {
                        family: "refit".into(),
                        seed: Some(opts.seed),
                        run: None,
                    }),
                );
                e.extra.insert("refit".into(), true.into());
                array.place(&f.pattern, f.offset);
                entries[k] = e;
                patterns[k] = f.pattern;
                offsets[k] = f.offset;
                depth = 0;
                // Close the gaps the move left.
                let p = pack(
                    &patterns,
                    Some(&offsets),
                    &PackOptions {
                        steps: opts.pack_steps,
                        seed: opts.seed ^ stream,
                        ..PackOptions::default()
                    },
                    stop,
                );
                offsets = p.offsets;
                array = Shared::new();
                for (p, &o) in patterns.iter().zip(&offsets) {
                    array.place(p, o);
                }
                if array.size() < best_fill.size {
                    let t = PackedTable {
                        entries: entries
                            .iter()
                            .zip(&offsets)
                            .map(|(e, &offset)| PackedEntry {
                                entry: e.clone(),
                                offset,
                            })
                            .collect(),
                        declared: Some(array.size()),
                        stated_used: Some(array.used()),
                        meta: table.meta.clone(),
                    };
                    best_fill = t.check()?;
                    best = t;
                    if !on_better(&best, &best_fill) {
                        break;
                    }
                }
            }
            None => {
                array.place(&patterns[k], offsets[k]);
                depth += 1;
                if depth >= patterns.len() {
                    depth = 0;
                }
            }
        }
    }
    Ok((best, best_fill))
}

/// Hunts magics for `entry`'s square (its array slots already taken out) that end below
/// `end` when placed first-fit, on `opts.threads` threads until `until`; the one ending lowest.
#[allow(clippy::too_many_arguments)]
fn hunt_square(
    entry: &Entry,
    array: &Shared,
    end: u32,
    known: &[(crate::piece::Target, u64)],
    opts: &RefitOptions,
    stream: u64,
    until: Instant,
    stop: &AtomicBool,
) -> Option<Find> {
    let target = entry.target;
    let top_bits = target.piece.max_bits();
    let bits: Vec<u32> = (entry.bits..=(entry.bits + opts.spread).min(top_bits)).collect();
    // Best end so far (exclusive bound for first-fit: the highest slot must stay below it).
    let bound = AtomicU64::new(u64::from(end));
    let best: Mutex<Option<Find>> = Mutex::new(None);
    let mut bases = vec![entry.magic];
    bases.extend(neighbour_bases(target, known));
    std::thread::scope(|s| {
        for w in 0..opts.threads.max(1) {
            let (bits, bases, bound, best) = (&bits, &bases, &bound, &best);
            s.spawn(move || {
                let b = bits[w % bits.len()];
                let mut pad = Scratchpad::with_formula(target, b, entry.formula);
                let families = portfolio(target, b, bases);
                let mut rng = task_rng(opts.seed, target, b, stream + w as u64);
                let mut round = 0u64;
                while Instant::now() < until && !stop.load(Ordering::Relaxed) {
                    let family = round_family(&families, round);
                    round += 1;
                    let batch = search(&mut pad, family, &mut rng, BATCH, stop);
                    let Some(v) = batch.found else { continue };
                    let Some(pattern) = Pattern::from_pairs(pad.pairs(), entry.formula, b, v.magic)
                    else {
                        continue;
                    };
                    let limit = bound.load(Ordering::Relaxed);
                    if let Some(offset) = array.first_fit(&pattern, 0, limit) {
                        let e = u64::from(offset + pattern.max());
                        let mut g = best.lock().expect("no worker panics");
                        if e < bound.load(Ordering::Relaxed) {
                            bound.store(e, Ordering::Relaxed);
                            *g = Some(Find { v, pattern, offset });
                        }
                    }
                }
            });
        }
    });
    best.into_inner().expect("no worker panics")
}
