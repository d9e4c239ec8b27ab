//! `magichunt show`: what is known about one square.

use clap::Args;

use super::{piece_arg, square_arg, Outcome};
use crate::attacks::Occupancies;
use crate::magic::format_magic;
use crate::piece::{Piece, Target};
use crate::published;
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
}

/// Runs `show`.
pub(super) fn run(args: &ShowArgs) -> anyhow::Result<Outcome> {
    let target = Target::new(args.piece, args.square);
    let occ = Occupancies::new(target);
    println!("{target}: relevant-occupancy mask");
    print!("{}", occ.mask);
    println!("mask popcount       {}", occ.mask.count());
    println!("blocker subsets     {}", occ.pairs.len());
    println!("distinct attacks    {}", occ.distinct_attacks());
    println!(
        "lower bound         {} bits (ceil log2 of distinct attack sets)",
        occ.lower_bound_bits()
    );
    match published::best(target) {
        Some(e) => println!(
            "best published      {} bits, magic {}, highest index {}, found by {}",
            e.bits,
            format_magic(e.magic),
            e.max_index,
            published::finder(e)
        ),
        None => println!("best published      none"),
    }
    if let Some(p) = published::proof(target) {
        let source = p
            .extra
            .get("source")
            .and_then(|v| v.as_str())
            .unwrap_or("unknown source");
        println!("proven impossible   {} bits or fewer ({source})", p.bits);
    }
    Ok(Outcome::Success)
}
