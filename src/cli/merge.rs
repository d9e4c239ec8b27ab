//! `magichunt merge`: unite stores from several machines into one, letting in only records
//! that hold up (see [`crate::trust::admit`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use super::Outcome;
use crate::input::Kind;
use crate::lock::{real_path, StoreLock};
use crate::prove::certificate::{named, store_dir};
use crate::prove::{certificate_dir, copy_certificates};
use crate::store::Store;
use crate::trust::{self, Admitted, Cache};

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
    for path in &args.inputs {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(m) => anyhow::bail!(
                "refusing to read {}: it is {}, not a regular file",
                path.display(),
                crate::input::describe(&m)
            ),
            Err(_) => anyhow::bail!("no such store: {}", path.display()),
        }
    }
    if super::merge_pool::is_pool_file(&args.inputs[0]) {
        return super::merge_pool::run(&args.inputs, &args.out);
    }
    // --out may be one of the inputs: lock it before reading anything, so no hunt or exhaust
    // writing it meanwhile can lose its update or ours. The lock resolves it to its real file.
    let lock = StoreLock::acquire(&args.out)?;
    super::exhaust::removed_note(&lock);
    let out = lock.store();
    // A packed table (or anything else a store may not replace) is refused before any input
    // is read or checked, with one line.
    crate::output::check(&args.out, crate::output::Writes::Store, &[])?;
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
    let mut cache = Cache::open();
    let mut stores = Vec::new();
    for (path, real) in &inputs {
        anyhow::ensure!(real.is_file(), "no such store: {}", path.display());
        let name = path.display().to_string();
        let store = Store::load(real).with_context(|| format!("cannot merge {name}"))?;
        // What the --out store already holds is its own; every other store's records must
        // hold up before they enter it.
        let mut checked = Admitted::default();
        if real != out {
            checked = trust::admit(
                &store,
                &name,
                store_dir(real),
                &mut cache,
                args.accept_claimed,
            )?;
            certificates_fit(&store, &name, real, out, &mut cache)?;
        }
        stores.push((store, name, real.clone(), checked));
    }
    if out_too {
        crate::say!(
            "magichunt: {} exists and is not among the inputs: merging it in first",
            args.out.display()
        );
    }
    let mut merged: Option<(Store, String)> = None;
    for (store, name, _, _) in &stores {
        merged = Some(match merged {
            None => (store.clone(), name.clone()),
            Some((mut acc, acc_name)) => {
                acc.merge(store.clone(), &acc_name, name)?;
                (acc, format!("{acc_name} + {name}"))
            }
        });
    }
    let (store, _) = merged.context("no input store")?;
    // Nothing is written before every input was let in and the merge holds together.
    for (input, name, real, checked) in &stores {
        // The merged store must find every certificate it names beside it: the very bytes
        // that were checked.
        let copied = copy_certificates(input, real, out, &checked.certificates)
            .with_context(|| format!("cannot merge {name}"))?;
        if copied > 0 {
            crate::say!(
                "{name}: copied {copied} certificates to {}",
                certificate_dir(out).display()
            );
        }
    }
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
    // What came in as a claim (a part whose residue fits but that nobody here re-ran) is
    // kept, and said: it is not counted and decides no work until an audit checks it.
    let mut vetted = store;
    trust::vet(&mut vetted, store_dir(out), &mut cache);
    let claimed: Vec<String> = vetted
        .proofs()
        .filter(|p| !vetted.provenance(p).is_checked())
        .filter(|p| vetted.claimed_only(p.question()).is_some())
        .map(|p| p.question().to_string())
        .collect();
    if let Some(first) = claimed.first() {
        crate::say!(
            "magichunt: {} holds {} proof{} only claimed ({first}{}): not counted, and deciding no work, until `magichunt audit --store {}` checks {}",
            args.out.display(),
            claimed.len(),
            if claimed.len() == 1 { "" } else { "s" },
            if claimed.len() > 1 { ", ..." } else { "" },
            args.out.display(),
            if claimed.len() == 1 { "it" } else { "them" }
        );
    }
    Ok(Outcome::Success)
}

/// Checks that every certificate `store` (read from `from`) names will be the right one
/// beside `to`: either it is not there yet (it is copied, and it checked where it is), or the
/// file there is the same, or it checks too. A different file that does not check would give
/// the merged store a proof whose certificate fails.
fn certificates_fit(
    store: &Store,
    name: &str,
    from: &Path,
    to: &Path,
    cache: &mut Cache,
) -> anyhow::Result<()> {
    let (src_dir, dst_dir) = (store_dir(from), store_dir(to));
    for n in named(store) {
        let (src, dst) = (src_dir.join(&n.certificate), dst_dir.join(&n.certificate));
        if !dst.exists() {
            continue;
        }
        let same = cache.file_sha256(&src, Kind::Certificate).ok()
            == cache.file_sha256(&dst, Kind::Certificate).ok();
        if !same {
            trust::check_named(&n, dst_dir, cache).map_err(|why| {
                anyhow::anyhow!(
                    "cannot merge {name}: {} already holds another certificate for {}, and it fails: {why}",
                    dst.display(),
                    n.question
                )
            })?;
        }
    }
    Ok(())
}
