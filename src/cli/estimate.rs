//! `magichunt bench --estimate`: project what `exhaust` would cost from a random sample of its
//! tasks (see [`crate::exhaust::campaign::projection`]); `--full` also searches the whole period
//! to check.

use std::time::Duration;

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::exhaust::campaign::estimate::EstimateConfig;
use crate::exhaust::campaign::projection::{project_question, render_line, to_json};
use crate::exhaust::Order;
use crate::interrupt::{install, Stop};
use crate::piece::Target;
use crate::question::{Formula, Question};

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
    /// low order, 2^24 in the top-down ones, whose subtrees are few and heavy-tailed at
    /// exhaust's: finer pieces of the same tree give a tighter interval in the same time].
    #[arg(long, value_name = "N", requires = "questions",
          value_parser = clap::value_parser!(u32).range(0..=63))]
    task_bits: Option<u32>,
    /// With --estimate: the order the search fixes the bits in: `low`, `high` (from the top of
    /// the period down), `trim` (from the top, windows trimmed) or `fold` (trim over half the
    /// period) [default: exhaust's, fold for the rooks of ranks 1 to 4, low otherwise].
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
        let (e, check) = project_question(q, &cfg, args.full, stop.flag());
        if json {
            super::out::json(&format!("{}\n", to_json(&e, check.as_ref())?))?;
        } else {
            super::out::text(&format!("{}\n", render_line(&e, check.as_ref())))?;
        }
        if stop.requested() {
            return Ok(Outcome::Interrupted);
        }
    }
    Ok(Outcome::Success)
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
