//! Settling a question into a store: one part of it, by exhaustive search ([`exhaustive`]) or
//! by SAT ([`sat`]), resumed where the store left it, skipped when the store already settles
//! it, and recorded (a proof of none once every part is settled). What `magichunt exhaust`
//! and `magichunt prove` run, each as one call: [`exhaustive::run_part`] and [`run`], which
//! picks the method ([`Method::Auto`]).
//!
//! These jobs sit above the engines ([`crate::exhaust`], [`crate::prove`]), the store and the
//! trust checks they use: the store's records name the engines' orders, parts and residues,
//! and the trust checks re-run the engines, so a job that reads and writes a store cannot live
//! below them.
//!
//! ```
//! use magichunt::exhaust::campaign::shard::Shard;
//! use magichunt::interrupt::Stop;
//! use magichunt::progress::Quiet;
//! use magichunt::settle::{run, Method, SettleConfig, SettleOutcome};
//! use magichunt::settle::sat::SatOutcome;
//! use magichunt::{Formula, Piece, Question, Target};
//!
//! // Is there a 3-bit magic for bishop b8? Auto picks SAT for a bishop: none exists, and the
//! // store records the proof with its checked certificate.
//! let dir = tempfile::tempdir()?;
//! let b8 = Target::new(Piece::Bishop, "b8".parse()?);
//! let q = Question::new(b8, 3, Formula::Plain)?;
//! let cfg = SettleConfig::new(q, Shard::WHOLE, dir.path().join("store.json"));
//! assert_eq!(cfg.method, Method::Auto);
//! let SettleOutcome::Sat(SatOutcome::None { proof, .. }) = run(&cfg, &Stop::new(), &mut Quiet)?
//! else {
//!     panic!("settled otherwise")
//! };
//! assert!(proof);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod exhaustive;
pub mod sat;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use crate::error::ParseError;
use crate::exhaust::campaign::shard::Shard;
use crate::interrupt::Stop;
use crate::locate::LocateError;
use crate::piece::Piece;
use crate::progress::Progress;
use crate::prove::campaign::{self, Stage};
use crate::prove::{cube, ProveError};
use crate::question::{Formula, Question};
use exhaustive::{PartConfig, PartError, PartOutcome};
use sat::{SatConfig, SatError, SatOutcome};

/// How to settle a question.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// SAT for bishops and black magics, exhaustive search for plain rooks
    /// ([`Method::auto`]).
    #[default]
    Auto,
    /// The SAT solver, with an LRAT certificate checked before it is recorded.
    Sat,
    /// The exhaustive search (plain magics only).
    Exhaust,
}

impl Method {
    /// The method `auto` picks: SAT where it measured seconds (bishops, whose CNFs are small,
    /// and black magics, which have no period to enumerate), the exhaustive search for plain
    /// rooks (whose CNFs reach millions of clauses while their periods are small enough to
    /// enumerate on ranks 7 and 8).
    #[must_use]
    pub fn auto(question: Question) -> Method {
        match (question.target.piece, question.formula) {
            (_, Formula::Black) | (Piece::Bishop, _) => Method::Sat,
            (Piece::Rook, Formula::Plain) => Method::Exhaust,
        }
    }

    /// The spelling on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Sat => "sat",
            Method::Exhaust => "exhaust",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Method, ParseError> {
        match s {
            "auto" => Ok(Method::Auto),
            "sat" => Ok(Method::Sat),
            "exhaust" => Ok(Method::Exhaust),
            _ => Err(ParseError::Other(format!(
                "invalid method '{s}' (expected auto, sat or exhaust)"
            ))),
        }
    }
}

/// One part of a question to settle into a store.
#[derive(Clone, Debug)]
pub struct SettleConfig {
    /// The question.
    pub question: Question,
    /// The part (for SAT, `M` a power of two).
    pub shard: Shard,
    /// How.
    pub method: Method,
    /// The store (the default store is started from the shipped one when it does not exist).
    pub store: PathBuf,
    /// Worker threads of the exhaustive search (at least 1); the SAT solver uses one.
    pub threads: usize,
    /// Give up after this long.
    pub time: Option<Duration>,
    /// Settle again even if the store already settles the part.
    pub recheck: bool,
}

impl SettleConfig {
    /// Part `shard` of `question` into `store`, method [`Method::Auto`], every core, no time
    /// limit.
    #[must_use]
    pub fn new(question: Question, shard: Shard, store: PathBuf) -> SettleConfig {
        SettleConfig {
            question,
            shard,
            method: Method::Auto,
            store,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            time: None,
            recheck: false,
        }
    }
}

/// Why a part could not be settled.
#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    /// The split does not fit the question.
    #[error(transparent)]
    Shard(#[from] ProveError),
    /// A black question asked of the exhaustive search.
    #[error("the exhaustive search settles plain magics only (a black magic has no period to enumerate): use --method sat")]
    BlackExhaustive,
    /// The exhaustive search.
    #[error(transparent)]
    Exhaustive(Box<PartError>),
    /// The SAT solver.
    #[error(transparent)]
    Sat(Box<SatError>),
    /// The store to list the campaign of cannot be read.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// There is no store to list the campaign of.
    #[error("no such store: {0}")]
    NoStore(String),
}

impl From<PartError> for SettleError {
    fn from(e: PartError) -> SettleError {
        SettleError::Exhaustive(Box::new(e))
    }
}

impl From<SatError> for SettleError {
    fn from(e: SatError) -> SettleError {
        SettleError::Sat(Box::new(e))
    }
}

/// How [`run`] ended: as the exhaustive search or the SAT solver says.
#[derive(Clone, Debug)]
pub enum SettleOutcome {
    /// Settled (or not) by the exhaustive search.
    Exhaustive(PartOutcome),
    /// Settled (or not) by SAT.
    Sat(SatOutcome),
}

impl SettleOutcome {
    /// What `magichunt prove` prints on stdout.
    #[must_use]
    pub fn render_text(&self) -> String {
        match self {
            SettleOutcome::Exhaustive(o) => o.render_text(),
            SettleOutcome::Sat(o) => o.render_text(),
        }
    }
}

/// Settles part `cfg.shard` of `cfg.question` into `cfg.store` by `cfg.method`
/// ([`Method::auto`] picks one): [`exhaustive::run_part`] or [`sat::settle_part`].
///
/// # Errors
/// [`SettleError`]: a split that does not fit the question (checked whatever the method), a
/// black question for the exhaustive search, or what the method's job refuses.
pub fn run(
    cfg: &SettleConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<SettleOutcome, SettleError> {
    let q = cfg.question;
    cube(q, cfg.shard)?;
    let method = match cfg.method {
        Method::Auto => Method::auto(q),
        m => m,
    };
    if method == Method::Exhaust {
        if q.formula != Formula::Plain {
            return Err(SettleError::BlackExhaustive);
        }
        progress.note(&format!(
            "prove {q}: by exhaustive search (magichunt exhaust)"
        ));
        let part = PartConfig {
            threads: cfg.threads,
            time: cfg.time,
            recheck: cfg.recheck,
            ..PartConfig::new(q, cfg.shard, cfg.store.clone())
        };
        return Ok(SettleOutcome::Exhaustive(exhaustive::run_part(
            &part, stop, progress,
        )?));
    }
    let sat = SatConfig {
        question: q,
        shard: cfg.shard,
        store: cfg.store.clone(),
        time: cfg.time,
        recheck: cfg.recheck,
    };
    Ok(SettleOutcome::Sat(sat::settle_part(&sat, stop, progress)?))
}

/// The campaign's questions the store `given` reads leaves open (see
/// [`crate::locate::for_reading`] and [`campaign::questions`]), easiest first, each with its
/// stage and the method `auto` would take. Only proofs this build checked (or ships) close a
/// question: one listed though the store records a proof of it is noted to `progress`.
///
/// # Errors
/// A store that does not exist or does not load.
pub fn open_questions(
    given: Option<&Path>,
    progress: &mut dyn Progress,
) -> Result<Vec<(Stage, Question, Method)>, SettleError> {
    let from = crate::locate::for_reading(given, progress);
    if from.missing() {
        return Err(SettleError::NoStore(from.name()));
    }
    let mut store = from.load()?;
    if let crate::locate::Reading::File(path) = &from {
        // Only proofs checked here (or shipped with this build) settle a question.
        crate::trust::vet_file(store.to_mut(), path, &mut crate::trust::Cache::open());
    }
    let list = campaign::questions(&store);
    for &(_, q) in &list {
        if let Some(why) = store.claimed_only(q) {
            progress.note(&format!(
                "note: {} {} {} is listed though {} records a proof of none: it is {why} (`magichunt audit --store {}` checks it)",
                q.target.piece,
                q.target.square,
                q.bits,
                from.name(),
                from.name()
            ));
        }
    }
    Ok(list
        .into_iter()
        .map(|(stage, q)| (stage, q, Method::auto(q)))
        .collect())
}

/// The lines of `magichunt prove --campaign`: piece, square, bits, method, stage, and the
/// projected cost where it was measured ([`crate::prove::campaign::fold_hours`]).
#[must_use]
pub fn render_open_questions(list: &[(Stage, Question, Method)]) -> String {
    list.iter()
        .map(|(stage, q, method)| {
            let cost = crate::prove::campaign::fold_hours(*q)
                .map_or_else(String::new, |h| format!("; projected: {h} CPU-hours"));
            format!(
                "{} {} {} {method} # {}{cost}\n",
                q.target.piece,
                q.target.square,
                q.bits,
                stage.describe()
            )
        })
        .collect()
}
