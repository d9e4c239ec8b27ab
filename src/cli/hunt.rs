//! `magichunt hunt`: the main job. Raw arguments, validated into a [`HuntConfig`] before
//! anything is touched.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::bail;
use clap::{Args, ValueEnum};

use super::progress::Display;
use super::Outcome;
use crate::hunt::plan::{Objective, Select};
use crate::hunt::{self, HuntConfig};
use crate::interrupt::{self, Stop};
use crate::piece::{Piece, Target};
use crate::pool::{self, hunt::PoolHuntConfig};
use crate::question::{Formula, Question};
use crate::square::Square;
use crate::timefmt::parse_duration;

/// How often a log hears of a pool hunt's progress (a terminal sees it redrawn).
const POOL_LOG_EVERY: Duration = Duration::from_secs(60);

/// Named selections of targets and bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preset {
    /// The open targets (no magic published, none proven impossible) at one bit below the
    /// popcount: rook a1 b1 c1 e1 f1 h1 a2 b2 f2 g2 h2, bishop c1 d1.
    Overnight,
    /// The targets where the store is behind the published records, at the record's bits
    /// (catching up: only the bit counts come from the published tables, never a magic).
    Records,
}

/// What a hunt improves (`--objective`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ObjectiveArg {
    /// Fewer index bits, ratcheting down.
    Bits,
    /// At the store's bits, a smaller tight table (fewer entries from the lowest index to
    /// the highest).
    Tight,
    /// Few-slot magics for a packed table, kept many per square in a pool (`--pool`): at
    /// `--bits` (default 12 for rooks, 9 for bishops), the smallest footprint (slots plus
    /// holes of at most `--gap` slots).
    Slots,
}

/// Arguments of `hunt`.
#[derive(Debug, Args)]
pub struct HuntArgs {
    /// rook, bishop or all.
    #[arg(long, default_value = "all")]
    piece: String,
    /// Squares: a1, a1,h8 or all.
    #[arg(long, default_value = "all")]
    square: String,
    /// Hunt exactly these index bits; without it each target ratchets down from one bit below
    /// its best stored magic.
    #[arg(long, conflicts_with = "preset")]
    bits: Option<u32>,
    /// Stop after this long (90s, 10m, 8h); without it, run until Ctrl-C.
    #[arg(long)]
    time: Option<String>,
    /// Candidates per target at most.
    #[arg(long)]
    tries: Option<u64>,
    /// Worker threads (default: available cores; at most 1024).
    #[arg(long, value_parser = super::threads_arg)]
    threads: Option<usize>,
    /// Seed of every candidate stream (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// The results store [default: results/mine.json in a checkout, else your own store in
    /// the data folder, started from the shipped store; MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// No progress bars: one line per new best.
    #[arg(long)]
    quiet: bool,
    /// A named selection: `overnight` hunts the open targets at one bit below the popcount;
    /// `records` hunts, at the published record's bits, the targets where the store is behind.
    #[arg(long, value_enum)]
    preset: Option<Preset>,
    /// Index formula: plain `(occ & mask) * magic` or black `(occ | !mask) * magic`; the store
    /// keeps the best magic of each formula per square.
    #[arg(long, default_value = "plain", value_parser = super::formula_arg)]
    formula: Formula,
    /// `bits`: fewer index bits; `tight`: at the store's bits, a magic whose table spans fewer
    /// entries than the stored one's; `slots`: few-slot magics into the pool file `--pool`.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Bits)]
    objective: ObjectiveArg,
    /// With `--objective slots`: the pool file the magics go to (created if missing; `.gz`:
    /// compressed).
    #[arg(long)]
    pool: Option<PathBuf>,
    /// With `--objective slots`: holes of at most this many slots count against a magic
    /// (0: rank by slots alone). A new pool takes it; an existing pool keeps its own.
    #[arg(long)]
    gap: Option<u32>,
    /// With `--objective slots`: magics kept per square and bits (default 64; an existing
    /// pool can only grow).
    #[arg(long)]
    capacity: Option<usize>,
    /// With `--objective slots`: a table whose magics (of the questions hunted) also start
    /// descents, such as a published one; magics with their slot patterns are never taken.
    #[arg(long)]
    starts: Option<PathBuf>,
}

/// What `hunt` runs: the store hunt or the pool hunt.
#[derive(Debug)]
pub enum HuntPlan {
    /// Fewer bits or a smaller tight table, into the store.
    Store(HuntConfig),
    /// Few-slot magics, into a pool.
    Pool(PoolHuntConfig),
}

impl TryFrom<&HuntArgs> for HuntPlan {
    type Error = anyhow::Error;

    fn try_from(a: &HuntArgs) -> anyhow::Result<HuntPlan> {
        let pool_flags =
            a.pool.is_some() || a.gap.is_some() || a.capacity.is_some() || a.starts.is_some();
        match a.objective {
            ObjectiveArg::Slots => {}
            _ if pool_flags => {
                bail!("--pool, --gap, --capacity and --starts go with --objective slots")
            }
            ObjectiveArg::Tight if a.bits.is_some() || a.preset.is_some() => {
                bail!("--objective tight hunts at the store's bits: leave out --bits and --preset")
            }
            _ => return Ok(HuntPlan::Store(HuntConfig::try_from(a)?)),
        }
        if a.preset.is_some() {
            bail!("--objective slots takes no --preset (give --piece, --square and --bits)");
        }
        let Some(pool) = a.pool.clone() else {
            bail!("--objective slots needs --pool FILE (where the magics go)");
        };
        if a.capacity == Some(0) {
            bail!("invalid capacity 0 (expected 1 or more)");
        }
        if a.gap.is_some_and(|g| g > 4096) {
            bail!(
                "invalid gap {} (expected 0 to 4096)",
                a.gap.unwrap_or_default()
            );
        }
        let base = HuntConfig::try_from(a)?;
        let questions = base
            .targets
            .iter()
            .map(|&target| {
                let bits = match base.select {
                    Select::Fixed(b) => b,
                    _ => target.piece.max_bits(),
                };
                Question {
                    target,
                    bits,
                    formula: base.formula,
                }
            })
            .collect();
        Ok(HuntPlan::Pool(PoolHuntConfig {
            questions,
            time: base.time,
            tries: base.tries,
            threads: base.threads,
            seed: base.seed,
            pool,
            gap: a.gap,
            capacity: a.capacity,
            starts: a.starts.clone(),
        }))
    }
}

impl TryFrom<&HuntArgs> for HuntConfig {
    type Error = anyhow::Error;

    fn try_from(a: &HuntArgs) -> anyhow::Result<HuntConfig> {
        let pieces: Vec<Piece> = match a.piece.trim().to_ascii_lowercase().as_str() {
            "all" => Piece::ALL.to_vec(),
            p => vec![p.parse::<Piece>()?],
        };
        let squares: Vec<Square> = if a.square.trim().eq_ignore_ascii_case("all") {
            Square::all().collect()
        } else {
            let mut v = Vec::new();
            for s in a.square.split(',') {
                let sq: Square = s.parse()?;
                if !v.contains(&sq) {
                    v.push(sq);
                }
            }
            v
        };
        let targets: Vec<Target> = pieces
            .iter()
            .flat_map(|&p| squares.iter().map(move |&s| Target::new(p, s)))
            .collect();
        let select = match (a.preset, a.bits) {
            (Some(Preset::Overnight), _) => Select::Open,
            (Some(Preset::Records), _) => Select::Records,
            (None, Some(bits)) => {
                for &p in &pieces {
                    Target::new(p, squares[0]).check_bits(bits)?;
                }
                Select::Fixed(bits)
            }
            (None, None) => Select::Ratchet,
        };
        let time = a.time.as_deref().map(parse_duration).transpose()?;
        if time == Some(Duration::ZERO) {
            bail!("invalid duration '0s' (expected more than zero)");
        }
        let threads = match a.threads {
            Some(0) => bail!("invalid threads 0 (expected 1 or more)"),
            n => super::threads_or_all(n),
        };
        let seed = a.seed.unwrap_or_else(clock_seed);
        Ok(HuntConfig {
            targets,
            select,
            time,
            tries: a.tries,
            threads,
            seed,
            store: crate::locate::writing(a.store.as_deref())?,
            formula: a.formula,
            objective: match a.objective {
                ObjectiveArg::Tight => Objective::Tight,
                _ => Objective::Bits,
            },
        })
    }
}

/// A seed from the clock and the pid, small enough to type back in.
fn clock_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = (nanos ^ u64::from(std::process::id()) << 40).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^= z >> 31;
    z % 1_000_000_000
}

/// Runs `hunt`: exit 0 when done (every target finished, or `--time` or `--tries` ran out),
/// 130 after Ctrl-C (saved either way).
pub(super) fn run(args: &HuntArgs) -> anyhow::Result<Outcome> {
    let stop = Stop::new();
    let (text, interrupted) = match HuntPlan::try_from(args)? {
        HuntPlan::Store(cfg) => {
            interrupt::install(&stop)?;
            let summary = hunt::run(&cfg, &stop, &mut Display::new(args.quiet, None))?;
            (hunt::summary_text(&summary), summary.interrupted)
        }
        HuntPlan::Pool(cfg) => {
            interrupt::install(&stop)?;
            let mut display = Display::new(args.quiet, Some(POOL_LOG_EVERY));
            let summary = pool::hunt::run(&cfg, &stop, &mut display)?;
            (pool::hunt::summary_text(&summary), summary.interrupted)
        }
    };
    super::out::text(&text)?;
    Ok(if interrupted {
        Outcome::Interrupted
    } else {
        Outcome::Success
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Command, Opts};
    use super::*;
    use clap::Parser;

    fn cfg(args: &[&str]) -> anyhow::Result<HuntConfig> {
        let mut v = vec!["mh", "hunt"];
        v.extend_from_slice(args);
        match Opts::try_parse_from(v)?.command {
            Command::Hunt(a) => match HuntPlan::try_from(&a)? {
                HuntPlan::Store(c) => Ok(c),
                HuntPlan::Pool(_) => anyhow::bail!("a pool hunt"),
            },
            _ => unreachable!(),
        }
    }

    #[test]
    fn flags_validate() {
        let c = cfg(&[
            "--square", "a1", "--piece", "rook", "--bits", "11", "--seed", "5",
        ])
        .unwrap();
        assert_eq!(c.targets.len(), 1);
        assert_eq!((c.select, c.seed), (Select::Fixed(11), 5));
        assert_eq!(cfg(&[]).unwrap().targets.len(), 128);
        assert_eq!(cfg(&["--square", "a1,h8"]).unwrap().targets.len(), 4);
        for bad in [
            &["--square", "i9"][..],
            &["--bits", "13"],
            &["--piece", "bishop", "--bits", "10"],
            &["--bits", "0"],
            &["--time", "10x"],
            &["--threads", "0"],
            &["--piece", "queen"],
            &["--preset", "overnight", "--bits", "10"],
            &["--formula", "white"],
            &["--objective", "tight", "--bits", "10"],
            &["--objective", "tight", "--preset", "records"],
            &["--objective", "size"],
        ] {
            assert!(cfg(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            cfg(&["--preset", "overnight"]).unwrap().select,
            Select::Open
        );
        let c = cfg(&["--formula", "black", "--objective", "tight"]).unwrap();
        assert_eq!((c.formula, c.objective), (Formula::Black, Objective::Tight));
    }
}
