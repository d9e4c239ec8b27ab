//! What a whole-period search would cost, from a random sample of its tasks.
//!
//! The period of a question is cut into [`Plan::tasks`] independent subtrees. The estimator
//! draws a seeded, uniformly random sample of them without replacement, searches each to
//! completion on the calling thread, and measures the CPU time and the nodes of each. The
//! total is projected as `tasks × mean per task`, which is unbiased for the total of the
//! exhaust run with the same task split.
//!
//! # The interval
//! Task costs are heavy-tailed (a few subtrees hold most of the work), so the sample mean is
//! skewed to the right and a normal interval on it would be too narrow above. The 95 %
//! interval of the node total is a **percentile bootstrap** of the mean nodes per task
//! ([`RESAMPLES`] seeded resamples) with the finite-population correction `sqrt(1 - n/tasks)`
//! applied to its distance from the mean: the bootstrap follows the skew of the sample without
//! assuming a shape, and when the whole period is sampled the interval shrinks to the exact
//! total. The CPU projection is that interval at the sample's CPU seconds per node (see
//! [`project`] for why). It cannot see a tail the sample missed: `--full` runs measure the
//! coverage against the exact per-task node counts ([`coverage`]).
//!
//! A time budget stops the sampling between tasks, and a task still running at the deadline
//! is cut off (a task of an open question can take hours). A cut-off task is not dropped
//! silently: it counts with its cost so far, the projection becomes a lower bound, and
//! [`Estimate::floor_cpu_s`] gives a one-sided 95 % lower bound on the total from the
//! fraction of sampled tasks that cost at least that much (Clopper–Pearson).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand_xoshiro::rand_core::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::shard::Shard;
use crate::exhaust::{Order, Plan, Searcher};
use crate::piece::Target;
use crate::search::candidates::task_rng;

/// With fewer finished tasks than this, a task cut off by the budget counts (at its cost so far)
/// and the projection is a lower bound.
pub const CUT_COUNTS_BELOW: usize = 30;

/// At most this many units (tasks, or batches of consecutive draws) per bootstrap resample.
pub const BOOT_UNITS: usize = 10_000;

/// At most this many tasks per sample: the sampler and the costs take about 60 bytes a task.
pub const MAX_SAMPLE: u64 = 1 << 22;

/// Bootstrap resamples behind an interval.
pub const RESAMPLES: usize = 2000;

/// The RNG stream of the estimator's sample (`task_rng(seed, target, bits, stream)`); the
/// bootstrap uses the next one.
const STREAM: u64 = 0x6573_7469_6d61_7465;

/// How to sample one question.
#[derive(Clone, Debug)]
pub struct EstimateConfig {
    /// Tasks to draw (at most all of them, and at most [`MAX_SAMPLE`]).
    pub sample: u64,
    /// Stop drawing after this long (wall time), cutting off a task still running.
    pub budget: Option<Duration>,
    /// The seed: the same seed draws the same tasks.
    pub seed: u64,
    /// Task bits of the split (default: [`sampled_plan`]'s).
    pub task_bits: Option<u32>,
    /// The order the bits are fixed in (default: [`Order::suited`] to the target).
    pub order: Option<Order>,
}

/// What one task cost.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct TaskCost {
    /// The task (the low task bits of `m`).
    pub task: u64,
    /// Partial magics tested.
    pub nodes: u64,
    /// CPU seconds of the searching thread: its wall seconds scaled by the share of the CPU
    /// the thread got over the run (wall seconds where the system does not tell).
    pub cpu_s: f64,
}

/// A projected total with its 95 % interval (`None` bounds when one task is not enough).
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Projection {
    /// `tasks × mean`.
    pub total: f64,
    /// Lower end of the 95 % interval.
    pub lo: Option<f64>,
    /// Upper end of the 95 % interval.
    pub hi: Option<f64>,
}

impl Projection {
    /// Whether `x` lies in the interval (false without one).
    #[must_use]
    pub fn contains(&self, x: f64) -> bool {
        matches!((self.lo, self.hi), (Some(lo), Some(hi)) if lo <= x && x <= hi)
    }
}

/// The estimate of one question.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    /// `rook a2 at 10 bits`.
    pub question: String,
    /// `log2` of the period.
    pub period_bits: u32,
    /// Task bits of the split.
    pub task_bits: u32,
    /// The order the bits are fixed in (`low` or `high`).
    pub order: &'static str,
    /// Tasks in the period.
    pub tasks: u64,
    /// Tasks drawn for the sample.
    pub planned: u64,
    /// Tasks searched to completion.
    pub finished: u64,
    /// The task cut off by the budget, with its cost so far, if any.
    pub cut: Option<TaskCost>,
    /// Whether the cut-off task counts in the projection (fewer than [`CUT_COUNTS_BELOW`]
    /// finished tasks): the projection is then a lower bound.
    pub lower_bound: bool,
    /// The seed of the sample.
    pub seed: u64,
    /// Fraction of the period's tasks searched to completion.
    pub fraction: f64,
    /// CPU seconds spent on the sample (finished and cut-off tasks).
    pub sample_cpu_s: f64,
    /// Nodes tested in the sample.
    pub sample_nodes: u64,
    /// Nodes per CPU second over the sample.
    pub nodes_per_s: f64,
    /// Projected CPU seconds of the whole period on one thread (a lower bound when a task was
    /// cut off).
    pub cpu_s: Projection,
    /// Projected nodes of the whole period.
    pub nodes: Projection,
    /// With a cut-off task: a one-sided 95 % lower bound on the whole period's CPU seconds.
    pub floor_cpu_s: Option<f64>,
    /// How the interval was made.
    pub method: &'static str,
    /// Magics met in the sample (each one disproves "none exists").
    pub magics: u64,
    /// Whether an interrupt (not the budget) stopped the sampling.
    pub interrupted: bool,
}

/// Distinct tasks of `0..tasks`, drawn uniformly at random without replacement and lazily (a
/// sparse Fisher–Yates shuffle), so that every prefix is a uniform sample.
#[derive(Clone, Debug)]
pub struct Sampler {
    tasks: u64,
    drawn: u64,
    moved: std::collections::HashMap<u64, u64>,
    rng: Xoshiro256PlusPlus,
}

impl Sampler {
    /// A sampler of `0..tasks` driven by `rng`.
    #[must_use]
    pub fn new(tasks: u64, rng: Xoshiro256PlusPlus) -> Sampler {
        Sampler {
            tasks,
            drawn: 0,
            moved: std::collections::HashMap::new(),
            rng,
        }
    }
}

impl Iterator for Sampler {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let i = self.drawn;
        if i >= self.tasks {
            return None;
        }
        let j = i + below(&mut self.rng, self.tasks - i);
        let at_j = *self.moved.get(&j).unwrap_or(&j);
        let at_i = *self.moved.get(&i).unwrap_or(&i);
        self.moved.insert(j, at_i);
        self.moved.remove(&i);
        self.drawn += 1;
        Some(at_j)
    }
}

/// `k` distinct tasks of `0..tasks` (all of them when `k >= tasks`), uniformly at random in
/// random order.
#[must_use]
pub fn sample_tasks(tasks: u64, k: u64, rng: Xoshiro256PlusPlus) -> Vec<u64> {
    Sampler::new(tasks, rng)
        .take(usize::try_from(k).unwrap_or(usize::MAX))
        .collect()
}

/// A number below `n` (`n > 0`), by multiply-high.
fn below(rng: &mut Xoshiro256PlusPlus, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// Searches `tasks` in order on this thread until done, `deadline` or `interrupt`: the cost
/// of each finished task, then the one cut off (if any), and the magics met.
///
/// The thread's CPU clock that std can read (`/proc/thread-self/schedstat`) only advances at
/// scheduler ticks while the thread runs, far too coarse for tasks of microseconds. So each
/// task is timed on the monotonic clock and the times are scaled by the CPU time the thread
/// got over the whole run divided by the wall time of the run: preemption by other work on a
/// shared machine falls on tasks at random, and the CPU totals stay exact.
fn measure(
    plan: &Plan,
    tasks: impl Iterator<Item = u64>,
    deadline: Option<Instant>,
    interrupt: &AtomicBool,
) -> (Vec<TaskCost>, Option<TaskCost>, u64) {
    let halt = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let mut costs = Vec::new();
    let mut cut = None;
    let mut magics = 0;
    let mut cpu_ratio = 1.0;
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if interrupt.load(Ordering::Relaxed)
                    || deadline.is_some_and(|d| Instant::now() >= d)
                {
                    halt.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        let mut searcher = Searcher::new(plan);
        let cpu0 = super::bench::thread_cpu_ns();
        let start = Instant::now();
        for task in tasks {
            if halt.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed) {
                break;
            }
            let t0 = Instant::now();
            let result = searcher.run_task(task, &halt);
            let cpu_s = t0.elapsed().as_secs_f64();
            match result {
                Ok(t) => {
                    magics += t.magics;
                    costs.push(TaskCost {
                        task,
                        nodes: t.nodes,
                        cpu_s,
                    });
                }
                Err(stopped) => {
                    cut = Some(TaskCost {
                        task,
                        nodes: stopped.nodes,
                        cpu_s,
                    });
                    break;
                }
            }
        }
        let wall = start.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (cpu0, super::bench::thread_cpu_ns()) {
            // The CPU clock moves in scheduler ticks (a few ms): below 50 ms it says little.
            if wall >= 0.05 {
                cpu_ratio = (b.saturating_sub(a) as f64 * 1e-9 / wall).min(1.0);
            }
        }
        done.store(true, Ordering::Relaxed);
    });
    for c in costs.iter_mut().chain(cut.iter_mut()) {
        c.cpu_s *= cpu_ratio;
    }
    (costs, cut, magics)
}

/// Projects the totals over `tasks` tasks from a sample of task costs (seeded by `rng`).
///
/// Nodes: `tasks × mean`, with the finite-population-corrected percentile bootstrap interval.
/// CPU time: the nodes projection at the sample's CPU seconds per node. The point is the
/// same as `tasks × mean CPU per task`, but the interval comes from the node counts, which are
/// exact, where the time of a task of microseconds is mostly clock and preemption noise on a
/// shared machine (one preempted task in a sample swings a time-based interval).
#[must_use]
pub fn project(
    costs: &[TaskCost],
    tasks: u64,
    rng: &mut Xoshiro256PlusPlus,
) -> (Projection, Projection) {
    let nodes: Vec<f64> = costs.iter().map(|c| c.nodes as f64).collect();
    let cpu: f64 = costs.iter().map(|c| c.cpu_s).sum();
    let sum: f64 = nodes.iter().sum();
    if sum == 0.0 {
        let times: Vec<f64> = costs.iter().map(|c| c.cpu_s).collect();
        return (bootstrap(&times, tasks, rng), bootstrap(&nodes, tasks, rng));
    }
    let nodes = bootstrap(&nodes, tasks, rng);
    let per_node = cpu / sum;
    let cpu = Projection {
        total: nodes.total * per_node,
        lo: nodes.lo.map(|x| x * per_node),
        hi: nodes.hi.map(|x| x * per_node),
    };
    (cpu, nodes)
}

/// `tasks × mean(xs)` with the 95 % percentile bootstrap interval of the mean ([`RESAMPLES`]
/// resamples), its distance from the mean shrunk by `sqrt(1 - n / tasks)`.
fn bootstrap(xs: &[f64], tasks: u64, rng: &mut Xoshiro256PlusPlus) -> Projection {
    let n = xs.len();
    let scale = tasks as f64;
    let m = xs.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return Projection {
            total: m * scale,
            lo: None,
            hi: None,
        };
    }
    // Past BOOT_UNITS tasks the resampled units are batches of consecutive draws (the draws are
    // in random order, so the batches are a random split): the same mean, and the cost of a
    // resample stays bounded on samples of millions of tiny tasks.
    let g = n.min(BOOT_UNITS);
    let units: Vec<(f64, f64)> = (0..g)
        .map(|k| {
            let part = &xs[k * n / g..(k + 1) * n / g];
            (part.iter().sum(), part.len() as f64)
        })
        .collect();
    let mut boot: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let (sum, count) = (0..g).fold((0.0, 0.0), |(s, c), _| {
                let u = units[below(rng, g as u64) as usize];
                (s + u.0, c + u.1)
            });
            sum / count
        })
        .collect();
    boot.sort_by(f64::total_cmp);
    let q = |p: f64| boot[((p * (boot.len() - 1) as f64).round()) as usize];
    let fpc = (1.0 - n as f64 / scale).max(0.0).sqrt();
    Projection {
        total: m * scale,
        lo: Some((m - (m - q(0.025)) * fpc) * scale),
        hi: Some((m + (q(0.975) - m) * fpc) * scale),
    }
}

/// The one-sided 95 % Clopper–Pearson lower bound on a binomial proportion with `x` successes
/// in `n` trials (`0` when `x = 0`).
#[must_use]
pub fn proportion_floor(x: u64, n: u64) -> f64 {
    if x == 0 || n == 0 {
        return 0.0;
    }
    // P(X >= x | p) grows with p: find the p where it is 5 %.
    let tail = |p: f64| {
        let mut pmf = (1.0 - p).powf(n as f64);
        let mut below = 0.0;
        for i in 0..x {
            below += pmf;
            pmf *= (n - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
        }
        1.0 - below
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if tail(mid) < 0.05 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The one-sided 95 % lower bound on the CPU seconds of all `tasks` tasks, from the sample
/// `counted` (which holds `cut`, the task cut off at its cost so far): the fraction of tasks
/// that cost at least as much as `cut` (Clopper–Pearson) times that cost, and never less than
/// what the sampled tasks, which are part of the period, already cost.
fn cpu_floor(counted: &[TaskCost], cut: TaskCost, tasks: u64) -> f64 {
    let x = counted.iter().filter(|d| d.cpu_s >= cut.cpu_s).count() as u64;
    let spent: f64 = counted.iter().map(|c| c.cpu_s).sum();
    (proportion_floor(x, counted.len() as u64) * cut.cpu_s * tasks as f64).max(spent)
}

/// Task bits an estimate of the high order samples at unless told otherwise: its subtrees
/// are few and heavy-tailed at `exhaust`'s 2^18 (rook d1 at 9: 1,500 of them, ±13 %, and seed
/// 1's interval missed the measured count), while 2^24 finer pieces of the same tree give
/// ±2.5 % in a third of the time and held it for every seed tried. The tree is the same but for
/// the task roots, at most 2^24 nodes more than `exhaust` visits (docs/speed.md).
pub const HIGH_SAMPLE_TASK_BITS: u32 = 24;

/// The plan an estimate samples: `target` at `bits` in `order` (default: [`Order::suited`])
/// cut into `2^task_bits` tasks (default: `exhaust`'s split for the low order, and
/// [`HIGH_SAMPLE_TASK_BITS`] for the high one).
#[must_use]
pub fn sampled_plan(
    target: Target,
    bits: u32,
    order: Option<Order>,
    task_bits: Option<u32>,
) -> Plan {
    let order = order.unwrap_or(Order::suited(target));
    let plan = Plan::new(target, bits).with_order(order);
    match (task_bits, order) {
        (Some(t), _) => plan.with_task_bits(t),
        (None, Order::High | Order::Trim | Order::Fold) => {
            plan.with_task_bits(HIGH_SAMPLE_TASK_BITS)
        }
        (None, Order::Low) => plan,
    }
}

/// Estimates the whole-period cost of `target` at `bits` (plain formula).
#[must_use]
pub fn estimate(
    target: Target,
    bits: u32,
    cfg: &EstimateConfig,
    interrupt: &AtomicBool,
) -> Estimate {
    let plan = sampled_plan(target, bits, cfg.order, cfg.task_bits);
    let rng = task_rng(cfg.seed, target, bits, STREAM);
    let planned = cfg.sample.min(plan.tasks()).min(MAX_SAMPLE);
    let order =
        Sampler::new(plan.tasks(), rng).take(usize::try_from(planned).unwrap_or(usize::MAX));
    let deadline = cfg.budget.map(|b| Instant::now() + b);
    let (costs, cut, magics) = measure(&plan, order, deadline, interrupt);
    let mut boot_rng = task_rng(cfg.seed, target, bits, STREAM + 1);
    // With enough finished tasks the one cut off at the deadline is dropped (its bias, from
    // being more likely the long one, is of the order of one task in the sample); with few, it
    // counts at its cost so far and the projection is a lower bound.
    let cut_counts = costs.len() < CUT_COUNTS_BELOW;
    let counted: Vec<TaskCost> = costs
        .iter()
        .copied()
        .chain(cut.filter(|_| cut_counts))
        .collect();
    let (cpu_s, nodes) = project(&counted, plan.tasks(), &mut boot_rng);
    let sample_cpu_s: f64 = counted.iter().map(|c| c.cpu_s).sum();
    let sample_nodes: u64 = counted.iter().map(|c| c.nodes).sum();
    let floor_cpu_s = cut
        .filter(|_| cut_counts)
        .map(|c| cpu_floor(&counted, c, plan.tasks()));
    Estimate {
        question: format!("{target} at {bits} bits"),
        period_bits: plan.period_bits(),
        task_bits: plan.task_bits(),
        order: plan.order().name(),
        tasks: plan.tasks(),
        planned,
        finished: costs.len() as u64,
        cut,
        lower_bound: cut.is_some() && cut_counts,
        seed: cfg.seed,
        fraction: costs.len() as f64 / plan.tasks() as f64,
        sample_cpu_s,
        sample_nodes,
        nodes_per_s: sample_nodes as f64 / sample_cpu_s.max(1e-9),
        cpu_s,
        nodes,
        floor_cpu_s,
        method:
            "percentile bootstrap of the mean per task, 2000 resamples, finite-population corrected",
        magics,
        interrupted: interrupt.load(Ordering::Relaxed),
    }
}

/// The whole period searched task by task on this thread, in `exhaust`'s order: the cost of
/// every task (the truth the estimator is checked against). `None` when interrupted.
#[must_use]
pub fn full(plan: &Plan, interrupt: &AtomicBool) -> Option<Vec<TaskCost>> {
    let whole = Shard::WHOLE;
    let order = (0..plan.tasks()).map(|j| whole.task_at(j, plan.tasks()));
    let (costs, cut, _) = measure(plan, order, None, interrupt);
    (cut.is_none() && costs.len() as u64 == plan.tasks()).then_some(costs)
}

/// How often the estimator's node interval contains the exact node total of `all` (every
/// task's cost): `runs` samples of `k` tasks each (seeds `seed`, `seed + 1`, …). A 95 %
/// interval should come out near 0.95. (Node counts are exact; per-task times of the full run
/// carry its preemption noise, so they make no truth to check the CPU interval against.)
#[must_use]
pub fn coverage(all: &[TaskCost], k: u64, runs: u64, seed: u64, target: Target, bits: u32) -> f64 {
    let tasks = all.len() as u64;
    let exact = all.iter().map(|c| c.nodes as f64).sum::<f64>();
    let mut hits = 0u64;
    for r in 0..runs {
        let rng = task_rng(seed.wrapping_add(r), target, bits, STREAM);
        let mut boot_rng = task_rng(seed.wrapping_add(r), target, bits, STREAM + 1);
        let picked: Vec<TaskCost> = sample_tasks(tasks, k, rng)
            .into_iter()
            .map(|i| all[i as usize])
            .collect();
        let (_, nodes) = project(&picked, tasks, &mut boot_rng);
        hits += u64::from(nodes.contains(exact));
    }
    hits as f64 / runs.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Piece;
    use crate::square::Square;

    fn rng(seed: u64) -> Xoshiro256PlusPlus {
        task_rng(
            seed,
            Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap()),
            5,
            STREAM,
        )
    }

    #[test]
    fn samples_are_distinct_in_range_and_seeded() {
        let a = sample_tasks(1000, 300, rng(1));
        let mut s = a.clone();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 300);
        assert!(a.iter().all(|&t| t < 1000));
        assert_eq!(a, sample_tasks(1000, 300, rng(1)));
        assert_ne!(a, sample_tasks(1000, 300, rng(2)));
        // Asking for more than there are gives every task once.
        let mut all = sample_tasks(50, 80, rng(3));
        all.sort_unstable();
        assert_eq!(all, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn samples_are_uniform() {
        // Each of 10 tasks should be drawn first about 1/10 of the time.
        let mut first = [0u32; 10];
        for seed in 0..20_000 {
            first[sample_tasks(10, 3, rng(seed))[0] as usize] += 1;
        }
        assert!(
            first.iter().all(|&c| (1700..2300).contains(&c)),
            "{first:?}"
        );
    }

    fn cost(task: u64, nodes: u64) -> TaskCost {
        TaskCost {
            task,
            nodes,
            cpu_s: nodes as f64 * 1e-6,
        }
    }

    #[test]
    fn a_whole_sample_projects_the_exact_total() {
        let all: Vec<TaskCost> = (0..64).map(|t| cost(t, t * t + 1)).collect();
        let total: u64 = all.iter().map(|c| c.nodes).sum();
        let (_, nodes) = project(&all, 64, &mut rng(5));
        assert!((nodes.total - total as f64).abs() < 1e-6);
        assert!((nodes.lo.unwrap() - total as f64).abs() < 1e-6);
        assert!((nodes.hi.unwrap() - total as f64).abs() < 1e-6);
    }

    #[test]
    fn one_task_gives_no_interval_and_constant_costs_a_tight_one() {
        let (_, n) = project(&[cost(0, 7)], 100, &mut rng(6));
        assert_eq!((n.total, n.lo, n.hi), (700.0, None, None));
        let same: Vec<TaskCost> = (0..10).map(|t| cost(t, 7)).collect();
        let (_, n) = project(&same, 100, &mut rng(6));
        assert!(n.contains(700.0) && n.hi.unwrap() - n.lo.unwrap() < 1e-6);
    }

    /// `n` tasks with Pareto node counts of tail index `alpha` (at least 1,000 each).
    fn pareto(n: u64, alpha: f64, seed: u64) -> Vec<TaskCost> {
        let mut r = rng(seed);
        (0..n)
            .map(|t| {
                let u = (below(&mut r, 1 << 30) as f64 + 0.5) / f64::from(1u32 << 30);
                cost(t, (1000.0 * u.powf(-1.0 / alpha)) as u64)
            })
            .collect()
    }

    #[test]
    fn heavy_tails_are_covered_near_the_nominal_rate() {
        // Pareto-like costs (tail index 1.5): the interval of a 400-task sample out of 10,000
        // holds the exact total in most runs (the bootstrap runs a little short of 95 % on
        // such tails, not far below).
        let all = pareto(10_000, 1.5, 7);
        let target = Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap());
        let nodes = coverage(&all, 400, 200, 11, target, 5);
        assert!(nodes > 0.8, "coverage {nodes}");
    }

    #[test]
    fn batched_bootstrap_of_a_big_sample_brackets_the_total() {
        // 30,000 draws (past BOOT_UNITS, so resampled in batches) from 100,000 Pareto costs
        // (tail index 2.5: a finite variance, so the interval must also be narrow).
        let all = pareto(100_000, 2.5, 8);
        let exact: f64 = all.iter().map(|c| c.nodes as f64).sum();
        let target = Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap());
        let mut hits = 0;
        for seed in 0..20 {
            let picked: Vec<TaskCost> = sample_tasks(100_000, 30_000, rng(100 + seed))
                .into_iter()
                .map(|i| all[i as usize])
                .collect();
            let (_, nodes) = project(&picked, 100_000, &mut task_rng(seed, target, 5, 1));
            assert!(nodes.hi.unwrap() - nodes.lo.unwrap() < 0.2 * exact);
            hits += u32::from(nodes.contains(exact));
        }
        assert!(hits >= 16, "{hits} of 20");
    }

    #[test]
    fn clopper_pearson_floors() {
        // x = 1 has the closed form 1 - 0.95^(1/n).
        for n in [1, 2, 10] {
            let want = 1.0 - 0.95f64.powf(1.0 / n as f64);
            assert!((proportion_floor(1, n) - want).abs() < 1e-9, "{n}");
        }
        assert_eq!(proportion_floor(0, 10), 0.0);
        assert!(proportion_floor(10, 10) > 0.74 && proportion_floor(10, 10) < 0.75);
    }

    #[test]
    fn the_cpu_floor_is_never_below_what_the_sample_spent() {
        let cost = |cpu_s: f64| TaskCost {
            task: 0,
            nodes: 1,
            cpu_s,
        };
        // One task of one, cut off after 60 s (`--task-bits 0`): the period cost at least
        // that, though the proportion's floor alone is 5 % of it.
        let cut = cost(60.0);
        assert!((cpu_floor(&[cut], cut, 1) - 60.0).abs() < 1e-9);
        // Three short tasks and a long cut one out of a million: the proportion wins.
        let sample = [cost(0.1), cost(0.2), cost(0.1), cost(30.0)];
        let floor = cpu_floor(&sample, cost(30.0), 1_000_000);
        let want = proportion_floor(1, 4) * 30.0 * 1e6;
        assert!((floor - want).abs() < 1e-6 * want, "{floor} vs {want}");
        assert!(floor > 30.4);
    }

    #[test]
    fn the_estimate_of_a_small_question_brackets_the_exact_nodes() {
        // Bishop e8 at 5 (period 2^31, 2^17 tasks): a 1/8 sample brackets the exact node count.
        let target = Target::new(Piece::Bishop, "e8".parse::<Square>().unwrap());
        let plan = Plan::new(target, 5);
        let stop = AtomicBool::new(false);
        let all = full(&plan, &stop).unwrap();
        let exact: u64 = all.iter().map(|c| c.nodes).sum();
        assert_eq!(exact, crate::exhaust::search_all(&plan).nodes);
        let cfg = EstimateConfig {
            sample: plan.tasks() / 8,
            budget: None,
            seed: 3,
            task_bits: None,
            order: None,
        };
        let e = estimate(target, 5, &cfg, &stop);
        assert_eq!(e.finished, plan.tasks() / 8);
        assert!(e.cut.is_none() && e.floor_cpu_s.is_none());
        assert!(e.nodes.contains(exact as f64), "{:?} vs {exact}", e.nodes);
        let again = estimate(target, 5, &cfg, &stop);
        assert_eq!(
            e.sample_nodes, again.sample_nodes,
            "the seed fixes the sample"
        );
    }

    #[test]
    fn an_interrupt_before_the_start_searches_nothing() {
        let target = Target::new(Piece::Bishop, "e8".parse::<Square>().unwrap());
        let stop = AtomicBool::new(true);
        let cfg = EstimateConfig {
            sample: 10,
            budget: None,
            seed: 1,
            task_bits: None,
            order: None,
        };
        let e = estimate(target, 5, &cfg, &stop);
        assert!(e.interrupted);
        assert_eq!(e.finished, 0);
    }
}
