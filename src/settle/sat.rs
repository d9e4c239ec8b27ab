//! One part of a question settled by SAT into a store: what `magichunt prove` runs for
//! bishops and black magics, as one call, [`settle_part`]; and the other things `prove` does
//! with a question's CNF and certificates ([`emit_cnf`], [`check_certificates`]).
//!
//! A "none" is recorded with its certificate (written beside the store, under `proofs/`, only
//! after it checked) and becomes a proof once every part of the question is settled; an
//! "exists" is recorded with its magic, which the store also keeps as the best of its formula.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{SaveError, TableError};
use crate::exhaust::campaign::shard::Shard;
use crate::fs::lock::{LockError, StoreLock};
use crate::fs::output::{self, OutputError, Writes};
use crate::interrupt::Stop;
use crate::locate::{LocateError, Reading};
use crate::magic::{format_magic, Verified};
use crate::progress::Progress;
use crate::prove::cnf::ENCODING;
use crate::prove::lrat::{Checked, CHECKER};
use crate::prove::{self, certificate_dir, cnf_of, cube, solver, Limits, ProveError, Verdict};
use crate::question::Question;
use crate::store::Store;
use crate::table::sat::{SatAnswer, SatPart, SatPartWire};
use crate::table::wire::MethodWire;
use crate::table::Entry;
use crate::timefmt::{format_duration, now_rfc3339};

/// How often the solver's progress is reported.
const REPORT: Duration = Duration::from_secs(1);

/// One part of a question to settle by SAT into a store.
#[derive(Clone, Debug)]
pub struct SatConfig {
    /// The question.
    pub question: Question,
    /// The part (`M` a power of two: the low `log2 M` bits of the magic are `K - 1`).
    pub shard: Shard,
    /// The store; certificates go to `proofs/` beside its real file.
    pub store: PathBuf,
    /// Give up after this long: nothing is recorded.
    pub time: Option<Duration>,
    /// Settle again even if the store already settles the part.
    pub recheck: bool,
}

/// Why a part could not be settled or recorded, or certificates checked.
#[derive(Debug, thiserror::Error)]
pub enum SatError {
    /// The default store could not be started, or a store could not be read.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// The store is locked by another process, or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The store does not load.
    #[error("cannot use {name}")]
    Load {
        /// The store as named.
        name: String,
        /// Why.
        source: TableError,
    },
    /// The split, the solver, a file, or a proof that does not check.
    #[error(transparent)]
    Prove(#[from] ProveError),
    /// An output refused by the guard.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An output not written.
    #[error("cannot write {path}")]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        source: OutputError,
    },
    /// The store could not be saved.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// The settled question could not be recorded as a proof.
    #[error(transparent)]
    Settle(#[from] TableError),
    /// Something else, said in full.
    #[error("{0}")]
    Other(String),
}

/// How [`settle_part`] ended.
#[derive(Clone, Debug)]
pub enum SatOutcome {
    /// The store already settles the part: the line that says how.
    Already(String),
    /// Stopped by Ctrl-C before an answer: nothing recorded.
    Interrupted {
        /// The question.
        question: Question,
        /// The part.
        shard: Shard,
    },
    /// The time ran out before an answer: nothing recorded.
    Unknown(prove::Settled),
    /// A magic exists in the part (verified, recorded, and offered to the store).
    Exists(prove::Settled, Verified),
    /// None exists in the part: its certificate checked and is recorded.
    None {
        /// The settled part.
        settled: prove::Settled,
        /// The certificate.
        certificate: PathBuf,
        /// What the checker saw.
        checked: Checked,
        /// Every part is now settled: the proof of none is recorded.
        proof: bool,
        /// Parts of the question settled, of how many.
        parts: (usize, u32),
    },
}

impl SatOutcome {
    /// What `magichunt prove` prints on stdout.
    #[must_use]
    pub fn render_text(&self) -> String {
        match self {
            SatOutcome::Already(line) => format!("{line} (--recheck settles it again)\n"),
            SatOutcome::Interrupted { question, shard } => {
                format!("{question}, part {shard}: interrupted; nothing recorded\n")
            }
            SatOutcome::Unknown(s) => format!(
                "{}, part {}: not settled after {} ({} conflicts); nothing recorded\n",
                s.question,
                s.shard,
                format_duration(s.solve_time),
                s.conflicts
            ),
            SatOutcome::Exists(s, v) => format!(
                "{}: exists: {} (part {}; verified, stored; SAT in {}, {} conflicts)\n",
                s.question,
                format_magic(v.magic),
                s.shard,
                format_duration(s.solve_time),
                s.conflicts
            ),
            SatOutcome::None {
                settled: s,
                certificate,
                checked,
                proof,
                parts,
            } => {
                let q = s.question;
                let what = if *proof {
                    format!("{q}: none exists (proof recorded)")
                } else {
                    format!(
                        "part {} of {q}: none in the part; parts settled: {} of {}",
                        s.shard, parts.0, parts.1
                    )
                };
                format!(
                    "{what}\n  UNSAT in {} ({} conflicts); certificate {} checked by {CHECKER} in {} ({} steps); CNF sha256 {}\n",
                    format_duration(s.solve_time),
                    s.conflicts,
                    certificate.display(),
                    format_duration(s.check_time),
                    checked.additions,
                    s.cnf_sha256
                )
            }
        }
    }
}

/// Settles part `cfg.shard` of `cfg.question` by SAT into `cfg.store`: unless the store
/// already settles it, solves its CNF (progress to `progress` about every second), checks a
/// certificate of "none" before it is kept, and records the answer.
///
/// # Errors
/// [`SatError`]: a bad split, a store that is locked or refused, the solver, a proof that does
/// not check, a failed save.
pub fn settle_part(
    cfg: &SatConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<SatOutcome, SatError> {
    let (q, shard) = (cfg.question, cfg.shard);
    cube(q, shard)?;
    crate::locate::start(&cfg.store, progress)?;
    let name = cfg.store.display().to_string();
    // The lock resolves the store to its real file: load and save that one.
    let lock = StoreLock::acquire(&cfg.store, Writes::Store)?;
    lock.note_removed(progress);
    let path = lock.store();
    let mut store = Store::load(path).map_err(|source| SatError::Load {
        name: name.clone(),
        source,
    })?;
    if !cfg.recheck {
        // Only what this build checked (or ships) settles the question; a claim is said
        // and settled again.
        let mut cache = crate::trust::Cache::open();
        crate::trust::vet_file(&mut store, path, &mut cache);
        let dir = prove::certificate::store_dir(path);
        if let Some(line) = already_settled(&store, (q, shard), &name, dir, &mut cache, progress) {
            return Ok(SatOutcome::Already(line));
        }
    }
    let cnf = cnf_of(q, cube(q, shard)?);
    progress.note(&format!(
        "prove {q}, part {shard}: SAT ({}, {ENCODING}): {} variables, {} clauses",
        solver::name(),
        cnf.vars,
        cnf.clauses
    ));
    drop(cnf);
    let settled = {
        let shared = Mutex::new(&mut *progress);
        let report = |elapsed: Duration, conflicts: u64| {
            let rate = conflicts as f64 / elapsed.as_secs_f64().max(1e-9);
            let line = format!(
                "{}: {conflicts} conflicts ({rate:.0}/s)",
                format_duration(elapsed)
            );
            if let Ok(mut p) = shared.lock() {
                p.status(&[line]);
            }
        };
        prove::settle(
            q,
            shard,
            &certificate_dir(path),
            &Limits {
                stop,
                deadline: cfg.time.and_then(|d| Instant::now().checked_add(d)),
                progress: Some((REPORT, &report)),
            },
        )?
    };
    progress.finish();
    if matches!(settled.verdict, Verdict::Unknown) && stop.signalled() {
        return Ok(SatOutcome::Interrupted { question: q, shard });
    }
    record(&mut store, &lock, settled, &name)
}

/// A line saying the store already settles (part `shard` of) `q`, if it does: by a proof
/// this build checked or ships ([`Store::claimed_only`] says which do not, after
/// [`crate::trust::vet`]), a magic, or a SAT part whose certificate (beside the store, in
/// `dir`) checks here. A claim that would have settled it is noted to `progress`, and settles
/// nothing.
fn already_settled(
    store: &Store,
    (q, shard): (Question, Shard),
    name: &str,
    dir: &Path,
    cache: &mut crate::trust::Cache,
    progress: &mut dyn Progress,
) -> Option<String> {
    if let Some(p) = store.proof_of(q) {
        if let Some(why) = store.claimed_only(q) {
            progress.note(&format!(
                "note: {name} records that no magic with {} bits or fewer exists for {}, but the proof is {why}: it decides nothing, so {q} is settled again (`magichunt audit --store {name}` checks it instead)",
                p.bits,
                q.target
            ));
        } else {
            return Some(format!(
                "{q}: already settled in {name}: no magic with {} bits or fewer exists",
                p.bits
            ));
        }
    }
    if let Some(e) = store
        .best_with(q.target, q.formula)
        .filter(|e| e.bits <= q.bits)
    {
        return Some(format!(
            "{q}: already settled in {name}: a magic exists ({} at {} bits)",
            format_magic(e.magic),
            e.bits
        ));
    }
    let p = store.sat(q, shard.count)?.parts.get(&shard.index)?;
    match &p.answer {
        SatAnswer::None { certificate } => {
            let n = prove::certificate::Named {
                question: q,
                shard,
                certificate: certificate.clone(),
                cnf_sha256: p.wire.cnf_sha256.clone(),
            };
            match crate::trust::check_named(&n, dir, cache) {
                Ok(_) => Some(format!(
                    "part {shard} of {q}: already settled in {name}: none in the part"
                )),
                Err(why) => {
                    progress.note(&format!(
                        "note: {name} records part {shard} of {q} as settled (none in it), but {why}: it decides nothing, so the part is settled again"
                    ));
                    None
                }
            }
        }
        SatAnswer::Exists { magic } => Some(format!(
            "part {shard} of {q}: already settled in {name}: {} exists",
            format_magic(*magic)
        )),
    }
}

/// Records a settled part in the store, saves it, and says how it ended.
fn record(
    store: &mut Store,
    lock: &StoreLock,
    s: prove::Settled,
    name: &str,
) -> Result<SatOutcome, SatError> {
    let q = s.question;
    let (answer, checker) = match &s.verdict {
        Verdict::Unknown => return Ok(SatOutcome::Unknown(s)),
        Verdict::Exists(v) => (SatAnswer::Exists { magic: v.magic }, None),
        Verdict::None { certificate, .. } => {
            let file = certificate
                .file_name()
                .ok_or_else(|| SatError::Other("certificate without a file name".into()))?;
            let rel = Path::new("proofs").join(file);
            (
                SatAnswer::None {
                    certificate: rel.to_string_lossy().into_owned(),
                },
                Some(CHECKER.to_string()),
            )
        }
    };
    let wire = SatPartWire {
        shard: s.shard.index,
        result: String::new(),
        magic: None,
        certificate: None,
        cnf_sha256: s.cnf_sha256.clone(),
        solver: solver::name(),
        encoding: ENCODING.to_string(),
        checker,
        conflicts: s.conflicts,
        seconds: (s.solve_time.as_secs_f64() * 1000.0).round() / 1000.0,
        at: Some(now_rfc3339()),
        extra: Default::default(),
    };
    store
        .sat_mut(q, s.shard.count)
        .parts
        .insert(s.shard.index, SatPart { answer, wire });
    if let Verdict::Exists(v) = &s.verdict {
        // The store keeps the best magic of each formula per square, black ones too.
        let method = MethodWire {
            family: "sat".into(),
            seed: None,
            run: Some(format!("{}-prove", now_rfc3339())),
        };
        store.offer(Entry::from_verified(v, Some(now_rfc3339()), Some(method)));
    }
    let newly = store.settle_sat(name)?;
    store.save_locked(lock)?;
    let parts = store
        .sat(q, s.shard.count)
        .map_or((0, s.shard.count), |x| (x.settled(), x.shards));
    Ok(match s.verdict.clone() {
        Verdict::Exists(v) => SatOutcome::Exists(s, v),
        Verdict::None {
            certificate,
            checked,
        } => SatOutcome::None {
            settled: s,
            certificate,
            checked,
            proof: newly.contains(&q),
            parts,
        },
        Verdict::Unknown => unreachable!("returned above"),
    })
}

/// The DIMACS text of part `shard` of `q`, for another solver: written to `out` (never over
/// the store `store` or, without one, the default store, nor over any store or packed table:
/// checked before the work and again as it is written) and `None` returned, or returned when
/// `out` is `None`. Its size and hash go to `progress`.
///
/// # Errors
/// A bad split, or an output refused or not written.
pub fn emit_cnf(
    q: Question,
    shard: Shard,
    out: Option<&Path>,
    store: Option<&Path>,
    progress: &mut dyn Progress,
) -> Result<Option<Vec<u8>>, SatError> {
    let guarded = store
        .map(Path::to_path_buf)
        .or_else(crate::locate::default_store)
        .unwrap_or_default();
    if let Some(path) = out {
        // Nor over the certificates the store names: the evidence of its proofs.
        if let Ok((s, _)) = Store::read(&guarded) {
            prove::certificate::note_inputs(&s, &guarded);
        }
        output::check(path, Writes::Other, &[&guarded])?;
    }
    let cnf = cnf_of(q, cube(q, shard)?);
    let mut text = Vec::new();
    cnf.write_dimacs(&mut text)
        .map_err(|e| SatError::Other(format!("cannot write the CNF: {e}")))?;
    progress.note(&format!(
        "{q}, part {shard}: {} variables, {} clauses, sha256 {} ({ENCODING})",
        cnf.vars,
        cnf.clauses,
        prove::sha256(&cnf)
    ));
    match out {
        Some(path) => {
            output::write(path, &text, Writes::Other, &[&guarded]).map_err(|source| {
                SatError::Write {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
            Ok(None)
        }
        None => Ok(Some(text)),
    }
}

/// What [`check_certificates`] found: a line per certificate, and the counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CertificateChecks {
    /// One line per certificate: it checks, or why it fails.
    pub lines: Vec<String>,
    /// Certificates that check.
    pub checked: usize,
    /// Certificates that fail.
    pub failed: usize,
}

impl CertificateChecks {
    /// What `magichunt prove --check-certificates` prints on stdout.
    #[must_use]
    pub fn render_text(&self) -> String {
        let mut out: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        out += &format!(
            "{} certificates check, {} fail\n",
            self.checked, self.failed
        );
        out
    }
}

/// Checks every certificate of `q` in the store `given` reads (see
/// [`crate::locate::for_reading`]) again: the CNF rebuilt, its SHA-256 compared, the checker
/// run.
///
/// # Errors
/// The built-in table (it carries no certificates), a missing or unreadable store, or no
/// certificate for `q` in it.
pub fn check_certificates(
    q: Question,
    given: Option<&Path>,
    progress: &mut dyn Progress,
) -> Result<CertificateChecks, SatError> {
    let Reading::File(path) = crate::locate::for_reading(given, progress) else {
        return Err(SatError::Other(
            "the table built into magichunt carries no certificates (they stay in its repository, under results/proofs/): run this in a checkout, or give --store with a store whose proofs/ folder holds them".into(),
        ));
    };
    if !path.is_file() {
        return Err(SatError::Other(format!(
            "no such store: {}",
            path.display()
        )));
    }
    let store = Reading::File(path.clone()).load()?;
    // Certificates are beside the real store (where `prove` wrote them through a symlink).
    let real = std::fs::canonicalize(&path)
        .map_err(|e| SatError::Other(format!("cannot use {}: {e}", path.display())))?;
    let dir = prove::certificate::store_dir(&real);
    let mut out = CertificateChecks::default();
    for x in store.sats().filter(|x| x.question == q) {
        for (&k, part) in &x.parts {
            let SatAnswer::None { certificate } = &part.answer else {
                continue;
            };
            let shard = Shard {
                index: k,
                count: x.shards,
            };
            let file = dir.join(certificate);
            let start = Instant::now();
            match prove::recheck(q, shard, &file, &part.wire.cnf_sha256) {
                Ok(c) => {
                    out.checked += 1;
                    out.lines.push(format!(
                        "part {shard} of {q}: {} checks ({} steps, {})",
                        file.display(),
                        c.additions,
                        format_duration(start.elapsed())
                    ));
                }
                Err(e) => {
                    out.failed += 1;
                    out.lines.push(format!("part {shard} of {q}: FAILS: {e}"));
                }
            }
        }
    }
    if out.checked + out.failed == 0 {
        return Err(SatError::Other(format!(
            "{}: no SAT certificate for {q}",
            path.display()
        )));
    }
    Ok(out)
}
