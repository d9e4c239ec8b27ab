//! The one way magichunt writes a file: every command that writes one (`export`, `pack`,
//! `prove --emit-cnf`, `merge --out`, a store's save, a pool, a certificate, a manual page,
//! the cache of checked proofs) goes through [`write()`], which refuses to replace a file the
//! command reads, a lock file, a magichunt store, a packed table or a pool that the command
//! was not asked to update, and otherwise replaces the file atomically
//! ([`super::replace::write_atomic`]) at its real path: a symlink is followed, so the file it
//! names is replaced and the link stays. A writer holding a store's lock saves through the
//! lock ([`super::lock::StoreLock::write`]), which checks it still holds it first.
//!
//! What a command may replace depends on what it writes ([`Writes`]):
//!
//! | it writes      | a store | a packed table | a pool | an earlier JSON export, any other file |
//! |----------------|---------|----------------|--------|----------------------------------------|
//! | a store        | yes     | no             | no     | yes                                    |
//! | a packed table | no      | yes            | no     | yes                                    |
//! | a pool         | no      | no             | yes    | yes                                    |
//! | anything else  | no      | no             | no     | yes                                    |
//!
//! and never a file the command reads ([`super::input`] remembers each: stores, tables,
//! pools, certificates, the cache) unless it updates that very file: a store its save or
//! `merge --out`, a packed table the `pack --from` it resumes, a pool its hunt or merge, a
//! certificate `prove` writes again, the cache its own save. Nor a store's lock file: a file
//! named `<name>.lock` beside a file `<name>`, or one holding what a lock file holds (a pid, or
//! nothing), whoever holds it.
//!
//! An output named on the command line is resolved through symlinks (the file a link names
//! is replaced, the link stays); a certificate, which magichunt keeps beside a store in its
//! `proofs/`, is not: a link planted there is replaced by the certificate, never followed.
//!
//! Outputs are regular files: an existing output that is a FIFO, a device, a socket or a
//! folder (`/dev/stdout` into a pipe, say) is refused in one line, never opened; where a
//! command writes text (`export --out`, `compare --svg`, `pack --out`, `prove --emit-cnf`),
//! `-` is stdout. An existing output is read to tell whether it is a store, streaming and at
//! most [`MAX_TABLE_BYTES`]; one that exists but cannot be read, or is larger, is never
//! replaced: it cannot be shown not to be a store.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::input::{self, Bounded, Kind, MAX_TABLE_BYTES};
use super::path::Stamp;
use super::replace::{write_atomic, write_atomic_with, write_new as replace_new};

/// What a command writes, which decides what it may replace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Writes {
    /// A results store (a save, `merge --out`): it may replace a store, and the store it
    /// reads.
    Store,
    /// A packed table (`pack --out`): it may replace a packed table, and the one it resumes.
    PackedTable,
    /// A pool (`hunt --objective slots --pool`, a pool merge): it may replace a pool, and the
    /// pool it reads.
    Pool,
    /// A certificate (`prove`, `merge` copying one): it may replace a certificate it read
    /// (the same question and part), never a store or a table.
    Certificate,
    /// The cache of checks: it may replace itself.
    Cache,
    /// Anything else (an export, a CNF, a manual page): never a store, a packed table or a
    /// pool, never a file the command reads.
    Other,
}

impl Writes {
    /// Whether an output of this kind may replace a file the command read as `kind`.
    fn may_replace_input(self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (Writes::Store, Kind::Store | Kind::Probe)
                | (Writes::PackedTable, Kind::PackedTable)
                | (Writes::Pool, Kind::Pool | Kind::Probe)
                | (Writes::Certificate, Kind::Certificate)
                | (Writes::Cache, Kind::Cache)
        )
    }
}

/// Why a file was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is a file the command reads (compared by real path, through symlinks,
    /// also before it exists, and by device and inode).
    #[error("refusing to overwrite {0}: the command reads it (a store, a pool, a table or a certificate it uses); choose another output")]
    IsInput(PathBuf),
    /// The output is a store's lock file.
    #[error("refusing to overwrite {0}: it is the lock file of a store (the writer of the store holds it); choose another output")]
    IsLock(PathBuf),
    /// The writer no longer holds the lock of the store it saves (the lock file was removed
    /// or replaced, or the store was written by another process): nothing is written.
    #[error("this process no longer holds the store: {why}; nothing written, so another writer's work is kept (run the command again to go on from the store as it is now)")]
    NotHeld {
        /// The store.
        path: PathBuf,
        /// What changed.
        why: String,
    },
    /// The file exists already (a file this command only creates, never replaces).
    #[error("refusing to overwrite {0}: it exists already")]
    Exists(PathBuf),
    /// The output is a magichunt store the command was not asked to update.
    #[error("refusing to overwrite {0}: it is a magichunt store (a table of entries, proofs or effort); choose another output")]
    IsStore(PathBuf),
    /// The output is a packed table the command was not asked to update.
    #[error("refusing to overwrite {0}: it is a packed table (written by magichunt pack); choose another output")]
    IsPacked(PathBuf),
    /// The output is a pool the command was not asked to update.
    #[error("refusing to overwrite {0}: it is a pool of magics (written by hunt --objective slots); choose another output")]
    IsPool(PathBuf),
    /// The output exists and is not a regular file.
    #[error("refusing to write {path}: it is {what}, not a regular file (magichunt replaces regular files atomically; where a command writes text, `-` is stdout)")]
    NotRegular {
        /// The file as named.
        path: PathBuf,
        /// `a FIFO (named pipe) or a pipe`, `a character device`, ...
        what: &'static str,
    },
    /// The output exists but cannot be read, so it cannot be shown not to be a store.
    #[error("refusing to overwrite {path}: cannot read it to check it is not a store ({error})")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error (its text is in the message; not a source, so it is said once).
        error: std::io::Error,
    },
    /// The write itself failed (the file is left as it was).
    #[error("{error}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error (its text is the message; not a source, so it is said once).
        error: std::io::Error,
    },
}

/// What an existing file is, as far as replacing it goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Existing {
    Missing,
    Store,
    PackedTable,
    Pool,
    Other,
}

/// The lists a table may carry; a JSON object with `version` and one of them is a table.
const TABLE_LISTS: [&str; 5] = ["entries", "proofs", "effort", "exhaust", "sat"];

/// Checks that `out` may be replaced by a `writes` output of a command that reads `inputs`
/// (named for a [`Writes::Other`] output, such as the store a built-in table stands in for,
/// which is never opened) and every file it opened through [`super::input`], and returns the
/// real path to write (symlinks followed).
///
/// # Errors
/// [`OutputError`] naming `out` when it may not be replaced.
pub fn check(out: &Path, writes: Writes, inputs: &[&Path]) -> Result<PathBuf, OutputError> {
    match std::fs::metadata(out) {
        Ok(m) if !m.is_file() => {
            return Err(OutputError::NotRegular {
                path: out.to_path_buf(),
                what: input::describe(&m),
            })
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            return Err(OutputError::Unreadable {
                path: out.to_path_buf(),
                error,
            })
        }
    }
    // A certificate is a file magichunt keeps beside a store, in its `proofs/`: a link
    // planted there is replaced by the file, never followed.
    let real = match writes {
        Writes::Certificate => beside(out),
        _ => real_path(out),
    };
    if is_lock_file(&real) {
        return Err(OutputError::IsLock(out.to_path_buf()));
    }
    if (writes == Writes::Other && inputs.iter().any(|i| real_path(i) == real))
        || !input::read_as(&real)
            .into_iter()
            .all(|k| writes.may_replace_input(k))
    {
        return Err(OutputError::IsInput(out.to_path_buf()));
    }
    match (existing(&real, out)?, writes) {
        (Existing::Store, Writes::Store) => Ok(real),
        (Existing::Store, _) => Err(OutputError::IsStore(out.to_path_buf())),
        (Existing::PackedTable, Writes::PackedTable) => Ok(real),
        (Existing::PackedTable, _) => Err(OutputError::IsPacked(out.to_path_buf())),
        (Existing::Pool, Writes::Pool) => Ok(real),
        (Existing::Pool, _) => Err(OutputError::IsPool(out.to_path_buf())),
        (Existing::Missing | Existing::Other, _) => Ok(real),
    }
}

/// Whether `real` is (or would be) a store's lock file: named `<name>.lock` beside a file
/// `<name>`, or holding what a lock file holds (a pid, or nothing) under a name ending in
/// `.lock`.
fn is_lock_file(real: &Path) -> bool {
    let Some(name) = real.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let Some(stem) = name.strip_suffix(".lock").filter(|s| !s.is_empty()) else {
        return false;
    };
    if std::fs::symlink_metadata(real.with_file_name(stem)).is_ok() {
        return true;
    }
    let Ok(file) = input::open_unremembered(real) else {
        return false;
    };
    let mut text = Vec::new();
    use std::io::Read as _;
    file.take(super::path::LOCK_BYTES as u64 + 1)
        .read_to_end(&mut text)
        .is_ok()
        && super::path::holds_a_pid(&text)
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
    write_atomic(&real, bytes).map_err(|error| OutputError::Write {
        path: out.to_path_buf(),
        error,
    })?;
    Ok(real)
}

/// [`check`], then writes `bytes` at the real path of `out`, which must not exist: a file
/// created there meanwhile by another process is never replaced
/// ([`super::replace::write_new`]).
///
/// # Errors
/// [`OutputError::Exists`] when something is there by then; [`OutputError`] as [`write()`].
pub fn write_new(out: &Path, bytes: &[u8], writes: Writes) -> Result<PathBuf, OutputError> {
    let real = check(out, writes, &[])?;
    replace_new(&real, bytes).map_err(|error| match error.kind() {
        std::io::ErrorKind::AlreadyExists => OutputError::Exists(out.to_path_buf()),
        _ => OutputError::Write {
            path: out.to_path_buf(),
            error,
        },
    })?;
    Ok(real)
}

/// [`check`] of a store's real path, then [`write_atomic_with`] with `last` run just before
/// the rename (the lock's own check): what [`super::lock::StoreLock::write`] calls. Returns the
/// stamp of the file written.
pub(super) fn write_locked(
    real: &Path,
    bytes: &[u8],
    writes: Writes,
    last: impl FnOnce() -> Result<(), OutputError>,
) -> Result<Stamp, OutputError> {
    let real = check(real, writes, &[])?;
    let mut refused = None;
    let result = write_atomic_with(
        &real,
        |f| std::io::Write::write_all(f, bytes),
        || {
            last().map_err(|e| {
                refused = Some(e);
                std::io::Error::other("refused")
            })
        },
    );
    if let Some(e) = refused {
        return Err(e);
    }
    result.map_err(|error| OutputError::Write { path: real, error })
}

/// [`check`], then replaces the file atomically at its real path with what `fill` writes
/// into the temporary file (a large certificate copied without holding it in memory).
///
/// # Errors
/// [`OutputError`]: refused, or the write (or `fill`) failed (the file is then as it was).
pub fn write_with(
    out: &Path,
    writes: Writes,
    inputs: &[&Path],
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<PathBuf, OutputError> {
    let real = check(out, writes, inputs)?;
    write_atomic_with(&real, fill, || Ok(())).map_err(|error| OutputError::Write {
        path: out.to_path_buf(),
        error,
    })?;
    Ok(real)
}

/// `p` with symlinks (dangling ones too) and `..` resolved, as the store lock resolves a
/// store ([`super::real_path`]); `p` itself when its folder does not exist (nothing is
/// created for a check).
#[must_use]
pub fn real_path(p: &Path) -> PathBuf {
    let folder = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if folder.is_dir() {
        super::path::real_path(p).unwrap_or_else(|_| p.to_path_buf())
    } else {
        p.to_path_buf()
    }
}

/// `p` with its folder resolved (symlinks and `..`) but not its own name: a link at `p` is
/// the file to replace, never followed.
fn beside(p: &Path) -> PathBuf {
    let folder = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(folder), p.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => p.to_path_buf(),
    }
}

/// What the file at `path` (named `shown` in messages) is, read streaming: at most
/// [`MAX_TABLE_BYTES`] and never more than one value at a time in memory.
fn existing(path: &Path, shown: &Path) -> Result<Existing, OutputError> {
    let unreadable = |error| OutputError::Unreadable {
        path: shown.to_path_buf(),
        error,
    };
    let file = match input::open_unremembered(path) {
        Ok(f) => f,
        Err(e) if e.is_not_found() => return Ok(Existing::Missing),
        Err(input::InputError::NotRegular { what, .. }) => {
            return Err(OutputError::NotRegular {
                path: shown.to_path_buf(),
                what,
            })
        }
        Err(input::InputError::Io { error, .. }) => return Err(unreadable(error)),
    };
    let reader = Bounded::new(BufReader::new(file), MAX_TABLE_BYTES, shown);
    let mut de = serde_json::Deserializer::from_reader(reader);
    let shape = match de::Deserialize::deserialize(&mut de).and_then(|s: Shape| {
        de.end()?;
        Ok(s)
    }) {
        Ok(s) => s,
        // Too large to tell: never replaced.
        Err(e) if e.is_io() => return Err(unreadable(std::io::Error::other(e.to_string()))),
        Err(_) => return Ok(Existing::Other),
    };
    Ok(shape.kind())
}

/// What one top-level value of a JSON file is, as far as telling a table goes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum Seen {
    /// Not there.
    #[default]
    Absent,
    /// A list, empty or not.
    List { empty: bool },
    /// An object.
    Object,
    /// A string: whether it is `packed` (or `indexed`), whether `pool`.
    Text { packed: bool, pool: bool },
    /// Anything else.
    Other,
}

/// The top level of a JSON file: what its keys hold.
#[derive(Clone, Debug, Default)]
struct Shape {
    object: bool,
    version: Seen,
    lists: [Seen; 5],
    layout: Seen,
    packed_table: Seen,
    comment: Seen,
    table_sizes: Seen,
    kind: Seen,
}

impl Shape {
    fn kind(&self) -> Existing {
        let present = |s: Seen| s != Seen::Absent;
        let is_table = self.object
            && present(self.version)
            && self.lists.iter().any(|l| matches!(l, Seen::List { .. }));
        // No list but `entries` with anything in it.
        let only_entries = self.lists[1..]
            .iter()
            .all(|l| matches!(l, Seen::Absent | Seen::List { empty: true }));
        let packed = (matches!(self.layout, Seen::Text { packed: true, .. })
            || self.packed_table == Seen::Object)
            && !present(self.comment)
            && only_entries;
        let json_export = present(self.comment)
            && present(self.layout)
            && present(self.table_sizes)
            && only_entries;
        let pool = matches!(self.kind, Seen::Text { pool: true, .. });
        match () {
            _ if !is_table => Existing::Other,
            _ if packed => Existing::PackedTable,
            _ if pool => Existing::Pool,
            _ if json_export => Existing::Other,
            _ => Existing::Store,
        }
    }
}

impl<'de> de::Deserialize<'de> for Seen {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Seen, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Seen;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Seen, E> {
                Ok(Seen::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Seen, E> {
                Ok(Seen::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Seen, E> {
                Ok(Seen::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Seen, E> {
                Ok(Seen::Other)
            }
            fn visit_str<E>(self, v: &str) -> Result<Seen, E> {
                Ok(Seen::Text {
                    // Packed and indexed tables (`magichunt pack --layout indexed`) alike.
                    packed: v == "packed" || v == "indexed",
                    pool: v == "pool",
                })
            }
            fn visit_unit<E>(self) -> Result<Seen, E> {
                Ok(Seen::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seen, A::Error> {
                let mut empty = true;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    empty = false;
                }
                Ok(Seen::List { empty })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Seen::Object)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> de::Deserialize<'de> for Shape {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Shape;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
                let mut s = Shape {
                    object: true,
                    ..Shape::default()
                };
                while let Some(key) = map.next_key::<String>()? {
                    let slot = match key.as_str() {
                        "version" => &mut s.version,
                        "layout" => &mut s.layout,
                        "packed_table" => &mut s.packed_table,
                        "comment" => &mut s.comment,
                        "table_sizes" => &mut s.table_sizes,
                        "kind" => &mut s.kind,
                        k => match TABLE_LISTS.iter().position(|l| *l == k) {
                            Some(i) => &mut s.lists[i],
                            None => {
                                map.next_value::<IgnoredAny>()?;
                                continue;
                            }
                        },
                    };
                    *slot = map.next_value::<Seen>()?;
                }
                Ok(s)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Shape::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
                Ok(Shape::default())
            }
            fn visit_unit<E>(self) -> Result<Shape, E> {
                Ok(Shape::default())
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn stores_packed_tables_and_exports_are_told_apart() {
        let kind = |v: Value| {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("x.json");
            std::fs::write(&p, v.to_string()).unwrap();
            existing(&p, &p).unwrap()
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
        let indexed = json!({"version": 1, "layout": "indexed", "entries": [{"piece": "rook"}]});
        assert_eq!(kind(indexed), Existing::PackedTable);
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
