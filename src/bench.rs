//! `magichunt bench`: a fixed, seeded workload measuring the search, so that every lever is
//! judged by numbers (see the README, "Speed").
//!
//! Four figures per thread count, each the median of several repetitions:
//! - `rook_a1_11_per_s`: candidates examined per second hunting rook a1 at 11 bits (no such
//!   magic exists, so nothing stops early), with `_tested_per_s` counting those that reached
//!   the subset check and `_checks_per_tested` the slots looked at per tested candidate. The
//!   candidates are sparse (AND of three), the yardstick's distribution, so that the ratio
//!   measures the trial loop; `rook_a1_11_portfolio_*` repeats it with the family the hunter
//!   puts first there (dense candidates fail later: about 47 checks instead of 10);
//! - `bishop_d4_8_per_s` likewise for bishop d4 at 8 bits (proven impossible);
//! - `all128_s`: seconds to find magics for all 128 squares at popcount bits, no tuned seeds;
//! - `bishop_reduced_s`: seconds to find magics one bit below the popcount on the 24 bishop
//!   squares where published records show they exist.
//!
//! Work is split into tasks whose random streams come from (seed, target, bits, task), never
//! from a thread. The rate workloads do the same work whatever the scheduling; the reduced
//! bishops split each target's search into tasks on all threads and stop a target at its
//! first magic, so which task finds it first may vary, not the streams.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::attacks::relevant_mask;
use crate::layout::pack::{complete, pack_entries, PackOptions};
use crate::piece::{Piece, Target};
use crate::published;
use crate::question::Formula;
use crate::search::candidates::splitmix;
use crate::search::{
    portfolio, round_family, search, search_within, task_rng, Bound, Family, Scratchpad,
};
use crate::square::Square;

/// The seed of every bench stream.
pub const SEED: u64 = 0x6d61_6769_6368_756e;

/// Candidates per task in the rate workloads.
const TASK: u64 = 4_000_000;

/// Why the bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The thread pool could not be built.
    #[error("cannot start {threads} threads")]
    Pool {
        /// Threads asked for.
        threads: usize,
        /// What rayon said.
        source: rayon::ThreadPoolBuildError,
    },
    /// A magic that should be found quickly was not (a regression, not a user error).
    #[error("no magic found for {0} within the bench's budget")]
    NotFound(String),
    /// The packer's workload failed (a regression, not a user error).
    #[error("the packer's workload failed: {0}")]
    Workload(String),
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Thread counts, one set of figures each.
    pub threads: Vec<usize>,
    /// Repetitions of every figure (the median is reported).
    pub reps: usize,
    /// Repetitions of the reduced-bishop workload, the longest (0 skips it).
    pub reduced_reps: usize,
    /// Tasks of 4 M candidates per thread in each rate repetition.
    pub tasks_per_thread: u64,
}

impl Default for BenchConfig {
    fn default() -> BenchConfig {
        let all = std::thread::available_parallelism().map_or(1, usize::from);
        let mut threads = vec![1];
        if all > 1 {
            threads.push(all);
        }
        BenchConfig {
            threads,
            reps: 5,
            reduced_reps: 1,
            tasks_per_thread: 2,
        }
    }
}

/// The header of the table `magichunt bench` prints, one row per [`Figures`]
/// ([`Figures::render_rows`]).
#[must_use]
pub fn header() -> String {
    format!(
        "{:>7} {:>14} {:>14} {:>8} {:>14} {:>8} {:>14} {:>14} {:>8} {:>9} {:>9}",
        "threads",
        "rook_a1_11/s",
        "tested/s",
        "checks",
        "portfolio/s",
        "checks",
        "bishop_d4_8/s",
        "tested/s",
        "checks",
        "all128_s",
        "bred_s"
    )
}

/// The figures of one thread count (medians).
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// Threads used.
    pub threads: usize,
    /// Repetitions behind each median.
    pub reps: usize,
    /// Rook a1 at 11 bits: candidates examined per second.
    pub rook_a1_11_per_s: f64,
    /// Rook a1 at 11 bits: candidates that reached the subset check, per second.
    pub rook_a1_11_tested_per_s: f64,
    /// Rook a1 at 11 bits: subset checks per tested candidate.
    pub rook_a1_11_checks_per_tested: f64,
    /// Rook a1 at 11 bits with the family [`portfolio`] puts first there: candidates per
    /// second.
    pub rook_a1_11_portfolio_per_s: f64,
    /// Its subset checks per tested candidate.
    pub rook_a1_11_portfolio_checks_per_tested: f64,
    /// That family's name.
    pub rook_a1_11_portfolio_family: String,
    /// Bishop d4 at 8 bits: candidates examined per second.
    pub bishop_d4_8_per_s: f64,
    /// Bishop d4 at 8 bits: candidates that reached the subset check, per second.
    pub bishop_d4_8_tested_per_s: f64,
    /// Bishop d4 at 8 bits: subset checks per tested candidate.
    pub bishop_d4_8_checks_per_tested: f64,
    /// Seconds to find magics for all 128 squares at popcount bits.
    pub all128_s: f64,
    /// Seconds to find magics one bit below the popcount on the 24 bishop squares (`null`
    /// when skipped).
    pub bishop_reduced_s: f64,
    /// How many bishop squares the reduced workload covers.
    pub bishop_reduced_squares: usize,
    /// The pool hunt's trial loop: rook a1 at 12 bits under a bound of 2,400 slots (the
    /// pools' few-slot objective), candidates examined per second.
    pub pool_rook_a1_12_per_s: f64,
    /// The packer: seconds for first-fit decreasing and 2,000 annealing steps of the built-in
    /// store's plain magics (one thread, whatever the thread count).
    pub pack_2000_steps_s: f64,
}

/// Runs the bench for every thread count of `config`.
///
/// # Errors
/// [`BenchError`] if a pool cannot start or a workload magic is not found.
pub fn run(config: &BenchConfig) -> Result<Vec<Figures>, BenchError> {
    config
        .threads
        .iter()
        .map(|&threads| run_threads(config, threads))
        .collect()
}

fn run_threads(config: &BenchConfig, threads: usize) -> Result<Figures, BenchError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| BenchError::Pool { threads, source })?;
    let rook = Target::new(Piece::Rook, sq(0));
    let bishop = Target::new(Piece::Bishop, sq(27));
    let tasks = config.tasks_per_thread * threads as u64;
    let reps = config.reps.max(1);
    let sparse = Family::Sparse;
    let rook_family = portfolio(rook, 11, &[])[0].clone();
    let valid = Bound::Valid;
    let r = pool.install(|| median_rates(reps, || rates(rook, 11, &sparse, tasks, valid)));
    let rp = pool.install(|| median_rates(reps, || rates(rook, 11, &rook_family, tasks, valid)));
    let b = pool.install(|| median_rates(reps, || rates(bishop, 8, &sparse, tasks, valid)));
    let slots = Bound::Slots(2_400);
    let pr = pool.install(|| median_rates(reps, || rates(rook, 12, &sparse, tasks, slots)));
    let packer = median(reps, pack_2000_steps)?;
    let mut rep = 0;
    let all = pool.install(|| {
        median(reps, || {
            rep += 1;
            all128(rep)
        })
    })?;
    let reduced = reduced_bishops();
    let red = if config.reduced_reps == 0 {
        f64::NAN
    } else {
        pool.install(|| median(config.reduced_reps, || find_all_split(&reduced)))?
    };
    Ok(Figures {
        threads,
        reps,
        rook_a1_11_per_s: r.0,
        rook_a1_11_tested_per_s: r.1,
        rook_a1_11_checks_per_tested: r.2,
        rook_a1_11_portfolio_per_s: rp.0,
        rook_a1_11_portfolio_checks_per_tested: rp.2,
        rook_a1_11_portfolio_family: rook_family.to_string(),
        bishop_d4_8_per_s: b.0,
        bishop_d4_8_tested_per_s: b.1,
        bishop_d4_8_checks_per_tested: b.2,
        all128_s: all,
        bishop_reduced_s: red,
        bishop_reduced_squares: reduced.len(),
        pool_rook_a1_12_per_s: pr.0,
        pack_2000_steps_s: packer,
    })
}

fn sq(i: u8) -> Square {
    Square::new(i).expect("a square index below 64")
}

/// Seconds to pack the built-in store's plain magics: first-fit decreasing, then 2,000
/// annealing steps.
fn pack_2000_steps() -> Result<f64, BenchError> {
    let (entries, _) = complete(crate::shipped::store(), Formula::Plain)
        .map_err(|e| BenchError::Workload(e.to_string()))?;
    let opts = PackOptions {
        steps: 2_000,
        ..PackOptions::default()
    };
    let start = Instant::now();
    pack_entries(&entries, None, &opts, &AtomicBool::new(false))
        .map_err(|e| BenchError::Workload(e.to_string()))?;
    Ok(start.elapsed().as_secs_f64())
}

/// (examined/s, tested/s, checks per tested) over `tasks` tasks of [`TASK`] candidates.
fn rates(target: Target, bits: u32, family: &Family, tasks: u64, bound: Bound) -> (f64, f64, f64) {
    let never = AtomicBool::new(false);
    let start = Instant::now();
    let (tried, tested, checks) = (0..tasks)
        .into_par_iter()
        .map_init(
            || Scratchpad::new(target, bits),
            |pad, task| {
                let mut rng = task_rng(SEED, target, bits, task);
                let b = search_within(pad, family, &mut rng, TASK, &never, bound);
                (b.tried, b.tested, b.checks)
            },
        )
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    let s = start.elapsed().as_secs_f64();
    (
        tried as f64 / s,
        tested as f64 / s,
        checks as f64 / tested.max(1) as f64,
    )
}

fn median_rates(reps: usize, mut f: impl FnMut() -> (f64, f64, f64)) -> (f64, f64, f64) {
    let runs: Vec<(f64, f64, f64)> = (0..reps).map(|_| f()).collect();
    let mut by_rate = runs.clone();
    by_rate.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mid = by_rate[by_rate.len() / 2];
    (
        mid.0,
        med(runs.iter().map(|r| r.1)),
        med(runs.iter().map(|r| r.2)),
    )
}

fn med(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn median(reps: usize, mut f: impl FnMut() -> Result<f64, BenchError>) -> Result<f64, BenchError> {
    let runs = (0..reps).map(|_| f()).collect::<Result<Vec<f64>, _>>()?;
    Ok(med(runs.into_iter()))
}

/// Seconds to find a magic at popcount bits for all 128 targets, repetition `rep` (each
/// repetition draws from its own seed, so the median is over the luck of the draw as well as
/// the machine's noise: one fixed seed would measure one lucky or unlucky sample).
fn all128(rep: u64) -> Result<f64, BenchError> {
    let targets: Vec<(Target, u32)> = Target::all()
        .map(|t| (t, relevant_mask(t.piece, t.square).count()))
        .collect();
    find_all_nested(&targets, splitmix(SEED ^ rep))
}

/// The bishop targets one bit below the popcount where a published record shows a magic.
#[must_use]
pub fn reduced_bishops() -> Vec<(Target, u32)> {
    Square::all()
        .map(|s| Target::new(Piece::Bishop, s))
        .filter_map(|t| {
            let pop = relevant_mask(t.piece, t.square).count();
            let best = published::best(t)?;
            (best.bits < pop).then_some((t, pop - 1))
        })
        .collect()
}

/// Candidates per task when one target's search is split across threads.
const SPLIT_TASK: u64 = 1 << 21;
/// Tasks per target at most (about 1e9 candidates).
const SPLIT_ROUNDS: u64 = 512;

/// Seconds to find a magic for every (target, bits), every target's search split into tasks
/// of [`SPLIT_TASK`] candidates (round `r` draws [`round_family`] of the portfolio from
/// stream `r`), so that all threads work on the hard targets until each is found.
fn find_all_split(targets: &[(Target, u32)]) -> Result<f64, BenchError> {
    let start = Instant::now();
    let done: Vec<AtomicBool> = targets.iter().map(|_| AtomicBool::new(false)).collect();
    let tasks: Vec<(usize, u64)> = (0..SPLIT_ROUNDS)
        .flat_map(|r| (0..targets.len()).map(move |i| (i, r)))
        .collect();
    tasks
        .par_iter()
        .for_each_init(Vec::<Option<Scratchpad>>::new, |pads, &(i, round)| {
            if done[i].load(Ordering::Relaxed) {
                return;
            }
            let (t, bits) = targets[i];
            if pads.len() < targets.len() {
                pads.resize(targets.len(), None);
            }
            let pad = pads[i].get_or_insert_with(|| Scratchpad::new(t, bits));
            let families = portfolio(t, bits, &[]);
            let family = round_family(&families, round);
            let mut rng = task_rng(SEED, t, bits, round);
            if search(pad, family, &mut rng, SPLIT_TASK, &done[i])
                .found
                .is_some()
            {
                done[i].store(true, Ordering::Relaxed);
            }
        });
    if let Some(i) = done.iter().position(|d| !d.load(Ordering::Relaxed)) {
        let (t, bits) = targets[i];
        return Err(BenchError::NotFound(format!("{t} at {bits} bits")));
    }
    Ok(start.elapsed().as_secs_f64())
}

/// Candidates per round when hard popcount targets are shared between threads.
const NESTED_TASK: u64 = 1 << 11;

/// Seconds to find a magic for every (target, bits): targets in parallel, and each target's
/// rounds of [`NESTED_TASK`] candidates in parallel too (work stealing lets idle threads help
/// with the hard rooks). The first family of the portfolio, stream = round. Round 0 runs on
/// the target's own pad first: most targets end there, and only the hard ones pay for the
/// pad copies a parallel search needs.
fn find_all_nested(targets: &[(Target, u32)], seed: u64) -> Result<f64, BenchError> {
    let start = Instant::now();
    targets.par_iter().try_for_each(|&(t, bits)| {
        let done = AtomicBool::new(false);
        let family = portfolio(t, bits, &[])[0].clone();
        let mut first = Scratchpad::new(t, bits);
        let mut rng = task_rng(seed, t, bits, 0);
        if search(&mut first, &family, &mut rng, NESTED_TASK, &done)
            .found
            .is_some()
        {
            return Ok(());
        }
        let found = (1..1u64 << 17)
            .into_par_iter()
            .map_init(
                || first.clone(),
                |pad, round| {
                    if done.load(Ordering::Relaxed) {
                        return None;
                    }
                    let mut rng = task_rng(seed, t, bits, round);
                    let v = search(pad, &family, &mut rng, NESTED_TASK, &done).found;
                    if v.is_some() {
                        done.store(true, Ordering::Relaxed);
                    }
                    v
                },
            )
            .find_any(Option::is_some);
        match found {
            Some(_) => Ok(()),
            None => Err(BenchError::NotFound(format!("{t} at {bits} bits"))),
        }
    })?;
    Ok(start.elapsed().as_secs_f64())
}
impl Figures {
    /// Its rows of the table `magichunt bench` prints (under [`header`]): the figures, then
    /// the pool hunt's and the packer's.
    #[must_use]
    pub fn render_rows(&self) -> String {
        format!(
            "{:>7} {:>14.0} {:>14.0} {:>8.1} {:>14.0} {:>8.1} {:>14.0} {:>14.0} {:>8.1} {:>9.4} {:>9.3}\n{:>7} pool hunt, rook a1 at 12 bits under 2,400 slots: {:.0} candidates/s; packer, first-fit decreasing and 2,000 annealing steps of the built-in plain magics: {:.2} s\n",
            self.threads,
            self.rook_a1_11_per_s,
            self.rook_a1_11_tested_per_s,
            self.rook_a1_11_checks_per_tested,
            self.rook_a1_11_portfolio_per_s,
            self.rook_a1_11_portfolio_checks_per_tested,
            self.bishop_d4_8_per_s,
            self.bishop_d4_8_tested_per_s,
            self.bishop_d4_8_checks_per_tested,
            self.all128_s,
            self.bishop_reduced_s,
            "",
            self.pool_rook_a1_12_per_s,
            self.pack_2000_steps_s
        )
    }
}
