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
    #[arg(required = true, num_args = 1..)]
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
}

/// Runs `merge`.
pub(super) fn run(args: &MergeArgs) -> anyhow::Result<Outcome> {
    let cfg = MergeConfig {
        inputs: args.inputs.clone(),
        out: args.out.clone(),
        accept_claimed: args.accept_claimed,
    };
    print!("{}", merge(&cfg, &mut Lines::new(None))?.render_text());
    Ok(Outcome::Success)
}
