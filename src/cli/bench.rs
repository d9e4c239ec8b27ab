//! `magichunt bench`: the fixed, seeded speed workload; `bench --exhaust`: whole-period
//! enumerations with known counts.

use clap::Args;

use super::Outcome;
use crate::bench::{self, BenchConfig, Figures};
use crate::exhaust::bench::{self as exhaust_bench, Figure, CASES};

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
        println!(
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
        );
    }
    for threads in config.threads.clone() {
        let one = BenchConfig {
            threads: vec![threads],
            ..config.clone()
        };
        for f in bench::run(&one)? {
            if args.json {
                println!("{}", serde_json::to_string(&f)?);
            } else {
                print_row(&f);
            }
        }
    }
    Ok(Outcome::Success)
}

/// Runs `bench --exhaust`: one line per target as it finishes.
fn run_exhaust(args: &BenchArgs) -> anyhow::Result<Outcome> {
    let reps = args.reps.unwrap_or(1) as usize;
    if let Some(n) = args.threads {
        return run_exhaust_scaling(args, n as usize, reps);
    }
    if !args.json {
        println!(
            "{:<15} {:>6} {:>12} {:>8} {:>14} {:>9} {:>9} {:>12}",
            "target", "period", "magics", "tightest", "partial", "wall_s", "cpu_s", "partial/s"
        );
    }
    for case in CASES.iter().filter(|c| c.quick || !args.quick) {
        let f = exhaust_bench::run_case(case, reps)?;
        if args.json {
            println!("{}", serde_json::to_string(&f)?);
        } else {
            print_exhaust_row(&f);
        }
    }
    Ok(Outcome::Success)
}

/// Runs `bench --exhaust --threads N`: one thread against N on every target.
fn run_exhaust_scaling(args: &BenchArgs, threads: usize, reps: usize) -> anyhow::Result<Outcome> {
    if !args.json {
        println!(
            "{:<15} {:>7} {:>9} {:>9} {:>8}",
            "target", "threads", "one_s", "many_s", "speedup"
        );
    }
    for case in CASES.iter().filter(|c| c.quick || !args.quick) {
        let s = exhaust_bench::run_scaling(case, threads, reps)?;
        if args.json {
            println!("{}", serde_json::to_string(&s)?);
        } else {
            println!(
                "{:<15} {:>7} {:>9.2} {:>9.2} {:>7.2}x",
                s.target, s.threads, s.one_s, s.many_s, s.speedup
            );
        }
    }
    Ok(Outcome::Success)
}

fn print_exhaust_row(f: &Figure) {
    let tightest = f.tightest.map_or("-".to_string(), |t| t.to_string());
    let cpu = f.cpu_seconds.map_or("-".to_string(), |c| format!("{c:.2}"));
    println!(
        "{:<15} {:>6} {:>12} {:>8} {:>14} {:>9.2} {:>9} {:>12.3e}",
        f.target,
        format!("2^{}", f.period_bits),
        f.magics,
        tightest,
        f.nodes,
        f.seconds,
        cpu,
        f.nodes_per_s
    );
}

fn print_row(f: &Figures) {
    println!(
        "{:>7} {:>14.0} {:>14.0} {:>8.1} {:>14.0} {:>8.1} {:>14.0} {:>14.0} {:>8.1} {:>9.4} {:>9.3}",
        f.threads,
        f.rook_a1_11_per_s,
        f.rook_a1_11_tested_per_s,
        f.rook_a1_11_checks_per_tested,
        f.rook_a1_11_portfolio_per_s,
        f.rook_a1_11_portfolio_checks_per_tested,
        f.bishop_d4_8_per_s,
        f.bishop_d4_8_tested_per_s,
        f.bishop_d4_8_checks_per_tested,
        f.all128_s,
        f.bishop_reduced_s
    );
    println!(
        "{:>7} pool hunt, rook a1 at 12 bits under 2,400 slots: {:.0} candidates/s; packer, first-fit decreasing and 2,000 annealing steps of the built-in plain magics: {:.2} s",
        "",
        f.pool_rook_a1_12_per_s,
        f.pack_2000_steps_s
    );
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
