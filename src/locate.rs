//! Which store a command works on when `--store` is not given: [`for_reading`] and
//! [`writing`], and [`start`], which starts the user's own store from the shipped one.
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

use crate::error::TableError;
use crate::fs::output::{self, OutputError, Writes};
use crate::progress::Progress;
use crate::store::Store;

/// The default `--store` inside a checkout: the user's own store, not tracked by git.
pub const DEFAULT_STORE: &str = "results/mine.json";

/// The store the repository ships.
pub const SHIPPED_STORE: &str = "results/best.json";

/// The environment variable that names the default store.
pub const STORE_ENV: &str = "MAGICHUNT_STORE";

/// The file name of the user's own store in the data folder.
pub const USER_STORE: &str = "mine.json";

/// Why a store could not be found, read or started.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// No store was named and there is no folder to keep one in.
    #[error(
        "found no folder for your store (HOME is not set): give --store PATH or set {STORE_ENV}"
    )]
    NoFolder,
    /// The store does not load.
    #[error("cannot use {path}")]
    Load {
        /// The store.
        path: PathBuf,
        /// Why.
        source: TableError,
    },
    /// The shipped store could not be read to start the user's store.
    #[error("reading {SHIPPED_STORE}")]
    ReadShipped(#[source] crate::fs::input::InputError),
    /// The folder of a new store could not be created.
    #[error("cannot create the folder of {path}")]
    Folder {
        /// The store.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The new store could not be written.
    #[error("starting {path} from {from}")]
    Start {
        /// The store.
        path: PathBuf,
        /// What it was to be a copy of.
        from: &'static str,
        /// Why.
        source: OutputError,
    },
}

/// Whether the current folder is the root of a magichunt checkout: it holds the shipped
/// store and a `Cargo.toml` whose `[package]` is named `magichunt`.
#[must_use]
pub fn in_checkout() -> bool {
    Path::new(SHIPPED_STORE).is_file()
        && crate::fs::input::read(
            Path::new("Cargo.toml"),
            crate::fs::input::Kind::Other,
            1 << 20,
        )
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
    /// [`LocateError::Load`]: the file does not load.
    pub fn load(&self) -> Result<Cow<'static, Store>, LocateError> {
        match self {
            Reading::File(p) => {
                let store = Store::load(p).map_err(|source| LocateError::Load {
                    path: p.clone(),
                    source,
                })?;
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
/// the built-in table (elsewhere, said in one note to `progress`).
pub fn for_reading(given: Option<&Path>, progress: &mut dyn Progress) -> Reading {
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
    progress.note(&format!(
        "magichunt: reading the table built into magichunt {} (a copy of its {SHIPPED_STORE}); {}",
        env!("CARGO_PKG_VERSION"),
        match user_store() {
            Some(p) if var(STORE_ENV).is_none() => format!(
                "your own runs go to {} (--store or {STORE_ENV} to choose)",
                p.display()
            ),
            _ => format!("--store or {STORE_ENV} names a store of your own"),
        }
    ));
    Reading::BuiltIn
}

/// The store a writing command writes: `given` (the `--store` flag), else the default store.
///
/// # Errors
/// [`LocateError::NoFolder`]: no `--store`, no `MAGICHUNT_STORE`, outside a checkout and no
/// data folder (no `HOME`).
pub fn writing(given: Option<&Path>) -> Result<PathBuf, LocateError> {
    match given {
        Some(p) => Ok(p.to_path_buf()),
        None => default_store().ok_or(LocateError::NoFolder),
    }
}

/// Whether a store was started: `false` when another process started it first (its copy is
/// kept: the store is only ever created, never replaced, here).
fn started(written: Result<std::path::PathBuf, OutputError>) -> Result<bool, OutputError> {
    match written {
        Ok(_) => Ok(true),
        Err(OutputError::Exists(_)) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Before a command writes `store`: when it is the default store and does not exist yet,
/// starts it (written atomically and only if it is still not there, its folder created) as a copy of the shipped store in a
/// checkout, or of the built-in table elsewhere, and says so to `progress`. Any other store
/// is left as it is (a missing one is a new, empty store).
///
/// # Errors
/// The shipped store cannot be read, or the copy cannot be written.
pub fn start(store: &Path, progress: &mut dyn Progress) -> Result<(), LocateError> {
    if default_store().as_deref() != Some(store) || store.exists() {
        return Ok(());
    }
    let shown = store.display();
    let start_err = |from| {
        move |source| LocateError::Start {
            path: store.to_path_buf(),
            from,
            source,
        }
    };
    if in_checkout() {
        let bytes = crate::fs::input::read(
            Path::new(SHIPPED_STORE),
            crate::fs::input::Kind::Other,
            crate::fs::input::MAX_TABLE_BYTES,
        )
        .map_err(LocateError::ReadShipped)?;
        if !started(output::write_new(store, &bytes, Writes::Store))
            .map_err(start_err(SHIPPED_STORE))?
        {
            return Ok(());
        }
        let git = if store == Path::new(DEFAULT_STORE) {
            "; git does not track it"
        } else {
            ""
        };
        progress.note(&format!(
            "magichunt: started {shown} from the shipped {SHIPPED_STORE} (your runs go there{git})"
        ));
        return Ok(());
    }
    if let Some(dir) = store.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::fs::create_dir(dir).map_err(|source| LocateError::Folder {
            path: store.to_path_buf(),
            source,
        })?;
    }
    let json = crate::shipped::store().to_json();
    if !started(output::write_new(store, json.as_bytes(), Writes::Store))
        .map_err(start_err("the built-in table"))?
    {
        return Ok(());
    }
    progress.note(&format!(
        "magichunt: started {shown} from the table built into magichunt {} (your runs go there)",
        env!("CARGO_PKG_VERSION")
    ));
    Ok(())
}

/// How many of the records a store lacks [`note_behind`] names before "...".
const SHOWN_LEADS: usize = 3;

/// When `path` is the default store: says in one note to `progress` which records the table
/// built into magichunt holds that `store` lacks (a store started from an older shipped table
/// does not gain a newer one's records by itself), and the merge that brings them in. A
/// store named by `--store` is the user's to curate, and gets no note.
pub fn note_behind(path: &Path, store: &Store, progress: &mut dyn Progress) {
    if default_store().as_deref() != Some(path) {
        return;
    }
    let leads = crate::shipped::store().leads_over(store);
    if leads.is_empty() {
        return;
    }
    let shown: Vec<String> = leads
        .iter()
        .take(SHOWN_LEADS)
        .map(ToString::to_string)
        .collect();
    let n = leads.len();
    progress.note(&format!(
        "magichunt: {} lacks {n} record{} that magichunt {} ships ({}{}): `magichunt merge --shipped --out {}` brings {} in",
        path.display(),
        if n == 1 { "" } else { "s" },
        env!("CARGO_PKG_VERSION"),
        shown.join("; "),
        if n > SHOWN_LEADS { "; ..." } else { "" },
        path.display(),
        if n == 1 { "it" } else { "them" }
    ));
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
            for_reading(
                Some(Path::new("elsewhere.json")),
                &mut crate::progress::Quiet
            ),
            Reading::File(PathBuf::from("elsewhere.json"))
        );
    }
}
