//! `magichunt bench`: the fixed, seeded speed workload; `bench --exhaust`: whole-period
//! enumerations with known counts.

use clap::Args;

use super::Outcome;
use crate::bench::{self, BenchConfig};
use crate::exhaust::campaign::bench::{self as exhaust_bench, CASES};

/// Arguments of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print one JSON object per thread count (one per line) instead of a table.
    #[arg(long)]
    json: bool,
    /// Measure with N threads only (default: 1 and all cores). With --exhaust: compare one
    /// thread with N on every target (the speedup, median of back-to-back pairs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Repetitions of every figure; the median is reported [default: 5, 1 with --exhaust].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100))]
    reps: Option<u64>,
    /// Repetitions of the reduced-bishop workload (tens of seconds each); 0 skips it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(0..=100))]
    reps_reduced: u64,
    /// Time whole-period exhaustive enumerations on one thread instead: a fixed set of targets,
    /// each count of magics checked against the known one (a mismatch is an error).
    #[arg(long, conflicts_with = "reps_reduced")]
    exhaust: bool,
    /// With --exhaust, only the targets that take seconds (skips bishop h2 and rook h7 at 10).
    #[arg(long, requires = "exhaust")]
    quick: bool,
    #[command(flatten)]
    estimate: super::estimate::EstimateArgs,
}

/// Runs `bench`.
pub(super) fn run(args: &BenchArgs) -> anyhow::Result<Outcome> {
    if args.exhaust {
        return run_exhaust(args);
    }
    if !args.estimate.questions.is_empty() {
        return super::estimate::run(&args.estimate, args.json);
    }
    let mut config = BenchConfig {
        reps: args.reps.unwrap_or(5) as usize,
        reduced_reps: args.reps_reduced as usize,
        ..BenchConfig::default()
    };
    if let Some(n) = args.threads {
        config.threads = vec![n as usize];
    }
    if !args.json {
        super::out::text(&format!("{}\n", bench::header()))?;
    }
    for threads in config.threads.clone() {
        let one = BenchConfig {
            threads: vec![threads],
            ..config.clone()
        };
        for f in bench::run(&one)? {
            if args.json {
                super::out::json(&format!("{}\n", serde_json::to_string(&f)?))?;
            } else {
                super::out::text(&f.render_rows())?;
            }
        }
    }
    Ok(Outcome::Success)
}

/// Runs `bench --exhaust` (with `--threads N`: one thread against N): one line per target as
/// it finishes.
fn run_exhaust(args: &BenchArgs) -> anyhow::Result<Outcome> {
    let reps = args.reps.unwrap_or(1) as usize;
    if !args.json {
        let header = match args.threads {
            Some(_) => exhaust_bench::scaling_header(),
            None => exhaust_bench::header(),
        };
        super::out::text(&format!("{header}\n"))?;
    }
    for case in CASES.iter().filter(|c| c.quick || !args.quick) {
        let (json, row) = match args.threads {
            Some(n) => {
                let s = exhaust_bench::run_scaling(case, n as usize, reps)?;
                (serde_json::to_string(&s)?, s.render_row())
            }
            None => {
                let f = exhaust_bench::run_case(case, reps)?;
                (serde_json::to_string(&f)?, f.render_row())
            }
        };
        if args.json {
            super::out::json(&format!("{json}\n"))?;
        } else {
            super::out::text(&format!("{row}\n"))?;
        }
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use crate::cli::Opts;
    use clap::Parser;

    #[test]
    fn bench_flags() {
        assert!(Opts::try_parse_from(["mh", "bench"]).is_ok());
        assert!(Opts::try_parse_from(["mh", "bench", "--json", "--threads", "2"]).is_ok());
        assert!(Opts::try_parse_from(["mh", "bench", "--reps-reduced", "0"]).is_ok());
        assert!(Opts::try_parse_from(["mh", "bench", "--threads", "0"]).is_err());
        assert!(Opts::try_parse_from(["mh", "bench", "--reps", "0"]).is_err());
        assert!(
            Opts::try_parse_from(["mh", "bench", "--exhaust", "--quick", "--reps", "3"]).is_ok()
        );
        assert!(Opts::try_parse_from(["mh", "bench", "--quick"]).is_err());
        assert!(Opts::try_parse_from(["mh", "bench", "--exhaust", "--threads", "2"]).is_ok());
        assert!(Opts::try_parse_from(["mh", "bench", "--exhaust", "--reps-reduced", "1"]).is_err());
    }
}
