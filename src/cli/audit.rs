//! `magichunt audit`: check the evidence of every proof in a store here. Every certificate is
//! checked again (the CNF rebuilt, its hash compared, the LRAT proof checked); every finished
//! part of every exhaustive search has `--sample` random blocks re-run and compared with its
//! residue. What passes is remembered in the user's cache, so `compare` and `export` count it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use super::{piece_arg, square_arg, Outcome};
use crate::exhaust::shard::Shard;
use crate::interrupt::{install, Stop};
use crate::piece::Piece;
use crate::prove::certificate::{named, store_dir};
use crate::question::Question;
use crate::square::Square;
use crate::store::Store;
use crate::trust::audit::{audit_part, PartAudit};
use crate::trust::report::{
    AuditItem, AuditReport, Audited,
    Outcome::{Claimed, Failed, Held},
};
use crate::trust::{self, check_certificate, Cache};

/// Arguments of `audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The results store to audit [default: the store `compare` reads: results/mine.json in
    /// a checkout when it exists, else the shipped results/best.json; your own store
    /// elsewhere].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Blocks of each finished exhaustive part to re-run (a part has at most 256; each is
    /// 1/256 of its search or more).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=256))]
    sample: u64,
    /// Seed of the blocks drawn (default: from the clock; printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads of the re-runs (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Audit only this piece's records.
    #[arg(long, value_parser = piece_arg)]
    piece: Option<Piece>,
    /// Audit only this square's records.
    #[arg(long, value_parser = square_arg)]
    square: Option<Square>,
    /// Audit only records at these bits.
    #[arg(long)]
    bits: Option<u32>,
    /// Print one JSON document at the end instead of the text (described in
    /// docs/format.md); the text's lines go to stderr as they come.
    #[arg(long)]
    json: bool,
}

impl AuditArgs {
    fn wants(&self, q: Question) -> bool {
        self.piece.is_none_or(|p| p == q.target.piece)
            && self.square.is_none_or(|s| s == q.target.square)
            && self.bits.is_none_or(|b| b == q.bits)
    }
}

/// Runs `audit`: exit 0 when everything audited holds, 1 when something fails (each named on
/// its own line), 130 after Ctrl-C (what was checked is kept).
pub(super) fn run(args: &AuditArgs) -> anyhow::Result<Outcome> {
    let path = match super::stores::for_reading(args.store.as_deref()) {
        super::stores::Reading::File(p) => p,
        super::stores::Reading::BuiltIn => anyhow::bail!(
            "the table built into magichunt has no certificates or searches to re-run beside it: give --store PATH (a checkout's results/best.json)"
        ),
    };
    anyhow::ensure!(path.is_file(), "no such store: {}", path.display());
    let store = Store::load(&path).with_context(|| format!("cannot audit {}", path.display()))?;
    let real = std::fs::canonicalize(&path)?;
    let dir = store_dir(&real);
    let mut cache = Cache::open();
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    let threads = super::threads_or_all(Some(args.threads));
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let mut report = AuditReport {
        store: path.display().to_string(),
        sample: args.sample,
        seed,
        items: Vec::new(),
        interrupted: false,
    };
    // The text goes to stdout as it comes; with --json to stderr, the document at the end.
    let say = |line: &str| {
        if args.json {
            crate::say!("{line}");
        } else {
            println!("{line}");
        }
    };
    let push = |report: &mut AuditReport, item: AuditItem| {
        say(&item.line());
        report.items.push(item);
    };
    say(&report.heading());
    // Certificates: all of them, checked again.
    let mut seen = std::collections::BTreeSet::new();
    for n in named(&store) {
        if !args.wants(n.question) || !seen.insert((n.question, n.shard.index, n.shard.count)) {
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
    for x in store.exhausts() {
        if !args.wants(x.question()) {
            continue;
        }
        for part in x.parts.values().filter(|p| p.done) {
            let shard = Shard {
                index: part.shard,
                count: x.shards,
            };
            let t0 = Instant::now();
            let exhaustive = |drawn, matched, of, wrong| Audited::Exhaustive {
                drawn,
                matched,
                of,
                wrong,
            };
            let item = match audit_part(x, part, args.sample, seed, threads, &stop, &mut cache)? {
                PartAudit::Unfit(why) => AuditItem {
                    question: x.question(),
                    part: Some(shard),
                    what: exhaustive(0, Vec::new(), 0, None),
                    outcome: Failed,
                    why: Some(why),
                    seconds: None,
                },
                PartAudit::NoResidue => AuditItem {
                    question: x.question(),
                    part: Some(shard),
                    what: exhaustive(0, Vec::new(), 0, None),
                    outcome: Claimed,
                    why: Some("no residue (searched before parts carried evidence): nothing to re-run; `exhaust --recheck` searches it again".into()),
                    seconds: None,
                },
                PartAudit::Wrong { run, blocks } => AuditItem {
                    question: x.question(),
                    part: Some(shard),
                    what: exhaustive(
                        0,
                        Vec::new(),
                        blocks as u64,
                        Some((run.block, run.recorded.to_string(), run.got.to_string())),
                    ),
                    outcome: Failed,
                    why: None,
                    seconds: Some(t0.elapsed().as_secs_f64()),
                },
                PartAudit::Matched {
                    matched,
                    drawn,
                    blocks,
                } => {
                    if matched.is_empty() {
                        // Ctrl-C came before the first block.
                        if stop.requested() {
                            break;
                        }
                        continue;
                    }
                    AuditItem {
                        question: x.question(),
                        part: Some(shard),
                        what: exhaustive(drawn, matched, blocks as u64, None),
                        outcome: Held,
                        why: None,
                        seconds: Some(t0.elapsed().as_secs_f64()),
                    }
                }
            };
            push(&mut report, item);
            if stop.requested() {
                break;
            }
        }
        if stop.requested() {
            break;
        }
    }
    // Proofs with no evidence at all stay claims.
    let mut vetted = store.clone();
    trust::vet(&mut vetted, dir, &mut cache);
    for p in store.proofs().filter(|p| args.wants(p.question())) {
        if let crate::table::Provenance::Claimed(why) = vetted.provenance(p) {
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
    say(&report.summary());
    if args.json {
        print!("{}", report.to_json());
    }
    let failed = report.failed();
    Ok(if stop.signalled() {
        Outcome::Interrupted
    } else if failed > 0 {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}
