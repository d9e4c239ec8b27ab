//! `magichunt audit`: check the evidence of every proof in a store here. Every certificate is
//! checked again (the CNF rebuilt, its hash compared, the LRAT proof checked); every finished
//! part of every exhaustive search has `--sample` random blocks re-run and compared with its
//! residue. What passes is remembered in the user's cache, so `compare` and `export` count it.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::{piece_arg, square_arg, threads_or_all, Outcome};
use crate::interrupt::{install, Stop};
use crate::piece::Piece;
use crate::progress::Progress;
use crate::square::Square;
use crate::trust::{audit_store, AuditConfig};

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
    /// Worker threads of the re-runs (0: all cores; at most 1024).
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
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

/// The lines of the audit as they come: on stdout, or with `--json` on stderr. A line that
/// cannot be written (the reader went away) stops the audit, as Ctrl-C does (what was checked
/// is kept), and ends the command with that error.
struct Said {
    json: bool,
    stop: Stop,
    error: Option<super::out::OutError>,
}

impl Progress for Said {
    fn note(&mut self, line: &str) {
        if self.json {
            crate::say!("{line}");
        } else if self.error.is_none() {
            if let Err(e) = super::out::text(&format!("{line}\n")) {
                self.error = Some(e);
                self.stop.request();
            }
        }
    }
}

/// Runs `audit`: exit 0 when everything audited holds, 1 when something fails (each named on
/// its own line), 130 after Ctrl-C (what was checked is kept).
pub(super) fn run(args: &AuditArgs) -> anyhow::Result<Outcome> {
    let cfg = AuditConfig {
        store: args.store.clone(),
        sample: args.sample,
        seed: args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        }),
        threads: threads_or_all(Some(args.threads)),
        piece: args.piece,
        square: args.square,
        bits: args.bits,
    };
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    let mut said = Said {
        json: args.json,
        stop: stop.clone(),
        error: None,
    };
    let report = audit_store(&cfg, &stop, &mut said)?;
    if let Some(e) = said.error {
        return Err(e.into());
    }
    if args.json {
        super::out::json(&report.to_json())?;
    }
    Ok(if stop.signalled() {
        Outcome::Interrupted
    } else if report.failed() > 0 {
        Outcome::Failure
    } else {
        Outcome::Success
    })
}
