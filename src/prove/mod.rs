//! Settling a question with a SAT solver: the CNF of [`cnf`], solved by [`solver`], whose
//! LRAT proof of unsatisfiability [`lrat`] checks before it becomes a certificate.
//!
//! A "yes" is a model whose magic the one [`magic::verify_question`] accepts; a "no" is a
//! certificate that a checker other than the solver accepted, for a CNF named by its SHA-256.
//! A question can be split into `2^k` sub-questions by the low `k` bits of the magic (the
//! parts `K/M` of `exhaust`, with `M = 2^k`): each part's CNF has the cube as unit clauses, so
//! its certificate stands alone.
//!
//! ```
//! use magichunt::exhaust::campaign::shard::Shard;
//! use magichunt::interrupt::Stop;
//! use magichunt::prove::{settle, Limits, Verdict};
//! use magichunt::{Formula, Piece, Question, Target};
//!
//! // Is there a 3-bit magic for bishop b8? No: the solver says so, and the certificate it
//! // wrote was checked by a checker that shares no code with it.
//! let b8 = Target::new(Piece::Bishop, "b8".parse()?);
//! let question = Question::new(b8, 3, Formula::Plain)?;
//! let dir = tempfile::tempdir()?;
//! let stop = Stop::new();
//! let limits = Limits { stop: &stop, deadline: None, progress: None };
//! let settled = settle(question, Shard::WHOLE, dir.path(), &limits)?;
//! let Verdict::None { certificate, .. } = settled.verdict else { panic!("a magic?") };
//! assert!(certificate.is_file());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod campaign;
pub mod certificate;
mod circuit;
pub mod cnf;
pub mod lrat;
pub mod solver;
pub mod trim;

use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};

use crate::exhaust::campaign::shard::Shard;
use crate::fs::output::{self, Writes};
use crate::interrupt::Stop;
use crate::magic::{self, format_magic, Verified};
use crate::question::Question;
pub use certificate::{certificate_dir, certificate_name, copy_certificates, recheck};
use cnf::{encode, Cnf, Cube, Instance};
use lrat::Checked;
use solver::{Answer, Run};

/// Why a question could not be settled.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// The split does not fit the question.
    #[error("invalid shard {shard} for {question}: {reason}")]
    Shard {
        /// The question.
        question: Question,
        /// The shard asked for.
        shard: Shard,
        /// Why not.
        reason: String,
    },
    /// The solver could not run.
    #[error(transparent)]
    Solver(#[from] solver::SolverError),
    /// A file could not be written or read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error (its text is in the message; not a source, so it is said once).
        error: io::Error,
    },
    /// The solver's proof did not check: nothing is recorded.
    #[error("the solver's proof for {question} does not check: {error}")]
    Certificate {
        /// The question.
        question: Question,
        /// The checker's verdict (in the message; not a source, so it is said once).
        error: lrat::LratError,
    },
    /// A certificate on disk is not for this CNF.
    #[error("{path} is for the CNF with SHA-256 {recorded}, but {question} encodes to {actual}")]
    Hash {
        /// The certificate.
        path: PathBuf,
        /// The question.
        question: Question,
        /// The hash the proof record names.
        recorded: String,
        /// The hash of the CNF built now.
        actual: String,
    },
    /// The model's magic failed verification: a bug in the encoding.
    #[error("internal error: the solver's magic {magic} for {question} fails verify")]
    BadModel {
        /// The question.
        question: Question,
        /// The magic, spelled.
        magic: String,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ProveError + '_ {
    move |error| ProveError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The cube of part `shard` of `question`: the low `log2 M` bits of the magic are `K - 1`.
///
/// # Errors
/// [`ProveError::Shard`] when `M` is not a power of two or exceeds the period.
pub fn cube(question: Question, shard: Shard) -> Result<Option<Cube>, ProveError> {
    if shard.count == 1 {
        return Ok(None);
    }
    let bad = |reason: String| ProveError::Shard {
        question,
        shard,
        reason,
    };
    if !shard.count.is_power_of_two() {
        return Err(bad(format!(
            "a SAT split has a power of two of parts ({} is not)",
            shard.count
        )));
    }
    let bits = shard.count.trailing_zeros();
    if bits > question.period_bits().min(32) {
        return Err(bad(format!(
            "at most 2^{} parts",
            question.period_bits().min(32)
        )));
    }
    Ok(Some(Cube {
        bits,
        value: u64::from(shard.index - 1),
    }))
}

/// The CNF of `question` restricted to `cube`.
#[must_use]
pub fn cnf_of(question: Question, cube: Option<Cube>) -> Cnf {
    let title = match cube {
        None => format!("does a magic exist for {question}?"),
        Some(c) => format!(
            "does a magic exist for {question} whose low {} bits are {:#x}?",
            c.bits, c.value
        ),
    };
    encode(&Instance::of(question), cube, &title)
}

/// SHA-256 of the CNF's DIMACS text, lower-case hex.
#[must_use]
pub fn sha256(cnf: &Cnf) -> String {
    let mut h = HashWriter(Sha256::new());
    cnf.write_dimacs(&mut h).expect("hashing cannot fail");
    hex(&h.0.finalize())
}

/// Bytes as lower-case hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
        s
    })
}

struct HashWriter(Sha256);

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How a part was settled.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// A magic exists (verified).
    Exists(Verified),
    /// None exists; the certificate was written and checked.
    None {
        /// The certificate (gzip-compressed LRAT).
        certificate: PathBuf,
        /// What the checker saw.
        checked: Checked,
    },
    /// Stopped before an answer (Ctrl-C or the deadline).
    Unknown,
}

/// A part settled (or not) by the solver, with what it cost.
#[derive(Clone, Debug)]
pub struct Settled {
    /// The question.
    pub question: Question,
    /// The part.
    pub shard: Shard,
    /// The answer.
    pub verdict: Verdict,
    /// SHA-256 of the CNF solved.
    pub cnf_sha256: String,
    /// Variables and clauses of the CNF.
    pub size: (u32, usize),
    /// Conflicts.
    pub conflicts: u64,
    /// Wall time of the solve.
    pub solve_time: Duration,
    /// Wall time of the certificate check.
    pub check_time: Duration,
}

/// What a settle run may use.
pub struct Limits<'a> {
    /// Ctrl-C.
    pub stop: &'a Stop,
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Progress every so often: (elapsed, conflicts).
    pub progress: Option<(Duration, solver::Report<'a>)>,
}

/// Settles part `shard` of `question`; a certificate of "none" goes to `dir` (created if
/// needed) under [`certificate_name`], written only after it checked.
///
/// # Errors
/// [`ProveError`]: a bad split, the solver, a file, or a proof that does not check.
pub fn settle(
    question: Question,
    shard: Shard,
    dir: &Path,
    limits: &Limits<'_>,
) -> Result<Settled, ProveError> {
    let cube = cube(question, shard)?;
    let cnf = cnf_of(question, cube);
    let hash = sha256(&cnf);
    crate::fs::create_dir(dir).map_err(io_err(dir))?;
    let name = certificate_name(question, shard);
    // The solver's raw proof: created exclusively (never through a link) under a name nobody
    // can plant beforehand.
    let raw = dir.join(format!(
        ".{name}.{}.{:016x}.lrat",
        std::process::id(),
        crate::fs::unpredictable()
    ));
    let result = solve_and_certify(question, &cnf, &raw, &dir.join(&name), limits);
    crate::fs::remove_own(&raw);
    let (verdict, solved, check_time) = result?;
    Ok(Settled {
        question,
        shard,
        verdict,
        cnf_sha256: hash,
        size: (cnf.vars, cnf.clauses),
        conflicts: solved.conflicts,
        solve_time: solved.elapsed,
        check_time,
    })
}

fn solve_and_certify(
    question: Question,
    cnf: &Cnf,
    raw: &Path,
    certificate: &Path,
    limits: &Limits<'_>,
) -> Result<(Verdict, solver::Solved, Duration), ProveError> {
    let solved = solver::solve(
        cnf,
        &Run {
            proof: Some(raw),
            assumptions: &[],
            stop: limits.stop,
            deadline: limits.deadline,
            progress: limits.progress,
        },
    )?;
    let start = Instant::now();
    let verdict = match solved.answer {
        Answer::Unknown => Verdict::Unknown,
        Answer::Sat(m) => {
            let v = magic::verify_question(question, m).map_err(|_| ProveError::BadModel {
                question,
                magic: format_magic(m),
            })?;
            Verdict::Exists(v)
        }
        Answer::Unsat => {
            // Keep what the empty clause needs, check that, and ship it compressed.
            let file = crate::fs::open_own(raw).map_err(io_err(raw))?;
            let trimmed = trim::trim(cnf.clauses, BufReader::new(file))
                .map_err(|error| ProveError::Certificate { question, error })?;
            // The solver's own proof, in memory already: no budget but its size.
            let checked = lrat::check_within(cnf, trimmed.as_slice(), usize::MAX)
                .map_err(|error| ProveError::Certificate { question, error })?;
            let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(&trimmed).map_err(io_err(raw))?;
            let packed = gz.finish().map_err(io_err(raw))?;
            output::write(certificate, &packed, Writes::Certificate, &[])
                .map_err(|e| io_err(certificate)(std::io::Error::other(e.to_string())))?;
            Verdict::None {
                certificate: certificate.to_path_buf(),
                checked,
            }
        }
    };
    Ok((verdict, solved, start.elapsed()))
}

#[cfg(test)]
mod tests;
