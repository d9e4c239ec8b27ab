//! Which store a command works on when `--store` is not given.
//!
//! The shipped store (`results/best.json`) is a curated result that git tracks: a user's own
//! runs must not rewrite it, or a clean checkout stops being clean after the README's first
//! command. So the default store is `results/mine.json` (ignored by git). A command that
//! writes (hunt, exhaust, prove) starts it, on first use, as a copy of the shipped store, so it
//! resumes from every magic and proof shipped; a command that only reads (compare, export,
//! pack) reads it when it exists and the shipped store otherwise. `--store results/best.json`
//! names the shipped store on purpose.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// The default `--store`: the user's own store, not tracked by git.
pub const DEFAULT_STORE: &str = "results/mine.json";

/// The store the repository ships.
pub const SHIPPED_STORE: &str = "results/best.json";

/// Whether `store` is the default (the flag was not given, or given as the default).
fn is_default(store: &Path) -> bool {
    store == Path::new(DEFAULT_STORE)
}

/// The store a reading command reads: the default one when it exists, else the shipped one.
#[must_use]
pub fn for_reading(store: &Path) -> PathBuf {
    if is_default(store) && !store.exists() && Path::new(SHIPPED_STORE).exists() {
        PathBuf::from(SHIPPED_STORE)
    } else {
        store.to_path_buf()
    }
}

/// Before a writing command: when `store` is the default and does not exist yet, start it as
/// a copy of the shipped store (written atomically) and say so on stderr.
///
/// # Errors
/// The shipped store cannot be read, or the copy cannot be written.
pub fn for_writing(store: &Path) -> anyhow::Result<()> {
    let shipped = Path::new(SHIPPED_STORE);
    if !is_default(store) || store.exists() || !shipped.exists() {
        return Ok(());
    }
    let bytes = std::fs::read(shipped).with_context(|| format!("reading {SHIPPED_STORE}"))?;
    crate::output::write(store, &bytes, crate::output::Writes::Store, &[])
        .with_context(|| format!("starting {DEFAULT_STORE} from {SHIPPED_STORE}"))?;
    crate::say!(
        "magichunt: started {DEFAULT_STORE} from the shipped {SHIPPED_STORE} (your runs go there; \
         git does not track it)"
    );
    Ok(())
}

/// Loads the store at `path` for a command that counts its proofs (`compare`, `export`):
/// their evidence checked ([`crate::trust::vet`], with the user's cache), each failing check
/// said on stderr, and the count set to take checked proofs only, or every recorded proof
/// with `count_claimed`. A missing file is an empty store.
///
/// # Errors
/// When the store cannot be loaded.
pub fn load_counting(path: &Path, count_claimed: bool) -> anyhow::Result<crate::store::Store> {
    let mut store = crate::store::Store::load(path)?;
    if path.exists() {
        let mut cache = crate::trust::Cache::open();
        for p in crate::trust::vet_file(&mut store, path, &mut cache).problems {
            crate::say!(
                "magichunt: {}: a proof does not hold, so it is not counted: {p}",
                path.display()
            );
        }
    }
    if count_claimed {
        store.set_counting(crate::store::Counting::Claimed);
    }
    Ok(store)
}
