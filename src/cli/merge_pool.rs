//! `magichunt merge` of pools: the union of pool files from several runs or machines, every
//! slot pattern kept (`Pool::merge`).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::Outcome;
use crate::input::Kind;
use crate::lock::{real_path, StoreLock};
use crate::pool::file::{reader, KIND};
use crate::pool::Pool;

/// Whether `path` holds a pool file (`"kind": "pool"`, gzip-compressed or not), read
/// streaming. A file that cannot be read or parsed is not a pool here: the store merge
/// reports it.
#[must_use]
pub(super) fn is_pool_file(path: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct KindOnly {
        kind: Option<String>,
    }
    reader(path, Kind::Probe)
        .ok()
        .and_then(|r| serde_json::from_reader::<_, KindOnly>(r).ok())
        .is_some_and(|k| k.kind.as_deref() == Some(KIND))
}

/// Merges the pools `inputs` (and an existing `out` that is not among them, first) into
/// `out`, ranked by the gap of the first.
pub(super) fn run(inputs: &[PathBuf], out: &Path) -> anyhow::Result<Outcome> {
    let lock = StoreLock::acquire(out)?;
    let out_real = lock.store().to_path_buf();
    let mut paths: Vec<(PathBuf, PathBuf)> = Vec::new();
    for path in inputs {
        let real = real_path(path).with_context(|| format!("cannot merge {}", path.display()))?;
        paths.push((path.clone(), real));
    }
    if out_real.exists() && !paths.iter().any(|(_, r)| *r == out_real) {
        crate::say!(
            "magichunt: {} exists and is not among the inputs: merging it in first",
            out.display()
        );
        paths.insert(0, (out.to_path_buf(), out_real.clone()));
    }
    let mut merged: Option<Pool> = None;
    let mut magics = 0;
    for (path, real) in &paths {
        anyhow::ensure!(
            is_pool_file(real),
            "cannot merge {}: not a pool (pools merge with pools, stores with stores)",
            path.display()
        );
        let pool = Pool::read(real).with_context(|| format!("cannot merge {}", path.display()))?;
        magics += pool.len();
        match &mut merged {
            None => merged = Some(pool),
            Some(acc) => acc.merge(pool),
        }
    }
    let pool = merged.context("no input pool")?;
    pool.save(&out_real)
        .with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "merged {} pools ({magics} magics) into {}: {} magics with distinct slot patterns, {} questions, gap {}, capacity {}",
        paths.len(),
        out.display(),
        pool.len(),
        pool.questions().len(),
        pool.gap,
        pool.capacity
    );
    Ok(Outcome::Success)
}
