//! `magichunt merge`: unite stores from several machines into one.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::lock::{real_path, StoreLock};
use crate::prove::{certificate_dir, copy_certificates};
use crate::store::Store;

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
}

/// Runs `merge`.
pub(super) fn run(args: &MergeArgs) -> anyhow::Result<Outcome> {
    for path in &args.inputs {
        anyhow::ensure!(path.is_file(), "no such store: {}", path.display());
    }
    if super::merge_pool::is_pool_file(&args.inputs[0]) {
        return super::merge_pool::run(&args.inputs, &args.out);
    }
    // --out may be one of the inputs: lock it before reading anything, so no hunt or exhaust
    // writing it meanwhile can lose its update or ours. The lock resolves it to its real file.
    let lock = StoreLock::acquire(&args.out)?;
    super::exhaust::removed_note(&lock);
    let out = lock.store();
    let mut inputs = Vec::new();
    for path in &args.inputs {
        let real = real_path(path).with_context(|| format!("cannot merge {}", path.display()))?;
        inputs.push((path.clone(), real));
    }
    // An existing --out that is not an input holds results too: it is merged in first (its
    // top-level fields win), so that nothing it held is lost. One that cannot be read stops
    // the merge, like any input.
    let out_too = out.exists() && !inputs.iter().any(|(_, real)| real == out);
    if out_too {
        inputs.insert(0, (args.out.clone(), out.to_path_buf()));
    }
    let mut stores = Vec::new();
    for (path, real) in &inputs {
        anyhow::ensure!(real.is_file(), "no such store: {}", path.display());
        let name = path.display().to_string();
        let store = Store::load(real).with_context(|| format!("cannot merge {name}"))?;
        // The merged store must find every certificate it names beside it.
        let copied =
            copy_certificates(&store, real, out).with_context(|| format!("cannot merge {name}"))?;
        if copied > 0 {
            crate::say!(
                "{name}: copied {copied} certificates to {}",
                certificate_dir(out).display()
            );
        }
        stores.push((store, name));
    }
    if out_too {
        crate::say!(
            "magichunt: {} exists and is not among the inputs: merging it in first",
            args.out.display()
        );
    }
    let mut merged: Option<(Store, String)> = None;
    for (store, name) in stores {
        merged = Some(match merged {
            None => (store, name),
            Some((mut acc, acc_name)) => {
                acc.merge(store, &acc_name, &name)?;
                (acc, format!("{acc_name} + {name}"))
            }
        });
    }
    let (store, _) = merged.context("no input store")?;
    store.save(out)?;
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
        inputs.len(),
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
