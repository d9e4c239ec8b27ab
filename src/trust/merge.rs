//! `magichunt merge` in one call, [`merge`]: stores from several machines united into one,
//! letting in only records that hold up ([`super::admit`]), with the certificates they name
//! copied beside the result; pool files merge with pools ([`crate::pool::merge`]).

use std::path::{Path, PathBuf};

use super::{admit, check_named, vet, Admitted, Cache, Refused};
use crate::error::TableError;
use crate::fs::input::Kind;
use crate::fs::lock::{LockError, StoreLock};
use crate::fs::output::{OutputError, Writes};
use crate::fs::real_path;
use crate::pool::merge::{is_pool_input, merge_files, PoolMergeError, PoolsMerged};
use crate::progress::Progress;
use crate::prove::certificate::{named, store_dir};
use crate::prove::{certificate_dir, copy_certificates, ProveError};
use crate::store::Store;

/// What `magichunt merge` merges.
#[derive(Clone, Debug)]
pub struct MergeConfig {
    /// The stores (or pool files) to merge, in order.
    pub inputs: Vec<PathBuf>,
    /// Where to write the result (may be one of the inputs; an existing store that is not is
    /// merged in first, never overwritten).
    pub out: PathBuf,
    /// Let in finished exhaustive parts without a residue and proofs without evidence, kept
    /// as claims (never counted). Records whose evidence is there but wrong are refused all
    /// the same.
    pub accept_claimed: bool,
    /// Merge in the table built into magichunt too (a copy of the repository's
    /// `results/best.json` when it was built), after the inputs: how a store started from an
    /// older shipped table gains the newer one's records. Its proofs are this build's own,
    /// as in a store started from it.
    pub shipped: bool,
}

/// Why a merge could not be made; nothing is written then.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// An input does not exist.
    #[error("no such store: {0}")]
    Missing(PathBuf),
    /// An input is not a regular file.
    #[error("refusing to read {path}: it is {what}, not a regular file")]
    NotRegular {
        /// The input as named.
        path: PathBuf,
        /// `a FIFO (named pipe)`, `a folder`, ...
        what: &'static str,
    },
    /// The output is locked by another process, or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The output may not be replaced by a store.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An input cannot be read, or its certificates copied.
    #[error("cannot merge {name}")]
    Input {
        /// The input as named.
        name: String,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No input.
    #[error("no input store")]
    NoInput,
    /// The built-in table was asked to merge with pool files.
    #[error("--shipped merges the built-in store with stores, not with pool files")]
    ShippedWithPools,
    /// A record of an input does not hold up.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// A certificate at the output would not be the one an input's proof names.
    #[error("{0}")]
    Certificate(String),
    /// The stores contradict each other.
    #[error(transparent)]
    Conflict(#[from] TableError),
    /// The merged store could not be saved.
    #[error(transparent)]
    Save(#[from] crate::error::SaveError),
    /// Pools.
    #[error(transparent)]
    Pools(#[from] PoolMergeError),
}

/// What [`merge`] made.
#[derive(Clone, Debug)]
pub enum Merged {
    /// Stores merged.
    Stores {
        /// Stores merged (the output's own first, when it existed and was not an input).
        stores: usize,
        /// The output as named.
        out: PathBuf,
        /// The merged store.
        store: Box<Store>,
    },
    /// Pools merged.
    Pools(PoolsMerged),
}

impl Merged {
    /// What `magichunt merge` prints on stdout.
    #[must_use]
    pub fn render_text(&self) -> String {
        let (stores, out, store) = match self {
            Merged::Pools(p) => return p.render_text(),
            Merged::Stores { stores, out, store } => (stores, out, store),
        };
        let parts: Vec<String> = store
            .exhausts()
            .map(|x| {
                let done = x.parts.values().filter(|p| p.done).count();
                format!(
                    "  {} at {} bits: {done}/{} parts done\n",
                    x.target, x.bits, x.shards
                )
            })
            .collect();
        format!(
            "merged {stores} stores into {}: {} entries, {} proofs, {} exhaustive searches\n{}",
            out.display(),
            store.entries().count(),
            store.proofs().count(),
            parts.len(),
            parts.concat()
        )
    }
}

/// Merges as `cfg` says (pools when the first input is a pool file): every input is read and
/// let in first, then the result is written under the output's lock, with the certificates
/// its proofs name copied beside it. Notes go to `progress`.
///
/// # Errors
/// [`MergeError`]: a missing or unreadable input, a record that does not hold up, a
/// contradiction, an output locked, refused or not written.
pub fn merge(cfg: &MergeConfig, progress: &mut dyn Progress) -> Result<Merged, MergeError> {
    for path in &cfg.inputs {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(m) => {
                return Err(MergeError::NotRegular {
                    path: path.clone(),
                    what: crate::fs::input::describe(&m),
                })
            }
            Err(_) => return Err(MergeError::Missing(path.clone())),
        }
    }
    if cfg.inputs.first().is_some_and(|p| is_pool_input(p)) {
        if cfg.shipped {
            return Err(MergeError::ShippedWithPools);
        }
        return Ok(Merged::Pools(merge_files(&cfg.inputs, &cfg.out, progress)?));
    }
    // The output may be one of the inputs: lock it before reading anything, so no hunt or
    // exhaust writing it meanwhile can lose its update or ours. The lock resolves it to its
    // real file.
    // A packed table (or anything else a store may not replace) is refused as the lock is
    // taken, before any input is read or checked, with one line.
    let lock = StoreLock::acquire(&cfg.out, Writes::Store)?;
    lock.note_removed(progress);
    let out = lock.store();
    let mut cache = Cache::open();
    let stores = read_inputs(cfg, out, &mut cache, progress)?;
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
    let Some((mut store, _)) = merged else {
        return Err(MergeError::NoInput);
    };
    // The merged store's top-level fields are decided here, not carried over from whichever
    // input came first: the output's own when it is a store being updated (merged into, or
    // one of the inputs), else none. An input's `source` or `author` describes that input.
    store.set_meta(
        stores
            .iter()
            .find(|(_, _, real, _)| real.as_deref() == Some(out))
            .map(|(s, ..)| s.meta().clone())
            .unwrap_or_default(),
    );
    // Nothing is written before every input was let in and the merge holds together.
    for (input, name, real, checked) in &stores {
        // The built-in table's certificates are not built in: its proofs stand as this
        // build's own, as in a store started from it.
        let Some(real) = real else { continue };
        // The merged store must find every certificate it names beside it: the very bytes
        // that were checked.
        let copied = copy_certificates(input, real, out, &checked.certificates).map_err(
            |e: ProveError| MergeError::Input {
                name: name.clone(),
                source: Box::new(e),
            },
        )?;
        if copied > 0 {
            progress.note(&format!(
                "{name}: copied {copied} certificates to {}",
                certificate_dir(out).display()
            ));
        }
    }
    store.save_locked(&lock)?;
    note_claimed(&store, cfg, out, &mut cache, progress);
    Ok(Merged::Stores {
        stores: stores.len(),
        out: cfg.out.clone(),
        store: Box::new(store),
    })
}

/// An input store as [`read_inputs`] gives it: the store, its name, its real file (`None` for
/// the built-in table) and what of it was let in.
type Input = (Store, String, Option<PathBuf>, Admitted);

/// Every input store (with an existing output that is not an input first: its top-level
/// fields win, and nothing it held is lost), read and, but for the output's own, let in;
/// the built-in table last when `cfg.shipped` asks for it.
fn read_inputs(
    cfg: &MergeConfig,
    out: &Path,
    cache: &mut Cache,
    progress: &mut dyn Progress,
) -> Result<Vec<Input>, MergeError> {
    let mut inputs = Vec::new();
    for path in &cfg.inputs {
        let real = real_path(path).map_err(|e| MergeError::Input {
            name: path.display().to_string(),
            source: Box::new(e),
        })?;
        inputs.push((path.clone(), real));
    }
    let out_too = out.exists() && !inputs.iter().any(|(_, real)| real == out);
    if out_too {
        inputs.insert(0, (cfg.out.clone(), out.to_path_buf()));
    }
    let mut stores = Vec::new();
    for (path, real) in &inputs {
        if !real.is_file() {
            return Err(MergeError::Missing(path.clone()));
        }
        let name = path.display().to_string();
        let store = Store::load(real).map_err(|e| MergeError::Input {
            name: name.clone(),
            source: Box::new(e),
        })?;
        // What the output store already holds is its own; every other store's records must
        // hold up before they enter it.
        let mut checked = Admitted::default();
        if real != out {
            checked = admit(&store, &name, store_dir(real), cache, cfg.accept_claimed)?;
            certificates_fit(&store, &name, real, out, cache)?;
        }
        stores.push((store, name, Some(real.clone()), checked));
    }
    if cfg.shipped {
        let shipped = crate::shipped::store();
        stores.push((
            shipped.clone(),
            crate::shipped::NAME.to_string(),
            None,
            Admitted::default(),
        ));
    }
    if out_too {
        progress.note(&format!(
            "magichunt: {} exists and is not among the inputs: merging it in first",
            cfg.out.display()
        ));
    }
    Ok(stores)
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
) -> Result<(), MergeError> {
    let (src_dir, dst_dir) = (store_dir(from), store_dir(to));
    for n in named(store) {
        let (src, dst) = (src_dir.join(&n.certificate), dst_dir.join(&n.certificate));
        if !dst.exists() {
            continue;
        }
        let same = cache.file_sha256(&src, Kind::Certificate).ok()
            == cache.file_sha256(&dst, Kind::Certificate).ok();
        if !same {
            check_named(&n, dst_dir, cache).map_err(|why| {
                MergeError::Certificate(format!(
                    "cannot merge {name}: {} already holds another certificate for {}, and it fails: {why}",
                    dst.display(),
                    n.question
                ))
            })?;
        }
    }
    Ok(())
}

/// What came in as a claim (a part whose residue fits but that nobody here re-ran) is kept,
/// and said to `progress`: it is not counted and decides no work until an audit checks it.
fn note_claimed(
    store: &Store,
    cfg: &MergeConfig,
    out: &Path,
    cache: &mut Cache,
    progress: &mut dyn Progress,
) {
    let mut vetted = store.clone();
    vet(&mut vetted, store_dir(out), cache);
    let claimed: Vec<String> = vetted
        .proofs()
        .filter(|p| !vetted.provenance(p).is_checked())
        .filter(|p| vetted.claimed_only(p.question()).is_some())
        .map(|p| p.question().to_string())
        .collect();
    if let Some(first) = claimed.first() {
        progress.note(&format!(
            "magichunt: {} holds {} proof{} only claimed ({first}{}): not counted, and deciding no work, until `magichunt audit --store {}` checks {}",
            cfg.out.display(),
            claimed.len(),
            if claimed.len() == 1 { "" } else { "s" },
            if claimed.len() > 1 { ", ..." } else { "" },
            cfg.out.display(),
            if claimed.len() == 1 { "it" } else { "them" }
        ));
    }
}
