//! `magichunt audit` in one call, [`audit_store`]: every certificate of a store checked again
//! (the CNF rebuilt, its hash compared, the LRAT proof checked), a random sample of the blocks
//! of every finished exhaustive part re-run against its residue ([`super::audit`]), and what
//! passes remembered in the user's cache, so that `compare` and `export` count it.

use std::path::PathBuf;
use std::time::Instant;

use super::audit::PartAudit;
use super::report::{
    AuditItem, AuditReport, Audited,
    Outcome::{Claimed, Failed, Held},
};
use super::{check_certificate, Cache};
use crate::exhaust::campaign::shard::Shard;
use crate::interrupt::Stop;
use crate::locate::{LocateError, Reading};
use crate::piece::Piece;
use crate::progress::Progress;
use crate::prove::certificate::{named, store_dir};
use crate::question::Question;
use crate::square::Square;
use crate::store::Store;
use crate::table::wire::PartWire;
use crate::table::{Exhaust, Provenance};

/// What `magichunt audit` audits.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// The store (`None`: the default one, see [`crate::locate::for_reading`]; never the
    /// built-in table, which has no evidence beside it).
    pub store: Option<PathBuf>,
    /// Blocks of each finished exhaustive part to re-run (at most 256 count).
    pub sample: u64,
    /// Seed of the blocks drawn.
    pub seed: u64,
    /// Worker threads of the re-runs (at least 1).
    pub threads: usize,
    /// Audit only this piece's records.
    pub piece: Option<Piece>,
    /// Audit only this square's records.
    pub square: Option<Square>,
    /// Audit only records at these bits.
    pub bits: Option<u32>,
}

impl AuditConfig {
    /// Whether the records of `q` are audited.
    fn wants(&self, q: Question) -> bool {
        self.piece.is_none_or(|p| p == q.target.piece)
            && self.square.is_none_or(|s| s == q.target.square)
            && self.bits.is_none_or(|b| b == q.bits)
    }
}

/// Why an audit could not run.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The built-in table has nothing to audit beside it.
    #[error("the table built into magichunt has no certificates or searches to re-run beside it: give --store PATH (a checkout's results/best.json)")]
    BuiltIn,
    /// There is no store where one was named.
    #[error("no such store: {0}")]
    Missing(String),
    /// The store does not load.
    #[error("cannot audit {path}")]
    Load {
        /// The store.
        path: PathBuf,
        /// Why.
        source: crate::error::TableError,
    },
    /// The store cannot be found.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// A file could not be read, or the re-runs' threads could not start.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Audits the store `cfg.store` names: the report's heading, every item and its summary go
/// to `lines` as they come (a re-run takes a while), and the report is returned. Stops after
/// the part being re-run when `stop` is set (what was checked is kept).
///
/// # Errors
/// [`AuditError`]: no store file to audit, a store that does not load, threads that cannot
/// start.
pub fn audit_store(
    cfg: &AuditConfig,
    stop: &Stop,
    lines: &mut dyn Progress,
) -> Result<AuditReport, AuditError> {
    // The built-in table is refused at once: no note that it stands in for a store.
    let found = crate::locate::for_reading(cfg.store.as_deref(), &mut crate::progress::Quiet);
    if found.missing() {
        return Err(AuditError::Missing(found.name()));
    }
    // A FIFO, a device or a folder is refused by the load, which says what it is.
    let Reading::File(path) = found else {
        return Err(AuditError::BuiltIn);
    };
    let store = Store::load(&path).map_err(|source| AuditError::Load {
        path: path.clone(),
        source,
    })?;
    let real = std::fs::canonicalize(&path)?;
    let dir = store_dir(&real);
    let mut cache = Cache::open();
    let mut report = AuditReport {
        store: path.display().to_string(),
        sample: cfg.sample,
        seed: cfg.seed,
        items: Vec::new(),
        interrupted: false,
    };
    lines.note(&report.heading());
    let mut push = |report: &mut AuditReport, item: AuditItem| {
        lines.note(&item.line());
        report.items.push(item);
    };
    // Certificates: all of them, checked again.
    let mut seen = std::collections::BTreeSet::new();
    for n in named(&store) {
        if !cfg.wants(n.question) || !seen.insert((n.question, n.shard.index, n.shard.count)) {
            continue;
        }
        let t0 = Instant::now();
        let checked = check_certificate(&n, dir, &mut cache, false);
        let item = AuditItem {
            question: n.question,
            part: Some(n.shard),
            what: Audited::Certificate {
                certificate: n.certificate.clone(),
            },
            outcome: if checked.is_ok() { Held } else { Failed },
            seconds: checked.is_ok().then(|| t0.elapsed().as_secs_f64()),
            why: checked.err(),
        };
        push(&mut report, item);
    }
    // Exhaustive searches: a sample of every finished part re-run.
    'searches: for x in store.exhausts().filter(|x| cfg.wants(x.question())) {
        for part in x.parts.values().filter(|p| p.done) {
            if let Some(item) = audit_part(cfg, x, part, stop, &mut cache)? {
                push(&mut report, item);
            }
            if stop.requested() {
                break 'searches;
            }
        }
    }
    // Proofs with no evidence at all stay claims.
    let mut vetted = store.clone();
    super::vet(&mut vetted, dir, &mut cache);
    for p in store.proofs().filter(|p| cfg.wants(p.question())) {
        if let Provenance::Claimed(why) = vetted.provenance(p) {
            if why.starts_with("no evidence") {
                let item = AuditItem {
                    question: p.question(),
                    part: None,
                    what: Audited::Proof,
                    outcome: Claimed,
                    why: Some(why),
                    seconds: None,
                };
                push(&mut report, item);
            }
        }
    }
    cache.save();
    report.interrupted = stop.signalled();
    lines.note(&report.summary());
    Ok(report)
}

/// Re-runs a sample of the blocks of one finished part ([`super::audit::audit_part`]): the
/// item to report, if any (none when Ctrl-C came before a block matched).
fn audit_part(
    cfg: &AuditConfig,
    x: &Exhaust,
    part: &PartWire,
    stop: &Stop,
    cache: &mut Cache,
) -> Result<Option<AuditItem>, AuditError> {
    let item = |what, outcome, why, seconds| AuditItem {
        question: x.question(),
        part: Some(Shard {
            index: part.shard,
            count: x.shards,
        }),
        what,
        outcome,
        why,
        seconds,
    };
    let exhaustive = |drawn, matched, of, wrong| Audited::Exhaustive {
        drawn,
        matched,
        of,
        wrong,
    };
    let t0 = Instant::now();
    Ok(Some(
        match super::audit::audit_part(
            x,
            part,
            cfg.sample,
            cfg.seed,
            cfg.threads,
            super::audit::Halt::on(stop),
            cache,
        )? {
            PartAudit::Unfit(why) => item(exhaustive(0, Vec::new(), 0, None), Failed, Some(why), None),
            PartAudit::NoResidue => item(
                exhaustive(0, Vec::new(), 0, None),
                Claimed,
                Some("no residue (searched before parts carried evidence): nothing to re-run; `exhaust --recheck` searches it again".into()),
                None,
            ),
            PartAudit::Wrong { run, blocks } => item(
                exhaustive(
                    0,
                    Vec::new(),
                    blocks as u64,
                    Some((run.block, run.recorded.to_string(), run.got.to_string())),
                ),
                Failed,
                None,
                Some(t0.elapsed().as_secs_f64()),
            ),
            // Ctrl-C came before the first block.
            PartAudit::Matched { matched, .. } if matched.is_empty() => return Ok(None),
            PartAudit::Matched {
                matched,
                drawn,
                blocks,
            } => item(
                exhaustive(drawn, matched, blocks as u64, None),
                Held,
                None,
                Some(t0.elapsed().as_secs_f64()),
            ),
        },
    ))
}
