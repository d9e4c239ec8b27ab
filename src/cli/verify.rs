//! `magichunt verify`: one magic, or every entry of a table file.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::{magic_arg, piece_arg, square_arg, Outcome};
use crate::attacks::Occupancies;
use crate::bitboard::side_by_side;
use crate::magic::{format_magic, verify_pairs};
use crate::piece::{Piece, Target};
use crate::square::Square;
use crate::table::parse_claims;

/// Arguments of `verify`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("one").args(["piece", "square", "bits", "magic"]).multiple(true)))]
pub struct VerifyArgs {
    /// rook or bishop.
    #[arg(long, value_parser = piece_arg, requires_all = ["square", "bits", "magic"])]
    piece: Option<Piece>,
    /// a1..h8 or 0..63.
    #[arg(long, value_parser = square_arg, requires = "piece")]
    square: Option<Square>,
    /// Index bits, 1 to 12 for rooks, 1 to 9 for bishops.
    #[arg(long, requires = "piece")]
    bits: Option<u32>,
    /// The multiplier, 0x hex or decimal.
    #[arg(long, value_parser = magic_arg, requires = "piece")]
    magic: Option<u64>,
    /// Verify every entry of a table file (store, published table, JSON export).
    #[arg(long, conflicts_with = "one", required_unless_present = "piece")]
    file: Option<PathBuf>,
}

/// Runs `verify`.
pub(super) fn run(args: VerifyArgs) -> anyhow::Result<Outcome> {
    if let Some(path) = args.file {
        return verify_file(&path);
    }
    let (Some(piece), Some(square), Some(bits), Some(magic)) =
        (args.piece, args.square, args.bits, args.magic)
    else {
        anyhow::bail!("give --piece, --square, --bits and --magic, or --file");
    };
    let target = Target::new(piece, square);
    target.check_bits(bits)?;
    let occ = Occupancies::new(target);
    let head = format!("{target}, {bits} bits, magic {}", format_magic(magic));
    match verify_pairs(&occ, bits, magic) {
        Ok(v) => {
            println!("{head}: valid");
            println!("  used slots        {} of {}", v.used_slots, 1u64 << bits);
            println!(
                "  highest index     {} (tight table: {} entries)",
                v.max_index,
                v.max_index + 1
            );
            println!(
                "  constructive      {} of {} subsets share a slot",
                v.constructive,
                occ.pairs.len()
            );
            println!(
                "  mask popcount     {}, {} distinct attack sets, lower bound {} bits",
                occ.mask.count(),
                occ.distinct_attacks(),
                occ.lower_bound_bits()
            );
            Ok(Outcome::Success)
        }
        Err(c) => {
            println!("{head}: INVALID");
            println!(
                "  destructive collision at index {}: two subsets with different attack sets",
                c.index
            );
            println!();
            print!(
                "{}",
                side_by_side(&[
                    ("blockers 1", c.first.0),
                    ("attacks 1", c.first.1),
                    ("blockers 2", c.second.0),
                    ("attacks 2", c.second.1),
                ])
            );
            Ok(Outcome::Failure)
        }
    }
}

fn verify_file(path: &std::path::Path) -> anyhow::Result<Outcome> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let claims = parse_claims(&bytes, path)?;
    let mut failed = 0;
    for c in &claims {
        let occ = Occupancies::new(c.target);
        let what = format!(
            "entry {} ({} {} bits {})",
            c.index,
            c.target,
            c.bits,
            format_magic(c.magic)
        );
        match verify_pairs(&occ, c.bits, c.magic) {
            Err(col) => {
                failed += 1;
                println!(
                    "{what}: INVALID, subsets {:#x} and {:#x} collide at index {}",
                    col.first.0 .0, col.second.0 .0, col.index
                );
            }
            Ok(v) if c.max_index.is_some_and(|m| m != v.max_index) => {
                failed += 1;
                println!(
                    "{what}: max_index {} in the file, verify gives {}",
                    c.max_index.unwrap_or_default(),
                    v.max_index
                );
            }
            Ok(_) => {}
        }
    }
    println!(
        "{}: {} entries, {} valid, {} invalid",
        path.display(),
        claims.len(),
        claims.len() - failed,
        failed
    );
    Ok(if failed == 0 {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}
