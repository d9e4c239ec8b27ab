//! Which store a command works on when `--store` is not given.
//!
//! **Inside a checkout** (the current folder is the root of a magichunt repository: it holds
//! `results/best.json` and a `Cargo.toml` whose package is `magichunt`), the shipped store
//! `results/best.json` is a curated result that git tracks: a user's own runs must not
//! rewrite it, or a clean checkout stops being clean after the README's first command. So the
//! default store is `results/mine.json` (ignored by git). A command that writes (hunt,
//! exhaust, prove) starts it, on first use, as a copy of the shipped store, so it resumes from
//! every magic and proof shipped; a command that only reads (compare, export, pack, show,
//! verify) reads it when it exists and the shipped store otherwise. `--store
//! results/best.json` names the shipped store on purpose.
//!
//! **Anywhere else** the same holds with the user's data folder for `results/` and the table
//! built into the binary ([`crate::shipped`]) for `results/best.json`: the default store is
//! `mine.json` in the data folder (`$XDG_DATA_HOME/magichunt`, else
//! `~/.local/share/magichunt` on Linux and the BSDs; `~/Library/Application
//! Support/magichunt` on macOS; `%APPDATA%\magichunt` on Windows), started from the built-in
//! table by the first writing command; a reading command reads it when it exists and the
//! built-in table otherwise, and says so in one line on stderr.
//!
//! The environment variable `MAGICHUNT_STORE` names the default store instead, in or out of a
//! checkout (started and read as the default is); `--store PATH` names a store for one
//! command, used as it is (a missing one is an error for a reading command, a new store for a
//! writing one).

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::store::Store;

/// The default `--store` inside a checkout: the user's own store, not tracked by git.
pub const DEFAULT_STORE: &str = "results/mine.json";

/// The store the repository ships.
pub const SHIPPED_STORE: &str = "results/best.json";

/// The environment variable that names the default store.
pub const STORE_ENV: &str = "MAGICHUNT_STORE";

/// The file name of the user's own store in the data folder.
pub const USER_STORE: &str = "mine.json";

/// Whether the current folder is the root of a magichunt checkout: it holds the shipped
/// store and a `Cargo.toml` whose `[package]` is named `magichunt`.
#[must_use]
pub fn in_checkout() -> bool {
    Path::new(SHIPPED_STORE).is_file()
        && crate::input::read(Path::new("Cargo.toml"), crate::input::Kind::Other, 1 << 20)
            .is_ok_and(|t| names_magichunt(&String::from_utf8_lossy(&t)))
}

/// Whether a `Cargo.toml` text names the package `magichunt`.
fn names_magichunt(toml: &str) -> bool {
    let mut in_package = false;
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some((key, value)) = line.split_once('=') {
                if key.trim() == "name" {
                    return value.trim() == "\"magichunt\"";
                }
            }
        }
    }
    false
}

/// A non-empty environment variable.
fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// The platform's folder for a user's data files, if it can be found.
fn data_dir() -> Option<PathBuf> {
    if cfg!(windows) {
        return var("APPDATA").map(PathBuf::from);
    }
    let home = var("HOME").map(PathBuf::from);
    if cfg!(target_os = "macos") {
        return home.map(|h| h.join("Library/Application Support"));
    }
    var("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".local/share")))
}

/// The user's own store outside a checkout: `mine.json` in the data folder's `magichunt`.
#[must_use]
pub fn user_store() -> Option<PathBuf> {
    data_dir().map(|d| d.join("magichunt").join(USER_STORE))
}

/// The default store: `MAGICHUNT_STORE`, else `results/mine.json` in a checkout, else the
/// user's store in the data folder (`None` when no data folder can be found).
#[must_use]
pub fn default_store() -> Option<PathBuf> {
    if let Some(p) = var(STORE_ENV) {
        return Some(PathBuf::from(p));
    }
    if in_checkout() {
        return Some(PathBuf::from(DEFAULT_STORE));
    }
    user_store()
}

/// The store a reading command reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// A store file (which may not exist: the command decides what that means).
    File(PathBuf),
    /// The table built into the binary ([`crate::shipped::store`]).
    BuiltIn,
}

impl Reading {
    /// How output names it: the path, or [`crate::shipped::NAME`].
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Reading::File(p) => p.display().to_string(),
            Reading::BuiltIn => crate::shipped::NAME.to_string(),
        }
    }

    /// Whether it is a file that does not exist.
    #[must_use]
    pub fn missing(&self) -> bool {
        matches!(self, Reading::File(p)
            if std::fs::metadata(p).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound))
    }

    /// The store file it names, or for the built-in table the user's store it stands in for
    /// (what an output file must never replace).
    #[must_use]
    pub fn guarded_path(&self) -> PathBuf {
        match self {
            Reading::File(p) => p.clone(),
            Reading::BuiltIn => default_store().unwrap_or_default(),
        }
    }

    /// Loads it (a missing file is an empty store, as [`Store::load`] reads it).
    ///
    /// # Errors
    /// The file does not load.
    pub fn load(&self) -> anyhow::Result<Cow<'static, Store>> {
        match self {
            Reading::File(p) => {
                let store =
                    Store::load(p).with_context(|| format!("cannot use {}", p.display()))?;
                // Its certificates are what its proofs stand on: no output replaces them.
                crate::prove::certificate::note_inputs(&store, p);
                Ok(Cow::Owned(store))
            }
            Reading::BuiltIn => Ok(Cow::Borrowed(crate::shipped::store())),
        }
    }
}

/// The store a reading command reads: `given` (the `--store` flag) as it is, unless it is the
/// default store; the default store when it exists; else the shipped store (in a checkout) or
/// the built-in table (elsewhere, said in one line on stderr).
#[must_use]
pub fn for_reading(given: Option<&Path>) -> Reading {
    let default = default_store();
    match given {
        Some(p) if default.as_deref() != Some(p) => return Reading::File(p.to_path_buf()),
        _ => {}
    }
    if let Some(d) = default.filter(|d| d.exists()) {
        return Reading::File(d);
    }
    if in_checkout() {
        return Reading::File(PathBuf::from(SHIPPED_STORE));
    }
    crate::say!(
        "magichunt: reading the table built into magichunt {} (a copy of its {SHIPPED_STORE}); {}",
        env!("CARGO_PKG_VERSION"),
        match user_store() {
            Some(p) if var(STORE_ENV).is_none() => format!(
                "your own runs go to {} (--store or {STORE_ENV} to choose)",
                p.display()
            ),
            _ => format!("--store or {STORE_ENV} names a store of your own"),
        }
    );
    Reading::BuiltIn
}

/// The store a writing command writes: `given` (the `--store` flag), else the default store.
///
/// # Errors
/// No `--store`, no `MAGICHUNT_STORE`, outside a checkout and no data folder (no `HOME`).
pub fn writing_path(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    match given {
        Some(p) => Ok(p.to_path_buf()),
        None => default_store().with_context(|| {
            format!("found no folder for your store (HOME is not set): give --store PATH or set {STORE_ENV}")
        }),
    }
}

/// Before a writing command: when `store` is the default store and does not exist yet,
/// start it (written atomically, its folder created) as a copy of the shipped store in a
/// checkout, or of the built-in table elsewhere, and say so on stderr.
///
/// # Errors
/// The shipped store cannot be read, or the copy cannot be written.
pub fn for_writing(store: &Path) -> anyhow::Result<()> {
    if default_store().as_deref() != Some(store) || store.exists() {
        return Ok(());
    }
    let shown = store.display();
    if in_checkout() {
        let bytes = crate::input::read(
            Path::new(SHIPPED_STORE),
            crate::input::Kind::Other,
            crate::input::MAX_TABLE_BYTES,
        )
        .with_context(|| format!("reading {SHIPPED_STORE}"))?;
        crate::output::write(store, &bytes, crate::output::Writes::Store, &[])
            .with_context(|| format!("starting {shown} from {SHIPPED_STORE}"))?;
        let git = if store == Path::new(DEFAULT_STORE) {
            "; git does not track it"
        } else {
            ""
        };
        crate::say!(
            "magichunt: started {shown} from the shipped {SHIPPED_STORE} (your runs go there{git})"
        );
        return Ok(());
    }
    if let Some(dir) = store.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder of {shown}"))?;
    }
    let json = crate::shipped::store().to_json();
    crate::output::write(store, json.as_bytes(), crate::output::Writes::Store, &[])
        .with_context(|| format!("starting {shown} from the built-in table"))?;
    crate::say!(
        "magichunt: started {shown} from the table built into magichunt {} (your runs go there)",
        env!("CARGO_PKG_VERSION")
    );
    Ok(())
}

/// Loads the store a counting command (`compare`, `export`) reads: a store file's proofs
/// have their evidence checked ([`crate::trust::vet`], with the user's cache), each failing
/// check said on stderr; the built-in table's proofs are not checked here (its certificates
/// are not built in), so they count as claimed. The count takes checked proofs only, or
/// every recorded proof with `count_claimed`. A missing file is an empty store.
///
/// # Errors
/// When the store cannot be loaded.
pub fn load_counting(from: &Reading, count_claimed: bool) -> anyhow::Result<Cow<'static, Store>> {
    let mut store = from.load()?;
    if let Reading::File(path) = from {
        if path.exists() {
            let mut cache = crate::trust::Cache::open();
            let vetted = crate::trust::vet_file(store.to_mut(), path, &mut cache);
            let problems = vetted.problems;
            // A store copied away from its certificates (the user's store started from the
            // built-in table) would list dozens: the first few, then how many more.
            const SHOWN: usize = 3;
            for p in problems.iter().take(SHOWN) {
                crate::say!(
                    "magichunt: {}: a proof does not hold, so it is not counted: {p}",
                    path.display()
                );
            }
            if problems.len() > SHOWN {
                crate::say!(
                    "magichunt: {}: {} more proofs do not hold and are not counted (`magichunt audit --store {}` names each)",
                    path.display(),
                    problems.len() - SHOWN,
                    path.display()
                );
            }
            // Not a failure: the proofs were made elsewhere, and their evidence is there.
            if let Some((q, why)) = vetted.absent.first() {
                crate::say!(
                    "magichunt: {}: {} SAT proofs have no certificate beside the store, so they count as claimed ({q}: {why}{}); a checkout's results/proofs/ holds the shipped ones",
                    path.display(),
                    vetted.absent.len(),
                    if vetted.absent.len() > 1 { ", ..." } else { "" }
                );
            }
        }
    }
    if count_claimed {
        store.to_mut().set_counting(crate::store::Counting::Claimed);
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_is_named_by_its_package() {
        assert!(names_magichunt(
            "[package]\nname = \"magichunt\"\nversion = \"0.1.0\"\n"
        ));
        assert!(names_magichunt("# x\n[package]\n  name=\"magichunt\"\n"));
        assert!(!names_magichunt("[package]\nname = \"engine\"\n"));
        assert!(!names_magichunt(
            "[package]\nname = \"engine\"\n[dependencies]\nname = \"magichunt\"\n"
        ));
        assert!(!names_magichunt("[workspace]\nname = \"magichunt\"\n"));
        assert!(!names_magichunt(""));
    }

    #[test]
    fn the_tests_run_in_a_checkout() {
        // cargo runs tests from the package root, which is one.
        assert!(in_checkout());
        assert_eq!(
            for_reading(Some(Path::new("elsewhere.json"))),
            Reading::File(PathBuf::from("elsewhere.json"))
        );
    }
}
