//! `magichunt merge`: unite stores from several machines into one, letting in only records
//! that hold up (see [`crate::trust::admit`]).

use std::path::PathBuf;

use clap::Args;

use super::Outcome;
use crate::progress::Lines;
use crate::trust::{merge, MergeConfig};

/// Arguments of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The stores to merge, in order (or pool files, which merge with pools only).
    #[arg(required_unless_present = "shipped")]
    inputs: Vec<PathBuf>,
    /// Where to write the merged store (may be one of the inputs; an existing store that is
    /// not is merged in first, never overwritten).
    #[arg(long)]
    out: PathBuf,
    /// Let in finished exhaustive parts without a residue and proofs without evidence (from
    /// stores written before evidence): they are kept as claims, shown as such and never
    /// counted. Records whose evidence is there but wrong are refused all the same.
    #[arg(long)]
    accept_claimed: bool,
    /// Merge in the table built into magichunt too (its results/best.json): how a store
    /// started from an older magichunt gains the records this one ships. `merge --shipped
    /// --out STORE` alone brings them into STORE.
    #[arg(long)]
    shipped: bool,
}

/// Runs `merge`.
pub(super) fn run(args: &MergeArgs) -> anyhow::Result<Outcome> {
    let cfg = MergeConfig {
        inputs: args.inputs.clone(),
        out: args.out.clone(),
        accept_claimed: args.accept_claimed,
        shipped: args.shipped,
    };
    super::out::text(&merge(&cfg, &mut Lines::new(None))?.render_text())?;
    Ok(Outcome::Success)
}
