//! `magichunt verify`: one magic, or every entry of a table file (and a packed table as a
//! whole).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::stores::Reading;
use super::{formula_arg, magic_arg, piece_arg, square_arg, Outcome};
use crate::attacks::Occupancies;
use crate::bitboard::side_by_side;
use crate::layout::packed::is_packed;
use crate::layout::{LayoutError, PackedTable, Pattern, Usage};
use crate::magic::{format_magic, verify_pairs_with};
use crate::piece::{Piece, Target};
use crate::pool::file::{is_pool, read_json};
use crate::pool::Pool;
use crate::question::Formula;
use crate::size::kib;
use crate::square::Square;
use crate::table::{parse_claims, Table};

/// Arguments of `verify`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("one").args(["piece", "square", "bits", "magic", "formula"]).multiple(true)))]
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
    /// Index formula: plain `(occ & mask) * magic` (the default) or black
    /// `(occ | !mask) * magic`.
    #[arg(long, value_parser = formula_arg, requires = "piece")]
    formula: Option<Formula>,
    /// Verify every entry of a table file (store, published table, JSON export).
    #[arg(long, conflicts_with = "one")]
    file: Option<PathBuf>,
    /// Verify every entry of this store; with no --file, --store or --piece, the default one
    /// [results/mine.json in a checkout, else your own store in the data folder; when it does
    /// not exist yet, the shipped results/best.json or the table built into magichunt;
    /// MAGICHUNT_STORE names the default].
    #[arg(long, conflicts_with_all = ["one", "file"])]
    store: Option<PathBuf>,
    /// With a table: also list every entry's slots used and span.
    #[arg(long, conflicts_with = "one")]
    per_square: bool,
}

/// Runs `verify`.
pub(super) fn run(args: VerifyArgs) -> anyhow::Result<Outcome> {
    if let Some(path) = args.file {
        return verify_file(&path, args.per_square);
    }
    let (Some(piece), Some(square), Some(bits), Some(magic)) =
        (args.piece, args.square, args.bits, args.magic)
    else {
        return match super::stores::for_reading(args.store.as_deref()) {
            Reading::File(path) => verify_file(&path, args.per_square),
            Reading::BuiltIn => verify_bytes(
                crate::shipped::JSON.as_bytes(),
                std::path::Path::new(crate::shipped::NAME),
                args.per_square,
            ),
        };
    };
    let target = Target::new(piece, square);
    target.check_bits(bits)?;
    let formula = args.formula.unwrap_or_default();
    let occ = Occupancies::new(target);
    let black = if formula == Formula::Black {
        " (black)"
    } else {
        ""
    };
    let head = format!(
        "{target}, {bits} bits, magic {}{black}",
        format_magic(magic)
    );
    match verify_pairs_with(&occ, bits, formula, magic) {
        Ok(v) => {
            println!("{head}: valid");
            println!("  used slots        {} of {}", v.used_slots, 1u64 << bits);
            if formula == Formula::Black {
                println!(
                    "  index range       {} to {} (tight table: {} entries)",
                    v.min_index,
                    v.max_index,
                    v.span()
                );
            } else {
                println!(
                    "  highest index     {} (tight table: {} entries)",
                    v.max_index,
                    v.span()
                );
            }
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

/// `--file`: every entry of a table file (gunzipped when its name ends in `.gz`), and a
/// packed table or a pool as a whole.
fn verify_file(path: &std::path::Path, per_square: bool) -> anyhow::Result<Outcome> {
    let bytes = read_json(path, crate::input::Kind::Other)
        .with_context(|| format!("cannot read {}", path.display()))?;
    verify_bytes(&bytes, path, per_square)
}

/// Every entry of the table text `bytes` (named `path`), then its slots used and spans, and a
/// packed table or a pool as a whole.
fn verify_bytes(bytes: &[u8], path: &std::path::Path, per_square: bool) -> anyhow::Result<Outcome> {
    let claims = parse_claims(bytes, path)?;
    let mut failed = 0;
    for c in &claims {
        let occ = Occupancies::new(c.target);
        let black = if c.formula == Formula::Black {
            " black"
        } else {
            ""
        };
        let what = format!(
            "entry {} ({} {} bits{black} {})",
            c.index,
            c.target,
            c.bits,
            format_magic(c.magic)
        );
        match verify_pairs_with(&occ, c.bits, c.formula, c.magic) {
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
            Ok(v) if c.min_index.is_some_and(|m| m != v.min_index) => {
                failed += 1;
                println!(
                    "{what}: min_index {} in the file, verify gives {}",
                    c.min_index.unwrap_or_default(),
                    v.min_index
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
    if failed > 0 {
        return Ok(Outcome::Failure);
    }
    let table = Table::parse(bytes, path)?;
    if per_square {
        println!("  entry  target     bits  magic                slots   span");
        for (k, e) in table.entries.iter().enumerate() {
            println!(
                "  {k:>5}  {:<10} {:>4}  {}  {:>5}  {:>5}",
                e.target.to_string(),
                e.bits,
                format_magic(e.magic),
                Pattern::of(e).used(),
                e.span()
            );
        }
    }
    let usage = Usage::of(&table.entries);
    println!(
        "  slots used        {} (rooks + bishops); sum of spans {}",
        usage.slots_text(),
        usage.spans.unwrap_or_default()
    );
    if is_pool(&table) {
        let pool = Pool::from_table(table, path)?;
        let counts: Vec<usize> = pool
            .questions()
            .iter()
            .map(|&q| pool.members(q).len())
            .collect();
        println!(
            "  pool              {} magics for {} questions ({} to {} each), gap {}, capacity {}; stated slots and footprints as verify gives",
            pool.len(),
            counts.len(),
            counts.iter().min().unwrap_or(&0),
            counts.iter().max().unwrap_or(&0),
            pool.gap,
            pool.capacity
        );
        return Ok(Outcome::Success);
    }
    if !is_packed(&table) {
        return Ok(Outcome::Success);
    }
    verify_packed(&PackedTable::from_table(&table)?)
}

/// The whole check of a packed table: one shared array filled with every subset of every
/// square; its size must be the one the file declares.
fn verify_packed(packed: &PackedTable) -> anyhow::Result<Outcome> {
    let formula = packed
        .formula()
        .map_or_else(|| "mixed".to_string(), |f| f.to_string());
    let shift = |piece| {
        packed
            .fixed_bits(piece)
            .map_or_else(|| "bits per square".to_string(), |b| format!("{b} bits"))
    };
    let head = format!(
        "packed layout, {} squares, formula {formula}, rooks {}, bishops {}",
        packed.entries.len(),
        shift(Piece::Rook),
        shift(Piece::Bishop)
    );
    match packed.check() {
        Ok(f) => {
            println!("{head}: valid");
            println!(
                "  shared size       {} entries ({} KiB), as the file declares",
                f.size,
                kib(f.size)
            );
            println!(
                "  slots used        {} ({} free inside the array)",
                f.used,
                f.size - f.used
            );
            println!(
                "  shared slots      {} (equal attack sets of two squares)",
                f.shared
            );
            Ok(Outcome::Success)
        }
        Err(e @ LayoutError::Format(_)) => Err(e.into()),
        Err(e) => {
            println!("{head}: INVALID: {e}");
            Ok(Outcome::Failure)
        }
    }
}
