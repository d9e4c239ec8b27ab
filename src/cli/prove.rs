//! `magichunt prove`: settle whether a magic exists, by SAT with a checked certificate or by
//! exhaustive search, into the store ([`crate::settle::run`]); list the campaign's open
//! questions; write a CNF; check certificates again.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;

use super::exhaust::{duration_arg, part_outcome, shard_arg};
use super::progress::Display;
use super::{piece_arg, square_arg, threads_or_all, Outcome};
use crate::exhaust::campaign::shard::Shard;
use crate::interrupt::{install, Stop};
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};
use crate::settle::sat::{self, SatOutcome};
use crate::settle::{self, Method, SettleConfig, SettleOutcome};
use crate::square::Square;

/// How often a log hears of the solver's progress (a terminal sees it redrawn).
const LOG_EVERY: Duration = Duration::from_secs(60);

/// Arguments of `prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// rook or bishop.
    #[arg(long, value_parser = piece_arg, required_unless_present = "campaign")]
    piece: Option<Piece>,
    /// a1..h8 or 0..63.
    #[arg(long, value_parser = square_arg, required_unless_present = "campaign")]
    square: Option<Square>,
    /// Index bits to settle.
    #[arg(long, required_unless_present = "campaign")]
    bits: Option<u32>,
    /// Index formula: plain `(occ & mask) * magic` or black `(occ | !mask) * magic`.
    #[arg(long, default_value = "plain", value_parser = super::formula_arg)]
    formula: Formula,
    /// Settle part K of M (1-based; for SAT, M a power of two: the low log2(M) bits of the
    /// magic are K - 1).
    #[arg(long, default_value = "1/1", value_parser = shard_arg)]
    shard: Shard,
    /// auto (SAT for bishops and black magics, exhaustive search for plain rooks), sat (the
    /// SAT solver, with an LRAT certificate checked before it is recorded) or exhaust (the
    /// exhaustive search of `magichunt exhaust`, plain magics only).
    #[arg(long, default_value = "auto", value_parser = |s: &str| s.parse::<Method>())]
    method: Method,
    /// The results store; certificates go to `proofs/` beside it [default: results/mine.json
    /// in a checkout, else your own store in the data folder, started from the shipped store;
    /// MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Give up after this long (e.g. 10m): exit 1 with nothing recorded for the part.
    #[arg(long, value_parser = duration_arg)]
    time: Option<Duration>,
    /// Worker threads of the exhaustive search (0: all cores; at most 1024); the SAT solver
    /// uses one.
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
    threads: usize,
    /// Settle again even if the store already settles the question.
    #[arg(long)]
    recheck: bool,
    /// Write the part's CNF in DIMACS to FILE (`-`: stdout) and exit, for another solver.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["check_certificates", "recheck"])]
    emit_cnf: Option<PathBuf>,
    /// Check the store's certificates for this question again (rebuild the CNF, compare its
    /// SHA-256, run the checker); exit 1 if one fails.
    #[arg(long)]
    check_certificates: bool,
    /// List the campaign's questions the store leaves open (one bit below the best bits known
    /// on every square not proven optimal, easiest first), one a line: piece, square, bits,
    /// method, stage. `scripts/campaign.sh` settles them in turn.
    #[arg(long, conflicts_with_all = ["piece", "square", "bits", "emit_cnf", "check_certificates"])]
    campaign: bool,
}

/// Runs `prove`.
pub(super) fn run(args: ProveArgs) -> anyhow::Result<Outcome> {
    let mut display = Display::new(false, Some(LOG_EVERY));
    if args.campaign {
        let list = settle::open_questions(args.store.as_deref(), &mut display)?;
        super::out::text(&settle::render_open_questions(&list))?;
        return Ok(Outcome::Success);
    }
    let (Some(piece), Some(square), Some(bits)) = (args.piece, args.square, args.bits) else {
        bail!("--piece, --square and --bits are required");
    };
    let q = Question::new(Target::new(piece, square), bits, args.formula)?;
    // The part must fit the question whatever is done with it.
    crate::prove::cube(q, args.shard)?;
    if let Some(path) = &args.emit_cnf {
        let out = Some(path.as_path()).filter(|p| p.as_os_str() != "-");
        let text = sat::emit_cnf(q, args.shard, out, args.store.as_deref(), &mut display)?;
        if let Some(text) = text {
            super::out::document(&text)?;
        }
        return Ok(Outcome::Success);
    }
    if args.check_certificates {
        let checks = sat::check_certificates(q, args.store.as_deref(), &mut display)?;
        super::out::text(&checks.render_text())?;
        return Ok(if checks.failed == 0 {
            Outcome::Success
        } else {
            Outcome::Failure
        });
    }
    let cfg = SettleConfig {
        method: args.method,
        threads: threads_or_all(Some(args.threads)),
        time: args.time,
        recheck: args.recheck,
        ..SettleConfig::new(
            q,
            args.shard,
            crate::locate::writing(args.store.as_deref())?,
        )
    };
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    let outcome = settle::run(&cfg, &stop, &mut display)?;
    super::out::text(&outcome.render_text())?;
    Ok(match &outcome {
        SettleOutcome::Exhaustive(o) => part_outcome(o),
        SettleOutcome::Sat(SatOutcome::Interrupted { .. }) => Outcome::Interrupted,
        SettleOutcome::Sat(SatOutcome::Unknown(_)) => Outcome::Failure,
        SettleOutcome::Sat(_) => Outcome::Success,
    })
}
