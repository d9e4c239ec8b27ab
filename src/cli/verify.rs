//! `magichunt verify`: one magic, or every entry of a table file (and a packed table as a
//! whole).

use std::path::PathBuf;

use clap::Args;

use super::{formula_arg, magic_arg, piece_arg, square_arg, Outcome};
use crate::piece::{Piece, Target};
use crate::progress::Lines;
use crate::question::Formula;
use crate::square::Square;
use crate::verify::{MagicReport, TableReport};

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
    /// Print one JSON document instead of the text (described in docs/format.md).
    #[arg(long)]
    json: bool,
}

/// Runs `verify`: exit 0 when the magic or every entry holds, 1 when one does not.
pub(super) fn run(args: VerifyArgs) -> anyhow::Result<Outcome> {
    let (text, valid) = match (args.piece, args.square, args.bits, args.magic) {
        (Some(piece), Some(square), Some(bits), Some(magic)) => {
            let target = Target::new(piece, square);
            target.check_bits(bits)?;
            let formula = args.formula.unwrap_or_default();
            let report = MagicReport::check(target, bits, formula, magic);
            let text = if args.json {
                report.to_json()
            } else {
                report.render_text()
            };
            (text, report.is_valid())
        }
        _ => {
            let (file, store) = (args.file.as_deref(), args.store.as_deref());
            let report = TableReport::read(file, store, args.per_square, &mut Lines::new(None))?;
            let text = if args.json {
                report.to_json()
            } else {
                report.render_text()
            };
            (text, report.is_valid())
        }
    };
    if args.json {
        super::out::json(&text)?;
    } else {
        super::out::text(&text)?;
    }
    Ok(if valid {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}
