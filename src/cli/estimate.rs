//! `magichunt bench --estimate`: project what `exhaust` would cost from a random sample of its
//! tasks (see [`crate::exhaust::estimate`]); `--full` also searches the whole period to check.

use std::time::Duration;

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::exhaust::estimate::{self, Estimate, EstimateConfig, Projection};
use crate::exhaust::Order;
use crate::interrupt::{install, Stop};
use crate::piece::Target;
use crate::question::{Formula, Question};

/// Samples behind each coverage figure of `--full`.
const COVERAGE_RUNS: u64 = 200;

/// The arguments of the estimate mode of `bench`.
#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// Project the one-thread CPU time of `exhaust` on each question (piece:square:bits, e.g.
    /// rook:a2:10) from a seeded random sample of its tasks, with a 95% interval.
    #[arg(long = "estimate", value_name = "QUESTION", num_args = 1.., value_parser = question_arg,
          conflicts_with_all = ["exhaust", "threads", "reps"])]
    pub questions: Vec<Question>,
    /// With --estimate: tasks to sample per question [default: as many as the budget allows, at
    /// most 4,194,304].
    #[arg(long, requires = "questions", value_parser = clap::value_parser!(u64).range(1..))]
    sample: Option<u64>,
    /// With --estimate: stop sampling a question after this long (a task still running is cut
    /// off and the projection becomes a lower bound).
    #[arg(long, default_value = "1m", requires = "questions", value_parser = super::exhaust::duration_arg)]
    budget: Duration,
    /// With --estimate: the seed of the sample (the same seed draws the same tasks).
    #[arg(long, default_value_t = 1, requires = "questions")]
    seed: u64,
    /// With --estimate: split the period into 2^N tasks (smaller tasks finish where exhaust's
    /// take hours; the projection is then that of this split) [default: exhaust's split in the
    /// low order, 2^24 in the high and trim ones, whose subtrees are few and heavy-tailed at
    /// exhaust's: finer pieces of the same tree give a tighter interval in the same time].
    #[arg(long, value_name = "N", requires = "questions",
          value_parser = clap::value_parser!(u32).range(0..=63))]
    task_bits: Option<u32>,
    /// With --estimate: the order the search fixes the bits in: `low`, `high` (from the top of
    /// the period down) or `trim` (from the top, windows trimmed) [default: exhaust's, trim for
    /// the rooks of ranks 1 to 4, low otherwise].
    #[arg(long, requires = "questions")]
    order: Option<Order>,
    /// With --estimate: also search the whole period, print the measured totals and how often
    /// the interval holds them (200 samples drawn from the exact per-task costs).
    #[arg(long, requires = "questions")]
    full: bool,
}

/// Parses `rook:a2:10`: a plain question.
fn question_arg(s: &str) -> Result<Question, crate::error::ParseError> {
    let bad = || {
        crate::error::ParseError::Other(format!(
            "invalid question '{s}' (expected piece:square:bits, e.g. rook:a2:10)"
        ))
    };
    let mut parts = s.split(':');
    let (Some(p), Some(q), Some(b), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let target = Target::new(p.parse()?, q.parse()?);
    let bits = b.trim().parse().map_err(|_| bad())?;
    Question::new(target, bits, Formula::Plain)
}

/// Runs `bench --estimate`: one line (or JSON object) per question as it finishes.
pub(super) fn run(args: &EstimateArgs, json: bool) -> anyhow::Result<Outcome> {
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    let cfg = EstimateConfig {
        sample: args.sample.unwrap_or(u64::MAX),
        budget: Some(args.budget),
        seed: args.seed,
        task_bits: args.task_bits,
        order: args.order,
    };
    for q in &args.questions {
        let e = estimate::estimate(q.target, q.bits, &cfg, stop.flag());
        let check = if args.full && !e.interrupted {
            full_check(q, &e, args, stop.flag())
        } else {
            None
        };
        if json {
            let mut v = serde_json::to_value(&e)?;
            if let Some(c) = &check {
                v["full"] = serde_json::to_value(c)?;
            }
            println!("{v}");
        } else {
            print_line(&e, check.as_ref());
        }
        if stop.requested() {
            return Ok(Outcome::Interrupted);
        }
    }
    Ok(Outcome::Success)
}

/// What `--full` measured.
#[derive(serde::Serialize)]
struct FullCheck {
    cpu_s: f64,
    nodes: u64,
    cpu_in_interval: bool,
    nodes_in_interval: bool,
    coverage_nodes: f64,
    coverage_runs: u64,
}

fn full_check(
    q: &Question,
    e: &Estimate,
    args: &EstimateArgs,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<FullCheck> {
    let plan = estimate::sampled_plan(q.target, q.bits, args.order, args.task_bits);
    let all = estimate::full(&plan, stop)?;
    let cpu_s: f64 = all.iter().map(|c| c.cpu_s).sum();
    let nodes: u64 = all.iter().map(|c| c.nodes).sum();
    let coverage_nodes =
        estimate::coverage(&all, e.finished, COVERAGE_RUNS, args.seed, q.target, q.bits);
    Some(FullCheck {
        cpu_s,
        nodes,
        cpu_in_interval: e.cpu_s.contains(cpu_s),
        nodes_in_interval: e.nodes.contains(nodes as f64),
        coverage_nodes,
        coverage_runs: COVERAGE_RUNS,
    })
}

/// Seconds as `0.123 s`, `12.3 s`, `4.56 h` or `7.8e3 y` (CPU time of one thread).
fn human(s: f64) -> String {
    const HOUR: f64 = 3600.0;
    const YEAR: f64 = 365.25 * 24.0 * HOUR;
    if s < 10.0 {
        format!("{s:.3} s")
    } else if s < 1000.0 {
        format!("{s:.1} s")
    } else if s < 1e4 * HOUR {
        format!("{:.3} h", s / HOUR)
    } else {
        format!("{:.3} y", s / YEAR)
    }
}

fn interval(p: &Projection, f: &dyn Fn(f64) -> String) -> String {
    match (p.lo, p.hi) {
        (Some(lo), Some(hi)) => format!("{} [{}, {}]", f(p.total), f(lo), f(hi)),
        _ => format!("{} [no interval]", f(p.total)),
    }
}

fn print_line(e: &Estimate, check: Option<&FullCheck>) {
    let sci = |x: f64| format!("{x:.4e}");
    let mut line = format!(
        "{}: period 2^{}, 2^{} tasks, {} order, {} of {} sampled tasks done ({:.3}% of the period), {:.1} CPU-s ({:.3e} s a task), {:.3e} nodes/s; projected CPU {}, nodes {}",
        e.question,
        e.period_bits,
        e.task_bits,
        e.order,
        e.finished,
        e.planned,
        e.fraction * 100.0,
        e.sample_cpu_s,
        e.sample_cpu_s / e.finished.max(1) as f64,
        e.nodes_per_s,
        interval(&e.cpu_s, &human),
        interval(&e.nodes, &sci),
    );
    if let Some(c) = e.cut.filter(|_| e.lower_bound) {
        line += &format!(
            "; LOWER BOUND: task {} cut off after {} and {:.3e} nodes, total CPU >= {} (95%)",
            c.task,
            human(c.cpu_s),
            c.nodes as f64,
            human(e.floor_cpu_s.unwrap_or(0.0))
        );
    }
    if e.magics > 0 {
        line += &format!("; {} magics met in the sample", e.magics);
    }
    if let Some(f) = check {
        line += &format!(
            "; measured CPU {} ({}), nodes {:.4e} ({}); node-interval coverage over {} samples {:.2}",
            human(f.cpu_s),
            if f.cpu_in_interval { "inside" } else { "OUTSIDE" },
            f.nodes as f64,
            if f.nodes_in_interval { "inside" } else { "OUTSIDE" },
            f.coverage_runs,
            f.coverage_nodes
        );
    }
    println!("{line}");
}

#[cfg(test)]
mod tests {
    use super::question_arg;

    #[test]
    fn questions_parse() {
        let q = question_arg("rook:a2:10").unwrap();
        assert_eq!(q.to_string(), "rook a2 at 10 bits");
        for bad in [
            "rook:a2",
            "rook:a2:10:1",
            "rook:i9:10",
            "rook:a2:x",
            "rook:a2:13",
            "queen:a2:5",
        ] {
            assert!(question_arg(bad).is_err(), "{bad}");
        }
    }
}
