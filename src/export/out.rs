//! Where an export may be written: never onto the store it comes from, nor onto any other
//! magichunt store, whose effort, proofs and exhaustive progress an export would wipe out.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ExportError;

/// The lists a table may carry; a file with `version` and one of them is a table.
const TABLE_LISTS: [&str; 5] = ["entries", "proofs", "effort", "exhaust", "sat"];

/// Checks that an export may replace `out`, given the `store` it comes from.
///
/// Refused: `out` is the store (compared by real path, through symlinks, also when the
/// store does not exist yet); `out` is an existing magichunt table (`version` and a list of
/// entries, proofs, effort, exhaust or sat), unless it is an earlier JSON export (its
/// `comment`, `layout` and `table_sizes`, and no proofs, effort, exhaust or sat); `out`
/// exists and cannot be read. Anything else (a missing file, an earlier header, a file that
/// is not JSON) may be replaced.
///
/// # Errors
/// [`ExportError::OutIsStore`], [`ExportError::OutIsTable`] or
/// [`ExportError::OutUnreadable`].
pub fn check_out(out: &Path, store: &Path) -> Result<(), ExportError> {
    if real_path(out) == real_path(store) {
        return Err(ExportError::OutIsStore(out.to_path_buf()));
    }
    let bytes = match std::fs::read(out) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // A folder: the write fails on its own, with its own message.
        Err(_) if out.is_dir() => return Ok(()),
        Err(source) => {
            return Err(ExportError::OutUnreadable {
                path: out.to_path_buf(),
                source,
            })
        }
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if is_table(&v) && !is_json_export(&v) => {
            Err(ExportError::OutIsTable(out.to_path_buf()))
        }
        _ => Ok(()),
    }
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

/// A JSON object with `version` and at least one of the table lists.
fn is_table(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.contains_key("version")
            && TABLE_LISTS
                .iter()
                .any(|k| o.get(*k).is_some_and(Value::is_array))
    })
}

/// What the JSON back end writes: `comment`, `layout`, `table_sizes`, and no list but
/// `entries` with anything in it.
fn is_json_export(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        ["comment", "layout", "table_sizes"]
            .iter()
            .all(|k| o.contains_key(*k))
            && TABLE_LISTS[1..].iter().all(|k| {
                o.get(*k)
                    .is_none_or(|l| l.as_array().is_some_and(Vec::is_empty))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_exports_are_told_apart() {
        let store: Value = serde_json::json!({"version": 1, "entries": [], "effort": [{"x": 1}]});
        assert!(is_table(&store) && !is_json_export(&store));
        let empty: Value = serde_json::json!({"version": 1, "entries": []});
        assert!(is_table(&empty) && !is_json_export(&empty));
        let export: Value = serde_json::json!({"version": 1, "comment": [], "layout": "fancy",
            "table_sizes": {}, "entries": []});
        assert!(is_table(&export) && is_json_export(&export));
        let disguised: Value = serde_json::json!({"version": 1, "comment": [], "layout": "fancy",
            "table_sizes": {}, "entries": [], "proofs": [{"bits": 4}]});
        assert!(!is_json_export(&disguised));
        assert!(!is_table(&serde_json::json!([1, 2])));
        assert!(!is_table(&serde_json::json!({"entries": []})));
    }

    #[cfg(unix)]
    #[test]
    fn the_store_is_refused_through_a_symlink_and_before_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("best.json");
        // Not there yet: the same path is still the store.
        assert!(matches!(
            check_out(&store, &store),
            Err(ExportError::OutIsStore(_))
        ));
        let dotted = dir.path().join(".").join("best.json");
        assert!(matches!(
            check_out(&dotted, &store),
            Err(ExportError::OutIsStore(_))
        ));
        std::fs::write(&store, "{\"version\": 1, \"entries\": []}").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&store, &link).unwrap();
        assert!(matches!(
            check_out(&link, &store),
            Err(ExportError::OutIsStore(_))
        ));
        let other = dir.path().join("other.json");
        std::fs::copy(&store, &other).unwrap();
        assert!(matches!(
            check_out(&other, &store),
            Err(ExportError::OutIsTable(_))
        ));
        std::fs::write(&other, "/* a header */").unwrap();
        assert!(check_out(&other, &store).is_ok());
        assert!(check_out(&dir.path().join("new.h"), &store).is_ok());
    }
}
