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
use crate::timefmt::format_duration;
use crate::trust::audit::{audit_part, PartAudit};
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
    println!(
        "audit of {}: every certificate, and {} block(s) of every finished exhaustive part (seed {seed})",
        path.display(),
        args.sample
    );
    let (mut held, mut failed, mut claimed) = (0, 0, 0);
    // Certificates: all of them, checked again.
    let mut seen = std::collections::BTreeSet::new();
    for n in named(&store) {
        if !args.wants(n.question) || !seen.insert((n.question, n.shard.index, n.shard.count)) {
            continue;
        }
        let t0 = Instant::now();
        match check_certificate(&n, dir, &mut cache, false) {
            Ok(_) => {
                held += 1;
                println!(
                    "ok    {}, part {}: certificate {} checks ({})",
                    n.question,
                    n.shard,
                    n.certificate,
                    format_duration(t0.elapsed())
                );
            }
            Err(why) => {
                failed += 1;
                println!("FAILS {}, part {}: {why}", n.question, n.shard);
            }
        }
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
            let what = format!(
                "exhaustive search of {} at {} bits, part {shard}",
                x.target, x.bits
            );
            let t0 = Instant::now();
            match audit_part(x, part, args.sample, seed, threads, &stop, &mut cache)? {
                PartAudit::Unfit(why) => {
                    failed += 1;
                    println!("FAILS {what}: {why}");
                }
                PartAudit::NoResidue => {
                    claimed += 1;
                    println!(
                        "claim {what}: no residue (searched before parts carried evidence): nothing to re-run; `exhaust --recheck` searches it again"
                    );
                }
                PartAudit::Wrong { run, blocks } => {
                    failed += 1;
                    println!(
                        "FAILS {what}: block {} of {blocks} does not re-run to its record (recorded {}, re-run {})",
                        run.block, run.recorded, run.got
                    );
                }
                PartAudit::Matched {
                    matched,
                    drawn,
                    blocks,
                } => {
                    if !matched.is_empty() {
                        if matched.len() == drawn {
                            held += 1;
                        }
                        let list: Vec<String> = matched.iter().map(ToString::to_string).collect();
                        println!(
                            "ok    {what}: block{} {} of {blocks} re-run, matching ({})",
                            if matched.len() == 1 { "" } else { "s" },
                            list.join(", "),
                            format_duration(t0.elapsed())
                        );
                    }
                }
            }
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
                claimed += 1;
                println!("claim {}: {why}", p.question());
            }
        }
    }
    cache.save();
    println!("{held} held, {failed} failed, {claimed} only claimed");
    Ok(if stop.signalled() {
        Outcome::Interrupted
    } else if failed > 0 {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}
