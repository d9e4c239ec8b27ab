//! `magichunt verify`: one magic, or every entry of a table file (and a packed table as a
//! whole).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::stores::Reading;
use super::{formula_arg, magic_arg, piece_arg, square_arg, Outcome};
use crate::piece::{Piece, Target};
use crate::pool::file::read_json;
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

/// Runs `verify`.
pub(super) fn run(args: VerifyArgs) -> anyhow::Result<Outcome> {
    if let Some(path) = &args.file {
        return verify_file(path, &args);
    }
    let (Some(piece), Some(square), Some(bits), Some(magic)) =
        (args.piece, args.square, args.bits, args.magic)
    else {
        return match super::stores::for_reading(args.store.as_deref()) {
            Reading::File(path) => verify_file(&path, &args),
            Reading::BuiltIn => verify_bytes(
                crate::shipped::JSON.as_bytes(),
                std::path::Path::new(crate::shipped::NAME),
                &args,
            ),
        };
    };
    let target = Target::new(piece, square);
    target.check_bits(bits)?;
    let report = MagicReport::check(target, bits, args.formula.unwrap_or_default(), magic);
    print!(
        "{}",
        if args.json {
            report.to_json()
        } else {
            report.render_text()
        }
    );
    Ok(if report.is_valid() {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}

/// `--file`: every entry of a table file (gunzipped when its name ends in `.gz`), and a
/// packed table or a pool as a whole.
fn verify_file(path: &std::path::Path, args: &VerifyArgs) -> anyhow::Result<Outcome> {
    let bytes = read_json(path, crate::input::Kind::Other)
        .with_context(|| format!("cannot read {}", path.display()))?;
    verify_bytes(&bytes, path, args)
}

/// Every entry of the table text `bytes` (named `path`), then its slots used and spans, and a
/// packed table or a pool as a whole.
fn verify_bytes(
    bytes: &[u8],
    path: &std::path::Path,
    args: &VerifyArgs,
) -> anyhow::Result<Outcome> {
    let report = TableReport::check(bytes, path, args.per_square)?;
    print!(
        "{}",
        if args.json {
            report.to_json()
        } else {
            report.render_text()
        }
    );
    Ok(if report.is_valid() {
        Outcome::Success
    } else {
        Outcome::Failure
    })
}
