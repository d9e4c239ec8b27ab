//! `magichunt show`: what is known about one square: its geometry, the published record,
//! and the store's magic with whether its bits are proven optimal.

use std::path::PathBuf;

use clap::Args;

use super::{piece_arg, square_arg, Outcome};
use crate::attacks::Occupancies;
use crate::magic::format_magic;
use crate::piece::{Piece, Target};
use crate::published;
use crate::question::Formula;
use crate::square::Square;
use crate::store::{optimal_if_claims_hold, proven_optimal};

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
    let from = super::stores::for_reading(args.store.as_deref());
    if from.missing() {
        anyhow::bail!("no store at {} (a mistyped --store?)", from.name());
    }
    let store = super::stores::load_counting(&from, false)?;
    let name = from.name();
    let Some(e) = store.best(target) else {
        println!("in the store        none ({name})");
        return Ok(Outcome::Success);
    };
    let how = e
        .method
        .as_ref()
        .map_or_else(String::new, |m| format!(", found by {}", m.family));
    println!(
        "in the store        {} bits, magic {}, highest index {}{how} ({name})",
        e.bits,
        format_magic(e.magic),
        e.max_index
    );
    let own = store
        .proofs()
        .find(|p| p.target == target && p.formula == Formula::Plain);
    let verdict = if proven_optimal(&store, target, e.bits) {
        match own.filter(|p| p.bits + 1 == e.bits) {
            Some(p) => format!(
                "yes: no magic at {} bits ({})",
                p.bits,
                p.method.as_deref().unwrap_or("the store's proof")
            ),
            None if e.bits == occ.lower_bound_bits() => "yes: at the lower bound".to_string(),
            None => format!("yes: no magic at {} bits (published proof)", e.bits - 1),
        }
    } else if let Some(p) =
        own.filter(|p| p.bits + 1 == e.bits && optimal_if_claims_hold(&store, target, e.bits))
    {
        format!(
            "claimed: the store records no magic at {} bits ({}), not checked here (`magichunt audit` or `prove --check-certificates` on a checkout's store checks it)",
            p.bits,
            p.method.as_deref().unwrap_or("the store's proof")
        )
    } else {
        format!("not known: nobody has settled {} bits", e.bits - 1)
    };
    println!("proven optimal      {verdict}");
    Ok(Outcome::Success)
}
