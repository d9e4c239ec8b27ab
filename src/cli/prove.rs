//! `magichunt prove`: settle whether a magic exists, by SAT with a checked certificate or by
//! exhaustive search; record the answer in the store.

use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use super::exhaust::{duration_arg, exhaust_args, shard_arg};
use super::stores::Reading;
use super::{piece_arg, square_arg, Outcome};
use crate::exhaust::shard::Shard;
use crate::interrupt::{install, Stop};
use crate::lock::StoreLock;
use crate::magic::format_magic;
use crate::output::{self, Writes};
use crate::piece::{Piece, Target};
use crate::prove::cnf::ENCODING;
use crate::prove::lrat::CHECKER;
use crate::prove::{
    self, campaign, certificate_dir, cnf_of, cube, settle, solver, Limits, Settled, Verdict,
};
use crate::question::{Formula, Question};
use crate::square::Square;
use crate::store::Store;
use crate::table::sat::{SatAnswer, SatPart, SatPartWire};
use crate::table::wire::MethodWire;
use crate::table::Entry;
use crate::timefmt::{format_duration, now_rfc3339};

/// How to settle a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// SAT for bishops and black magics, exhaustive search for plain rooks (see the README).
    Auto,
    /// The SAT solver, with an LRAT certificate checked before it is recorded.
    Sat,
    /// The exhaustive search of `magichunt exhaust` (plain magics only).
    Exhaust,
}

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
    #[arg(long, default_value = "plain", value_parser = formula_arg)]
    formula: Formula,
    /// Settle part K of M (1-based; for SAT, M a power of two: the low log2(M) bits of the
    /// magic are K - 1).
    #[arg(long, default_value = "1/1", value_parser = shard_arg)]
    shard: Shard,
    /// auto, sat or exhaust.
    #[arg(long, value_enum, default_value = "auto")]
    method: Method,
    /// The results store; certificates go to `proofs/` beside it [default: results/mine.json
    /// in a checkout, else your own store in the data folder, started from the shipped store;
    /// MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Give up after this long (e.g. 10m): exit 1 with nothing recorded for the part.
    #[arg(long, value_parser = duration_arg)]
    time: Option<Duration>,
    /// Worker threads of the exhaustive search (0: all cores); the SAT solver uses one.
    #[arg(long, default_value_t = 0)]
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

fn formula_arg(s: &str) -> Result<Formula, crate::error::ParseError> {
    s.parse()
}

/// The method `auto` picks: SAT where it measured seconds (bishops, whose CNFs are small, and
/// black magics, which have no period to enumerate), the exhaustive search for plain rooks
/// (whose CNFs reach millions of clauses while their periods are small enough to enumerate on
/// ranks 7 and 8).
#[must_use]
pub fn auto_method(question: Question) -> Method {
    match (question.target.piece, question.formula) {
        (_, Formula::Black) | (Piece::Bishop, _) => Method::Sat,
        (Piece::Rook, Formula::Plain) => Method::Exhaust,
    }
}

/// Runs `prove`.
pub(super) fn run(args: ProveArgs) -> anyhow::Result<Outcome> {
    if args.campaign {
        return list_campaign(&super::stores::for_reading(args.store.as_deref()));
    }
    let (Some(piece), Some(square), Some(bits)) = (args.piece, args.square, args.bits) else {
        bail!("--piece, --square and --bits are required");
    };
    let target = Target::new(piece, square);
    let q = Question::new(target, bits, args.formula)?;
    let shard = args.shard;
    let part_cube = cube(q, shard)?;
    if let Some(path) = &args.emit_cnf {
        // Never onto the store this command would read or write.
        let guarded = (args.store.clone())
            .or_else(super::stores::default_store)
            .unwrap_or_default();
        return emit_cnf(q, shard, path, &guarded);
    }
    if args.check_certificates {
        return match super::stores::for_reading(args.store.as_deref()) {
            Reading::File(path) => check_certificates(q, &path),
            Reading::BuiltIn => bail!(
                "the table built into magichunt carries no certificates (they stay in its repository, under results/proofs/): run this in a checkout, or give --store with a store whose proofs/ folder holds them"
            ),
        };
    }
    let method = match args.method {
        Method::Auto => auto_method(q),
        m => m,
    };
    if method == Method::Exhaust {
        if q.formula != Formula::Plain {
            bail!("the exhaustive search settles plain magics only (a black magic has no period to enumerate): use --method sat");
        }
        crate::say!("prove {q}: by exhaustive search (magichunt exhaust)");
        return super::exhaust::run(exhaust_args(
            target,
            q.bits,
            shard,
            args.store,
            args.threads,
            args.time,
            args.recheck,
        ));
    }
    let store_path = super::stores::writing_path(args.store.as_deref())?;
    super::stores::for_writing(&store_path)?;
    let path = store_path.as_path();
    let name = path.display().to_string();
    // The lock resolves the store to its real file: load and save that one.
    let lock = StoreLock::acquire(path)?;
    super::exhaust::removed_note(&lock);
    let path = lock.store();
    let mut store = Store::load(path).with_context(|| format!("cannot use {name}"))?;
    if !args.recheck {
        // Only what this build checked (or ships) settles the question; a claim is said
        // and settled again.
        let mut cache = crate::trust::Cache::open();
        crate::trust::vet_file(&mut store, path, &mut cache);
        let dir = prove::certificate::store_dir(path);
        if let Some(line) = already_settled(&store, q, shard, &name, dir, &mut cache) {
            println!("{line} (--recheck settles it again)");
            return Ok(Outcome::Success);
        }
    }
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    let cnf = cnf_of(q, part_cube);
    crate::say!(
        "prove {q}, part {shard}: SAT ({}, {ENCODING}): {} variables, {} clauses",
        solver::name(),
        cnf.vars,
        cnf.clauses
    );
    drop(cnf);
    let tty = std::io::stderr().is_terminal();
    let every = if tty {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(60)
    };
    let report = move |elapsed: Duration, conflicts: u64| {
        let rate = conflicts as f64 / elapsed.as_secs_f64().max(1e-9);
        let line = format!(
            "{}: {conflicts} conflicts ({:.0}/s)",
            format_duration(elapsed),
            rate
        );
        if tty {
            crate::say_inline!("\r{line}\x1b[K");
        } else {
            crate::say!("{line}");
        }
    };
    let dir = certificate_dir(path);
    let settled = settle(
        q,
        shard,
        &dir,
        &Limits {
            stop: &stop,
            deadline: args.time.and_then(|d| Instant::now().checked_add(d)),
            progress: Some((every, &report)),
        },
    )?;
    if tty {
        crate::say_inline!("\r\x1b[K");
        let _ = std::io::stderr().flush();
    }
    if matches!(settled.verdict, Verdict::Unknown) && stop.signalled() {
        println!("{q}, part {shard}: interrupted; nothing recorded");
        return Ok(Outcome::Interrupted);
    }
    record(&mut store, path, &settled, &name)
}

/// A line saying the store already settles (part `shard` of) `q`, if it does: by a proof
/// this build checked or ships ([`Store::trusted_own_none_with`], after
/// [`crate::trust::vet`]), a magic, or a SAT part whose certificate (beside the store, in
/// `dir`) checks here. A claim that would have settled it is said on stderr, and settles
/// nothing.
fn already_settled(
    store: &Store,
    q: Question,
    shard: Shard,
    name: &str,
    dir: &Path,
    cache: &mut crate::trust::Cache,
) -> Option<String> {
    if let Some(p) = store.proof_of(q) {
        if let Some(why) = store.claimed_only(q) {
            crate::say!(
                "note: {name} records that no magic with {} bits or fewer exists for {}, but the proof is {why}: it decides nothing, so {q} is settled again (`magichunt audit --store {name}` checks it instead)",
                p.bits,
                q.target
            );
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
                    crate::say!(
                        "note: {name} records part {shard} of {q} as settled (none in it), but {why}: it decides nothing, so the part is settled again"
                    );
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

/// Records a settled part in the store and reports it.
fn record(store: &mut Store, path: &Path, s: &Settled, name: &str) -> anyhow::Result<Outcome> {
    let q = s.question;
    let (answer, checker) = match &s.verdict {
        Verdict::Unknown => {
            println!(
                "{q}, part {}: not settled after {} ({} conflicts); nothing recorded",
                s.shard,
                format_duration(s.solve_time),
                s.conflicts
            );
            return Ok(Outcome::Failure);
        }
        Verdict::Exists(v) => (SatAnswer::Exists { magic: v.magic }, None),
        Verdict::None { certificate, .. } => {
            let file = certificate
                .file_name()
                .context("certificate without a file name")?;
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
    store.sat_mut(q, s.shard.count).parts.insert(
        s.shard.index,
        SatPart {
            answer: answer.clone(),
            wire,
        },
    );
    let mut stored = String::new();
    if let Verdict::Exists(v) = &s.verdict {
        // The store keeps the best magic of each formula per square, black ones too.
        let method = MethodWire {
            family: "sat".into(),
            seed: None,
            run: Some(format!("{}-prove", now_rfc3339())),
        };
        store.offer(Entry::from_verified(v, Some(now_rfc3339()), Some(method)));
        stored = ", stored".into();
    }
    let newly = store.settle_sat(name)?;
    store.save(path)?;
    match &s.verdict {
        Verdict::Exists(v) => println!(
            "{q}: exists: {} (part {}; verified{stored}; SAT in {}, {} conflicts)",
            format_magic(v.magic),
            s.shard,
            format_duration(s.solve_time),
            s.conflicts
        ),
        Verdict::None {
            certificate,
            checked,
        } => {
            let what = if newly.contains(&q) {
                format!("{q}: none exists (proof recorded)")
            } else {
                let x = store.sat(q, s.shard.count).expect("just recorded");
                format!(
                    "part {} of {q}: none in the part; parts settled: {} of {}",
                    s.shard,
                    x.settled(),
                    x.shards
                )
            };
            println!(
                "{what}\n  UNSAT in {} ({} conflicts); certificate {} checked by {CHECKER} in {} ({} steps); CNF sha256 {}",
                format_duration(s.solve_time),
                s.conflicts,
                certificate.display(),
                format_duration(s.check_time),
                checked.additions,
                s.cnf_sha256
            );
        }
        Verdict::Unknown => unreachable!("handled above"),
    }
    Ok(Outcome::Success)
}

/// `--campaign`: the open questions of the campaign, one a line.
fn list_campaign(from: &Reading) -> anyhow::Result<Outcome> {
    if from.missing() {
        bail!("no such store: {}", from.name());
    }
    let mut store = from.load()?;
    if let Reading::File(path) = from {
        // Only proofs checked here (or shipped with this build) settle a question.
        crate::trust::vet_file(store.to_mut(), path, &mut crate::trust::Cache::open());
    }
    for (stage, q) in campaign::questions(&store) {
        if let Some(why) = store.claimed_only(q) {
            crate::say!(
                "note: {} {} {} is listed though {} records a proof of none: it is {why} (`magichunt audit --store {}` checks it)",
                q.target.piece,
                q.target.square,
                q.bits,
                from.name(),
                from.name()
            );
        }
        let method = match auto_method(q) {
            Method::Sat => "sat",
            _ => "exhaust",
        };
        println!(
            "{} {} {} {method} # {}",
            q.target.piece,
            q.target.square,
            q.bits,
            stage.describe()
        );
    }
    Ok(Outcome::Success)
}

/// `--emit-cnf`: the DIMACS of part `shard` of `q` (never over `store`, nor any store or
/// packed table: checked before the work and again as it is written).
fn emit_cnf(q: Question, shard: Shard, path: &Path, store: &Path) -> anyhow::Result<Outcome> {
    let to_file = path.as_os_str() != "-";
    // Nor over the certificates the store names: the evidence of its proofs.
    if to_file {
        if let Ok((s, _)) = Store::read(store) {
            prove::certificate::note_inputs(&s, store);
        }
    }
    if to_file {
        output::check(path, Writes::Other, &[store])?;
    }
    let cnf = cnf_of(q, cube(q, shard)?);
    let mut text = Vec::new();
    cnf.write_dimacs(&mut text)?;
    if to_file {
        output::write(path, &text, Writes::Other, &[store])
            .with_context(|| format!("cannot write {}", path.display()))?;
    } else {
        std::io::stdout().lock().write_all(&text)?;
    }
    crate::say!(
        "{q}, part {shard}: {} variables, {} clauses, sha256 {} ({ENCODING})",
        cnf.vars,
        cnf.clauses,
        prove::sha256(&cnf)
    );
    Ok(Outcome::Success)
}

/// `--check-certificates`: every certificate of `q` in the store, checked again.
fn check_certificates(q: Question, path: &Path) -> anyhow::Result<Outcome> {
    anyhow::ensure!(path.is_file(), "no such store: {}", path.display());
    let store = Store::load(path).with_context(|| format!("cannot use {}", path.display()))?;
    // Certificates are beside the real store (where `prove` wrote them through a symlink).
    let real =
        std::fs::canonicalize(path).with_context(|| format!("cannot use {}", path.display()))?;
    let dir = prove::certificate::store_dir(&real);
    let mut checked = 0;
    let mut failed = 0;
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
                    checked += 1;
                    println!(
                        "part {shard} of {q}: {} checks ({} steps, {})",
                        file.display(),
                        c.additions,
                        format_duration(start.elapsed())
                    );
                }
                Err(e) => {
                    failed += 1;
                    println!("part {shard} of {q}: FAILS: {e}");
                }
            }
        }
    }
    if checked + failed == 0 {
        bail!("{}: no SAT certificate for {q}", path.display());
    }
    println!("{checked} certificates check, {failed} fail");
    Ok(if failed == 0 {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}
