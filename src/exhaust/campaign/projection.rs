//! What `bench --estimate` reports of a question, in one call ([`project_question`]): the
//! estimate of [`super::estimate`], with `--full` the whole period searched to check it
//! ([`FullCheck`]), as a line of text ([`render_line`]) or a JSON object ([`to_json`]).

use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::estimate::{self, Estimate, EstimateConfig, Projection};
use crate::question::Question;

/// Samples behind each coverage figure of the full check.
pub const COVERAGE_RUNS: u64 = 200;

/// What the full search of a period measured against its estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FullCheck {
    /// CPU seconds of the whole period on one thread.
    pub cpu_s: f64,
    /// Nodes of the whole period.
    pub nodes: u64,
    /// Whether the CPU interval holds the measured CPU seconds.
    pub cpu_in_interval: bool,
    /// Whether the node interval holds the exact node count.
    pub nodes_in_interval: bool,
    /// How often the node interval held the exact count over [`COVERAGE_RUNS`] samples of
    /// the same size drawn from the exact per-task costs.
    pub coverage_nodes: f64,
    /// Samples behind `coverage_nodes`.
    pub coverage_runs: u64,
}

/// Estimates `q` as `cfg` says; with `full` (and unless `interrupt` stopped the sampling) also
/// searches the whole period to check the estimate (`None` when interrupted).
#[must_use]
pub fn project_question(
    q: &Question,
    cfg: &EstimateConfig,
    full: bool,
    interrupt: &AtomicBool,
) -> (Estimate, Option<FullCheck>) {
    let e = estimate::estimate(q.target, q.bits, cfg, interrupt);
    let check = if full && !e.interrupted {
        full_check(q, &e, cfg, interrupt)
    } else {
        None
    };
    (e, check)
}

/// The whole period searched, its totals against the estimate `e`.
fn full_check(
    q: &Question,
    e: &Estimate,
    cfg: &EstimateConfig,
    interrupt: &AtomicBool,
) -> Option<FullCheck> {
    let plan = estimate::sampled_plan(q.target, q.bits, cfg.order, cfg.task_bits);
    let all = estimate::full(&plan, interrupt)?;
    let cpu_s: f64 = all.iter().map(|c| c.cpu_s).sum();
    let nodes: u64 = all.iter().map(|c| c.nodes).sum();
    let coverage_nodes =
        estimate::coverage(&all, e.finished, COVERAGE_RUNS, cfg.seed, q.target, q.bits);
    Some(FullCheck {
        cpu_s,
        nodes,
        cpu_in_interval: e.cpu_s.contains(cpu_s),
        nodes_in_interval: e.nodes.contains(nodes as f64),
        coverage_nodes,
        coverage_runs: COVERAGE_RUNS,
    })
}

/// The estimate (and its check) as one JSON object on one line.
///
/// # Errors
/// When serde cannot write it (a non-finite figure).
pub fn to_json(e: &Estimate, check: Option<&FullCheck>) -> serde_json::Result<String> {
    let mut v = serde_json::to_value(e)?;
    if let Some(c) = check {
        v["full"] = serde_json::to_value(c)?;
    }
    Ok(v.to_string())
}

/// Seconds as `0.123 s`, `12.3 s`, `4.56 h` or `7.8e3 y` (CPU time of one thread).
#[must_use]
pub fn human(s: f64) -> String {
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

/// The estimate (and its check) as the line `bench --estimate` prints.
#[must_use]
pub fn render_line(e: &Estimate, check: Option<&FullCheck>) -> String {
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
    line
}
