//! `magichunt merge` of pools: the union of pool files from several runs or machines, every
//! slot pattern kept ([`Pool::merge`]).

use std::path::{Path, PathBuf};

use super::file::{is_gz, reader, KIND};
use super::Pool;
use crate::error::TableError;
use crate::fs::input::Kind;
use crate::fs::lock::{LockError, StoreLock};
use crate::fs::real_path;
use crate::progress::Progress;

/// Why pools could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum PoolMergeError {
    /// The output is locked by another process, or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// An input cannot be resolved or read, or is not a pool.
    #[error("cannot merge {path}")]
    Input {
        /// The input as named.
        path: PathBuf,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An input is not a pool.
    #[error("cannot merge {0}: not a pool (pools merge with pools, stores with stores)")]
    NotAPool(PathBuf),
    /// No input.
    #[error("no input pool")]
    NoInput,
    /// The merged pool could not be written.
    #[error("cannot write {path}")]
    Save {
        /// The output.
        path: PathBuf,
        /// Why.
        source: crate::fs::output::OutputError,
    },
}

/// What [`merge_files`] made.
#[derive(Clone, Debug)]
pub struct PoolsMerged {
    /// Pools merged (the output's own first, when it existed and was not an input).
    pub pools: usize,
    /// Magics in them, in all.
    pub magics: usize,
    /// The output as named.
    pub out: PathBuf,
    /// The merged pool.
    pub pool: Pool,
}

impl PoolsMerged {
    /// What `magichunt merge` prints on stdout.
    #[must_use]
    pub fn render_text(&self) -> String {
        format!(
            "merged {} pools ({} magics) into {}: {} magics with distinct slot patterns, {} questions, gap {}, capacity {}\n",
            self.pools,
            self.magics,
            self.out.display(),
            self.pool.len(),
            self.pool.questions().len(),
            self.pool.gap,
            self.pool.capacity
        )
    }
}

/// Whether `merge` takes `path` as a pool: a `.gz` file (only pools are kept compressed, so
/// the pool merge says what is wrong with one that does not read as a pool: not gzip, past
/// the size cap, not a pool) or a file that reads as one ([`is_pool_file`]).
#[must_use]
pub fn is_pool_input(path: &Path) -> bool {
    is_gz(path) || is_pool_file(path)
}

/// Whether `path` holds a pool file (`"kind": "pool"`, gzip-compressed or not), read
/// streaming. A file that cannot be read or parsed is not a pool here: the store merge
/// reports it.
#[must_use]
pub fn is_pool_file(path: &Path) -> bool {
    #[derive(serde::Deserialize)]
    struct KindOnly {
        kind: Option<String>,
    }
    reader(path, Kind::Probe)
        .ok()
        .and_then(|r| serde_json::from_reader::<_, KindOnly>(r).ok())
        .is_some_and(|k| k.kind.as_deref() == Some(KIND))
}

/// Merges the pools `inputs` (and an existing `out` that is not among them, first, said to
/// `progress`) into `out`, ranked by the gap of the first, under `out`'s lock.
///
/// # Errors
/// [`PoolMergeError`]: an input that is not a pool or cannot be read, an output locked or not
/// written.
pub fn merge_files(
    inputs: &[PathBuf],
    out: &Path,
    progress: &mut dyn Progress,
) -> Result<PoolsMerged, PoolMergeError> {
    let lock = StoreLock::acquire(out, crate::fs::output::Writes::Pool)?;
    let out_real = lock.store().to_path_buf();
    let input = |path: &Path| {
        let path = path.to_path_buf();
        move |e: TableError| PoolMergeError::Input {
            path,
            source: Box::new(e),
        }
    };
    let mut paths: Vec<(PathBuf, PathBuf)> = Vec::new();
    for path in inputs {
        let real = real_path(path).map_err(|e| PoolMergeError::Input {
            path: path.clone(),
            source: Box::new(e),
        })?;
        paths.push((path.clone(), real));
    }
    if out_real.exists() && !paths.iter().any(|(_, r)| *r == out_real) {
        progress.note(&format!(
            "magichunt: {} exists and is not among the inputs: merging it in first",
            out.display()
        ));
        paths.insert(0, (out.to_path_buf(), out_real.clone()));
    }
    let mut merged: Option<Pool> = None;
    let mut magics = 0;
    for (path, real) in &paths {
        if !is_pool_input(real) {
            return Err(PoolMergeError::NotAPool(path.clone()));
        }
        let pool = Pool::read(real).map_err(input(path))?;
        magics += pool.len();
        match &mut merged {
            None => merged = Some(pool),
            Some(acc) => acc.merge(pool),
        }
    }
    let pool = merged.ok_or(PoolMergeError::NoInput)?;
    pool.save_locked(&lock)
        .map_err(|source| PoolMergeError::Save {
            path: out.to_path_buf(),
            source,
        })?;
    Ok(PoolsMerged {
        pools: paths.len(),
        magics,
        out: out.to_path_buf(),
        pool,
    })
}
