//! `magichunt show`: what is known about one square: its geometry, the published record,
//! and the store's magic with whether its bits are proven optimal.

use std::path::PathBuf;

use clap::Args;

use super::{piece_arg, square_arg, Outcome};
use crate::compare::show;
use crate::piece::{Piece, Target};
use crate::progress::Lines;
use crate::square::Square;

/// Arguments of `show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// rook or bishop.
    #[arg(long, value_parser = piece_arg)]
    piece: Piece,
    /// a1..h8 or 0..63.
    #[arg(long, value_parser = square_arg)]
    square: Square,
    /// The results store whose magic and proofs are shown [default: results/mine.json in a
    /// checkout, else your own store in the data folder; when it does not exist yet, the
    /// shipped results/best.json or the table built into magichunt; MAGICHUNT_STORE names the
    /// default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Print one JSON document instead of the text (described in docs/format.md).
    #[arg(long)]
    json: bool,
}

/// Runs `show`.
pub(super) fn run(args: &ShowArgs) -> anyhow::Result<Outcome> {
    let target = Target::new(args.piece, args.square);
    let report = show(args.store.as_deref(), target, &mut Lines::new(None))?;
    if args.json {
        super::out::json(&report.to_json())?;
    } else {
        super::out::text(&report.render_text())?;
    }
    Ok(Outcome::Success)
}
