//! The one way magichunt writes a file: every command that writes one (`export`, `pack`,
//! `prove --emit-cnf`, `merge --out`, a store's save, a certificate, a manual page, the
//! cache of checked proofs) goes through [`write()`], which refuses to replace a magichunt store
//! or a packed table that the command was not asked to update, and otherwise replaces the
//! file atomically ([`crate::atomic::write_atomic`]) at its real path: a symlink is followed,
//! so the file it names is replaced and the link stays.
//!
//! What a command may replace depends on what it writes ([`Writes`]):
//!
//! | it writes      | a store | a packed table | an earlier JSON export, any other file |
//! |----------------|---------|----------------|----------------------------------------|
//! | a store        | yes     | no             | yes                                    |
//! | a packed table | no      | yes            | yes                                    |
//! | anything else  | no      | no             | yes (never a file it reads)            |
//!
//! A file that exists but cannot be read is never replaced: it cannot be shown not to be a
//! store.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::atomic::write_atomic;

/// What a command writes, which decides what it may replace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Writes {
    /// A results store (a save, `merge --out`): it may replace a store.
    Store,
    /// A packed table (`pack --out`): it may replace a packed table.
    PackedTable,
    /// Anything else (an export, a CNF, a certificate, a manual page, the cache): never a
    /// store, never a packed table, never a file the command reads.
    Other,
}

/// Why a file was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is a file the command reads (compared by real path, through symlinks,
    /// also before it exists).
    #[error("refusing to overwrite {0}: the command reads it (a store, or the table it comes from); choose another output")]
    IsInput(PathBuf),
    /// The output is a magichunt store the command was not asked to update.
    #[error("refusing to overwrite {0}: it is a magichunt store (a table of entries, proofs or effort); choose another output")]
    IsStore(PathBuf),
    /// The output is a packed table the command was not asked to update.
    #[error("refusing to overwrite {0}: it is a packed table (written by magichunt pack); choose another output")]
    IsPacked(PathBuf),
    /// The output exists but cannot be read, so it cannot be shown not to be a store.
    #[error("refusing to overwrite {path}: cannot read it to check it is not a store ({source})")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The write itself failed (the file is left as it was).
    #[error("{source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What an existing file is, as far as replacing it goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Existing {
    Missing,
    Store,
    PackedTable,
    Other,
}

/// The lists a table may carry; a JSON object with `version` and one of them is a table.
const TABLE_LISTS: [&str; 5] = ["entries", "proofs", "effort", "exhaust", "sat"];

/// Checks that `out` may be replaced by a `writes` output of a command that reads `inputs`,
/// and returns the real path to write (symlinks followed).
///
/// # Errors
/// [`OutputError`] naming `out` when it may not be replaced.
pub fn check(out: &Path, writes: Writes, inputs: &[&Path]) -> Result<PathBuf, OutputError> {
    let real = real_path(out);
    if writes == Writes::Other && inputs.iter().any(|i| real_path(i) == real) {
        return Err(OutputError::IsInput(out.to_path_buf()));
    }
    match (existing(&real)?, writes) {
        (Existing::Store, Writes::PackedTable | Writes::Other) => {
            Err(OutputError::IsStore(out.to_path_buf()))
        }
        (Existing::PackedTable, Writes::Store | Writes::Other) => {
            Err(OutputError::IsPacked(out.to_path_buf()))
        }
        _ => Ok(real),
    }
}

/// [`check`], then replaces the file atomically at its real path.
///
/// # Errors
/// [`OutputError`]: refused, or the write failed (the file is then as it was).
pub fn write(
    out: &Path,
    bytes: &[u8],
    writes: Writes,
    inputs: &[&Path],
) -> Result<PathBuf, OutputError> {
    let real = check(out, writes, inputs)?;
    write_atomic(&real, bytes).map_err(|source| OutputError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(real)
}

/// `p` with symlinks (dangling ones too) and `..` resolved, as the store lock resolves a
/// store ([`crate::lock::real_path`]); `p` itself when its folder does not exist (nothing is
/// created for a check).
#[must_use]
pub fn real_path(p: &Path) -> PathBuf {
    let folder = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if folder.is_dir() {
        crate::lock::real_path(p).unwrap_or_else(|_| p.to_path_buf())
    } else {
        p.to_path_buf()
    }
}

fn existing(path: &Path) -> Result<Existing, OutputError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Missing),
        // A folder: the write fails on its own, with its own message.
        Err(_) if path.is_dir() => return Ok(Existing::Other),
        Err(source) => {
            return Err(OutputError::Unreadable {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    Ok(match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if is_table(&v) && is_packed(&v) => Existing::PackedTable,
        Ok(v) if is_table(&v) && !is_json_export(&v) => Existing::Store,
        _ => Existing::Other,
    })
}

/// A JSON object with `version` and at least one of the table lists.
fn is_table(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.contains_key("version")
            && TABLE_LISTS
                .iter()
                .any(|k| o.get(*k).is_some_and(Value::is_array))
    })
}

/// A packed table (`magichunt pack`, or a published one): `"layout": "packed"` or a
/// `packed_table` object, and no list but `entries` with anything in it.
fn is_packed(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        (o.get("layout").and_then(Value::as_str) == Some("packed")
            || o.get("packed_table").is_some_and(Value::is_object))
            && !o.contains_key("comment")
            && only_entries(o)
    })
}

/// What the JSON export writes: `comment`, `layout`, `table_sizes`, and no list but
/// `entries` with anything in it.
fn is_json_export(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        ["comment", "layout", "table_sizes"]
            .iter()
            .all(|k| o.contains_key(*k))
            && only_entries(o)
    })
}

fn only_entries(o: &serde_json::Map<String, Value>) -> bool {
    TABLE_LISTS[1..].iter().all(|k| {
        o.get(*k)
            .is_none_or(|l| l.as_array().is_some_and(Vec::is_empty))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stores_packed_tables_and_exports_are_told_apart() {
        let kind = |v: Value| {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("x.json");
            std::fs::write(&p, v.to_string()).unwrap();
            existing(&p).unwrap()
        };
        let store = json!({"version": 1, "entries": [], "effort": [{"x": 1}]});
        assert_eq!(kind(store), Existing::Store);
        assert_eq!(kind(json!({"version": 1, "entries": []})), Existing::Store);
        let export = json!({"version": 1, "comment": [], "layout": "fancy",
            "table_sizes": {}, "entries": []});
        assert_eq!(kind(export), Existing::Other);
        let packed_export = json!({"version": 1, "comment": [], "layout": "packed",
            "table_sizes": {}, "entries": [{"piece": "rook"}]});
        assert_eq!(kind(packed_export), Existing::Other);
        let disguised = json!({"version": 1, "comment": [], "layout": "fancy",
            "table_sizes": {}, "entries": [], "proofs": [{"bits": 4}]});
        assert_eq!(kind(disguised), Existing::Store);
        let packed = json!({"version": 1, "layout": "packed", "entries": [{"piece": "rook"}]});
        assert_eq!(kind(packed), Existing::PackedTable);
        let published = json!({"version": 1, "packed_table": {"size": 1}, "entries": []});
        assert_eq!(kind(published), Existing::PackedTable);
        let packed_with_proofs = json!({"version": 1, "layout": "packed", "entries": [],
            "proofs": [{"bits": 4}]});
        assert_eq!(kind(packed_with_proofs), Existing::Store);
        assert_eq!(kind(json!([1, 2])), Existing::Other);
        assert_eq!(kind(json!({"entries": []})), Existing::Other);
    }

    #[cfg(unix)]
    #[test]
    fn each_output_replaces_only_what_it_may() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let store = d.join("best.json");
        // Not there yet: the same path is still an input.
        assert!(matches!(
            check(&store, Writes::Other, &[&store]),
            Err(OutputError::IsInput(_))
        ));
        assert!(matches!(
            check(&d.join(".").join("best.json"), Writes::Other, &[&store]),
            Err(OutputError::IsInput(_))
        ));
        std::fs::write(&store, "{\"version\": 1, \"entries\": []}").unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&store, &link).unwrap();
        for w in [Writes::Other, Writes::PackedTable] {
            assert!(matches!(check(&link, w, &[]), Err(OutputError::IsStore(_))));
        }
        assert_eq!(check(&link, Writes::Store, &[]).unwrap(), store);
        let packed = d.join("packed.json");
        std::fs::write(
            &packed,
            "{\"version\": 1, \"layout\": \"packed\", \"entries\": []}",
        )
        .unwrap();
        for w in [Writes::Other, Writes::Store] {
            assert!(matches!(
                check(&packed, w, &[]),
                Err(OutputError::IsPacked(_))
            ));
        }
        assert!(check(&packed, Writes::PackedTable, &[&packed]).is_ok());
        // Writing through a symlink replaces the file it names; the link stays.
        let other = d.join("magics.h");
        std::fs::write(&other, "/* a header */").unwrap();
        let hlink = d.join("h.link");
        std::os::unix::fs::symlink(&other, &hlink).unwrap();
        write(&hlink, b"/* new */", Writes::Other, &[&store]).unwrap();
        assert_eq!(std::fs::read(&other).unwrap(), b"/* new */");
        assert!(std::fs::symlink_metadata(&hlink)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(check(&d.join("new.h"), Writes::Other, &[&store]).is_ok());
    }
}
