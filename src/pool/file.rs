//! Reading and writing pool files: the table format with `"kind": "pool"`, the pool's `gap`
//! and `capacity` at the top level and each magic's `slots` and `footprint` beside it;
//! gzip-compressed when the name ends in `.gz`.

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde_json::{json, Value};

use super::{Member, Pool};
use crate::attacks::Occupancies;
use crate::error::TableError;
use crate::fs::input::{self, Bounded, Kind, MAX_TABLE_BYTES};
use crate::layout::Pattern;
use crate::table::Table;

/// The `kind` a pool file states.
pub const KIND: &str = "pool";

/// Whether `path` names a gzip-compressed file (its name ends in `.gz`).
#[must_use]
pub fn is_gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The JSON of a table file read as `kind` (gunzipped when its name ends in `.gz`), parsed
/// as it is read (a regular file only, [`crate::fs::input::open`]; at most [`MAX_TABLE_BYTES`]
/// once unpacked, so a gzip bomb stops there) and written back compactly: no more memory
/// than the JSON holds, whatever blanks surround it.
///
/// # Errors
/// [`TableError::Input`] when it cannot be read or is not a regular file,
/// [`TableError::Syntax`] when it is not gzip, not JSON, or unpacks to more than the limit.
pub fn read_json(path: &Path, kind: Kind) -> Result<Vec<u8>, TableError> {
    let value: serde_json::Value =
        serde_json::from_reader(input::JsonBounded::new(reader(path, kind)?, path)).map_err(
            |e| TableError::Syntax {
                path: path.to_path_buf(),
                message: e.to_string(),
            },
        )?;
    Ok(serde_json::to_vec(&value).expect("a JSON value serializes"))
}

/// The file at `path` as a reader, read as `kind`: gunzipped when its name ends in `.gz`,
/// capped at [`MAX_TABLE_BYTES`] (unpacked).
///
/// # Errors
/// [`TableError::Input`] when it cannot be opened or is not a regular file.
pub fn reader(path: &Path, kind: Kind) -> Result<Box<dyn Read>, TableError> {
    let file = input::open(path, kind)?;
    Ok(if is_gz(path) {
        Box::new(BufReader::new(Bounded::new(
            NotGzip(GzDecoder::new(BufReader::new(file))),
            MAX_TABLE_BYTES,
            path,
        )))
    } else {
        Box::new(BufReader::new(Bounded::new(file, MAX_TABLE_BYTES, path)))
    })
}

/// A gzip decoder whose errors say that the data is not gzip.
struct NotGzip<R>(GzDecoder<R>);

impl<R: Read> Read for NotGzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|e| std::io::Error::new(e.kind(), format!("not gzip data: {e}")))
    }
}

/// Whether a parsed table is a pool.
#[must_use]
pub fn is_pool(table: &Table) -> bool {
    table.meta.get("kind").and_then(Value::as_str) == Some(KIND)
}

impl Pool {
    /// Reads a pool file; every magic is verified and its stated figures checked.
    ///
    /// # Errors
    /// [`TableError`]: unreadable, not a pool, a magic that fails verification, figures that
    /// are not what verify gives.
    pub fn read(path: &Path) -> Result<Pool, TableError> {
        let table = Table::from_reader(reader(path, Kind::Pool)?, path)?;
        Pool::from_table(table, path)
    }

    /// A pool from a parsed table (entries already verified); `path` names it in errors.
    ///
    /// # Errors
    /// [`TableError`] when the table is not a pool or states figures verify does not give.
    pub fn from_table(table: Table, path: &Path) -> Result<Pool, TableError> {
        let syntax = |message: String| TableError::Syntax {
            path: path.to_path_buf(),
            message,
        };
        if !is_pool(&table) {
            return Err(syntax(format!(
                "not a pool (no `\"kind\": \"{KIND}\"`); a store or a table is not a pool"
            )));
        }
        if !table.proofs.is_empty() || !table.exhaust.is_empty() || !table.sat.is_empty() {
            return Err(syntax("a pool holds no proofs or searches".into()));
        }
        let mut meta = table.meta;
        // `kind`, and anything that would make the saved pool read as another kind of table
        // (a packed table's `layout`, say): a pool is saved as a pool.
        for key in crate::table::LAYOUT_FIELDS {
            meta.remove(key);
        }
        let mut number = |key: &str, default: u64, range: std::ops::RangeInclusive<u64>| match meta
            .remove(key)
        {
            None => Ok(default),
            Some(v) => v.as_u64().filter(|n| range.contains(n)).ok_or_else(|| {
                syntax(format!(
                    "`{key}` is not a whole number from {} to {}",
                    range.start(),
                    range.end()
                ))
            }),
        };
        let gap = number("gap", u64::from(super::DEFAULT_GAP), 0..=4096)? as u32;
        let capacity = number("capacity", super::DEFAULT_CAPACITY as u64, 1..=1 << 16)? as usize;
        let mut pool = Pool::new(gap, capacity);
        pool.meta = meta;
        let mut pairs: BTreeMap<_, Occupancies> = BTreeMap::new();
        for (k, mut entry) in table.entries.into_iter().enumerate() {
            let occ = pairs
                .entry(entry.target)
                .or_insert_with(|| Occupancies::new(entry.target));
            let pattern = Pattern::from_pairs(occ, entry.formula, entry.bits, entry.magic)
                .expect("a parsed entry is verified");
            for (key, verified) in [
                ("slots", pattern.used()),
                ("footprint", pattern.footprint(gap)),
            ] {
                match entry.extra.remove(key) {
                    None => {}
                    Some(v) if v.as_u64() == Some(u64::from(verified)) => {}
                    Some(v) => {
                        return Err(TableError::Entry {
                            path: path.to_path_buf(),
                            list: "entry",
                            index: k,
                            what: format!("{} {}", entry.target.piece, entry.target.square),
                            message: format!(
                                "{key} {v} in the file, but verify gives {verified} (gap {gap})"
                            ),
                        })
                    }
                }
            }
            let what = format!("{} {}", entry.target.piece, entry.target.square);
            if pool.offer(entry, &pattern) == super::Taken::Refused {
                return Err(TableError::Entry {
                    path: path.to_path_buf(),
                    list: "entry",
                    index: k,
                    what,
                    message: format!(
                        "the pool holds its slot pattern already, or {capacity} better magics of its question"
                    ),
                });
            }
        }
        for e in table.effort {
            pool.unite_effort(e);
        }
        Ok(pool)
    }

    /// The pool in the table format (members best first per question, questions in order);
    /// the same pool gives the same bytes.
    #[must_use]
    pub fn to_table(&self) -> Table {
        let mut meta = self.meta.clone();
        meta.insert("kind".into(), json!(KIND));
        meta.insert("gap".into(), json!(self.gap));
        meta.insert("capacity".into(), json!(self.capacity));
        let entries = self
            .groups()
            .flat_map(|(_, g)| g.iter())
            .map(|m: &Member| {
                let mut e = m.entry.clone();
                e.extra.insert("slots".into(), json!(m.slots));
                e.extra.insert("footprint".into(), json!(m.footprint));
                e
            })
            .collect();
        Table {
            meta,
            entries,
            effort: self.effort().cloned().collect(),
            ..Table::default()
        }
    }

    /// Writes the pool atomically (temporary file, fsync, rename), gzip-compressed when the
    /// name ends in `.gz`, through the output guard ([`crate::fs::output`]).
    ///
    /// # Errors
    /// A refusal (the file is a packed table) or the I/O error; the file on disk is then the
    /// previous one.
    pub fn save(&self, path: &Path) -> Result<(), crate::fs::output::OutputError> {
        let bytes = self.file_bytes(path)?;
        // Through the output guard: a pool may replace a pool (the one it read, say), never a
        // store or a packed table.
        crate::fs::output::write(path, &bytes, crate::fs::output::Writes::Pool, &[]).map(|_| ())
    }

    /// [`Pool::save`] to the pool `lock` holds (taken for [`Writes::Pool`](crate::fs::output::Writes::Pool)),
    /// once the lock has made sure this writer still holds it
    /// ([`crate::fs::lock::StoreLock::write`]).
    ///
    /// # Errors
    /// As [`Pool::save`], and [`NotHeld`](crate::fs::output::OutputError::NotHeld) when
    /// another process took the pool meanwhile.
    pub fn save_locked(
        &self,
        lock: &crate::fs::lock::StoreLock,
    ) -> Result<(), crate::fs::output::OutputError> {
        lock.write(&self.file_bytes(lock.store())?)
    }

    /// The bytes of the pool's file at `path`: its JSON, gzip-compressed when the name ends in
    /// `.gz`.
    fn file_bytes(&self, path: &Path) -> Result<Vec<u8>, crate::fs::output::OutputError> {
        let text = self.to_table().to_json();
        if !is_gz(path) {
            return Ok(text.into_bytes());
        }
        let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text.as_bytes())
            .and_then(|()| gz.finish())
            .map_err(|error| crate::fs::output::OutputError::Write {
                path: path.to_path_buf(),
                error,
            })
    }
}
