//! `magichunt merge`: unite stores from several machines into one.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::lock::StoreLock;
use crate::prove::{certificate_dir, copy_certificates};
use crate::store::Store;

/// Arguments of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The stores to merge, in order.
    #[arg(required = true, num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// Where to write the merged store (may be one of the inputs).
    #[arg(long)]
    out: PathBuf,
}

/// Runs `merge`.
pub(super) fn run(args: &MergeArgs) -> anyhow::Result<Outcome> {
    for path in &args.inputs {
        anyhow::ensure!(path.is_file(), "no such store: {}", path.display());
    }
    // --out may be one of the inputs: lock it before reading anything, so no hunt or exhaust
    // writing it meanwhile can lose its update or ours. The lock resolves it to its real file.
    let lock = StoreLock::acquire(&args.out)?;
    super::exhaust::removed_note(&lock);
    let mut merged: Option<(Store, String)> = None;
    for path in &args.inputs {
        anyhow::ensure!(path.is_file(), "no such store: {}", path.display());
        let name = path.display().to_string();
        let store = Store::load(path).with_context(|| format!("cannot merge {name}"))?;
        // The merged store must find every certificate it names beside it.
        let copied = copy_certificates(&store, path, lock.store())
            .with_context(|| format!("cannot merge {name}"))?;
        if copied > 0 {
            eprintln!(
                "{name}: copied {copied} certificates to {}",
                certificate_dir(lock.store()).display()
            );
        }
        merged = Some(match merged {
            None => (store, name),
            Some((mut acc, acc_name)) => {
                acc.merge(store, &acc_name, &name)?;
                (acc, format!("{acc_name} + {name}"))
            }
        });
    }
    let (store, _) = merged.context("no input store")?;
    store.save(lock.store())?;
    let parts: Vec<String> = store
        .exhausts()
        .map(|x| {
            let done = x.parts.values().filter(|p| p.done).count();
            format!(
                "{} at {} bits: {done}/{} parts done",
                x.target, x.bits, x.shards
            )
        })
        .collect();
    println!(
        "merged {} stores into {}: {} entries, {} proofs, {} exhaustive searches",
        args.inputs.len(),
        args.out.display(),
        store.entries().count(),
        store.proofs().count(),
        parts.len()
    );
    for line in parts {
        println!("  {line}");
    }
    Ok(Outcome::Success)
}
