//! The one way magichunt opens a file it reads: stores, tables, pools, certificates, the
//! cache of checks. [`open`] takes regular files only, and never blocks doing so: a FIFO, a
//! device, a socket or a folder (symlinks to them included) is refused in one line before it
//! is opened, and the file is opened non-blocking and checked again (`fstat`) once open, so a
//! file swapped for a FIFO in between is refused too. [`Bounded`] caps what a reader may
//! yield (a gzip bomb ends at the cap with an error, not in an exhausted memory).
//!
//! Every file opened here is remembered for the rest of the process with what it was read as
//! ([`Kind`]): the output guard ([`super::output`]) never lets a command replace a file it
//! reads, except the one it updates (a store its save, a packed table `pack --from` resumes,
//! a pool its hunt, a certificate `prove` writes again, the cache its own save).

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, BufRead, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use super::path::describe;

/// The most a table file (a store, a packed or published table, a pool once unpacked) may
/// hold: 256 MiB. The shipped store is 0.7 MB; a store with the residues of 4096 parts of one
/// search about 30 MB. A larger file is refused before it fills memory.
pub const MAX_TABLE_BYTES: u64 = 256 << 20;

/// The most a table may hold once parsed, in units of about 32 bytes of parsed JSON: each
/// value in a list, each key and each list counts 1, each object 20 (the node it allocates).
/// 2^23 units is about 256 MiB parsed; the shipped pool (23,692 magics) takes 1.5 million,
/// the shipped store 62,000. A table of a few bytes per value (`[0,0,0,...]` or `[{"":0},...]`,
/// which a gzip bomb unpacks by the hundred million) would take 16 to 200 times its size
/// parsed: it is refused when it passes this, however few bytes it has.
pub const MAX_JSON_UNITS: u64 = 1 << 23;

/// The most the cache of checks may hold (a larger one is ignored, and checks made again).
pub const MAX_CACHE_BYTES: u64 = 64 << 20;

/// What a file was read as: what may replace it ([`super::output::Writes`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A results store (`--store`, the inputs of `merge`, an existing `merge --out`).
    Store,
    /// A packed table (`pack --from`, `export --packed`, `compare --packed`).
    PackedTable,
    /// A pool of magics (`pack --pool`, `hunt --pool`, the inputs of a pool merge).
    Pool,
    /// An LRAT certificate named by a store.
    Certificate,
    /// The user's cache of checks.
    Cache,
    /// Read only to tell what a file is (a pool or a store?).
    Probe,
    /// Anything else (`compare --against`, `verify --file`, `Cargo.toml`): never replaced.
    Other,
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// It is not a regular file.
    #[error("refusing to read {path}: it is {what}, not a regular file")]
    NotRegular {
        /// The file as named.
        path: PathBuf,
        /// `a FIFO (named pipe)`, `a character device`, `a folder`, ...
        what: &'static str,
    },
    /// It could not be opened or read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file as named.
        path: PathBuf,
        /// The I/O error (not a source: its text is in the message once).
        error: io::Error,
    },
}

impl InputError {
    /// Whether the file does not exist.
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        matches!(self, InputError::Io { error, .. } if error.kind() == io::ErrorKind::NotFound)
    }
}

/// One file read by this process.
#[derive(Clone, Debug)]
struct Read1 {
    real: PathBuf,
    /// Device, inode and status-change time: the same file under another name (a hard
    /// link), and not a later file given the inode of one since deleted.
    id: (u64, u64, i64, i64),
    kind: Kind,
}

fn id_of(meta: &Metadata) -> (u64, u64, i64, i64) {
    (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
}

static READ: Mutex<Vec<Read1>> = Mutex::new(Vec::new());

/// Opens `path` for reading as `kind`: a regular file only (symlinks followed), opened
/// without blocking, remembered as read (see the module documentation).
///
/// # Errors
/// [`InputError::NotRegular`] for a FIFO, a device, a socket or a folder; [`InputError::Io`]
/// when it does not exist or cannot be opened.
pub fn open(path: &Path, kind: Kind) -> Result<File, InputError> {
    let (file, meta) = open_regular(path)?;
    remember(path, &meta, kind);
    Ok(file)
}

/// [`open`] without remembering the file as read: for the output guard, which reads an
/// existing output only to tell what it is.
///
/// # Errors
/// As [`open`].
pub fn open_unremembered(path: &Path) -> Result<File, InputError> {
    open_regular(path).map(|(file, _)| file)
}

fn open_regular(path: &Path) -> Result<(File, Metadata), InputError> {
    let io_err = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    let before = std::fs::metadata(path).map_err(io_err)?;
    if !before.is_file() {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            what: describe(&before),
        });
    }
    // O_NONBLOCK: a FIFO put there since the check opens at once instead of waiting for a
    // writer (it is refused just below); on a regular file the flag changes nothing.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io_err)?;
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            what: describe(&meta),
        });
    }
    Ok((file, meta))
}

/// Reads the whole of `path` (as [`open`]), at most `limit` bytes.
///
/// # Errors
/// As [`open`], and [`InputError::Io`] when it holds more than `limit` bytes.
pub fn read(path: &Path, kind: Kind, limit: u64) -> Result<Vec<u8>, InputError> {
    let file = open(path, kind)?;
    let mut bytes = Vec::new();
    Bounded::new(file, limit, path)
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    Ok(bytes)
}

/// Records that the command reads `path` as `kind` without opening it (a store's
/// certificates, which its proofs stand on). A path that does not exist is not recorded:
/// there is nothing there to lose.
pub fn note(path: &Path, kind: Kind) {
    if let Ok(meta) = std::fs::metadata(path) {
        remember(path, &meta, kind);
    }
}

fn remember(path: &Path, meta: &Metadata, kind: Kind) {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut read = lock_read();
    let id = id_of(meta);
    let known = read
        .iter()
        .any(|r| r.kind == kind && r.id == id && r.real == real);
    if !known {
        read.push(Read1 { real, id, kind });
    }
}

fn lock_read() -> std::sync::MutexGuard<'static, Vec<Read1>> {
    READ.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What this process has read the file at `real` (its real path: symlinks followed) as, matched by path and, when it exists, by device and inode
/// (a hard link is the same file): every kind, each once.
#[must_use]
pub fn read_as(real: &Path) -> Vec<Kind> {
    let id = std::fs::metadata(real).ok().map(|m| id_of(&m));
    let mut kinds: Vec<Kind> = lock_read()
        .iter()
        .filter(|r| r.real == real || id == Some(r.id))
        .map(|r| r.kind)
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// A reader that yields at most `limit` bytes: one more is an error naming the file and the
/// limit, so a parser reading from it stops there with a clear message.
#[derive(Debug)]
pub struct Bounded<R> {
    inner: R,
    left: u64,
    limit: u64,
    path: PathBuf,
}

impl<R> Bounded<R> {
    /// `inner`, capped at `limit` bytes; `path` names it in the error.
    pub fn new(inner: R, limit: u64, path: &Path) -> Bounded<R> {
        Bounded {
            inner,
            left: limit,
            limit,
            path: path.to_path_buf(),
        }
    }

    fn too_large(&self) -> io::Error {
        io::Error::other(format!(
            "{} holds more than {} MiB (the most magichunt reads of it)",
            self.path.display(),
            self.limit >> 20
        ))
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // One byte more than allowed tells a full file from a larger one.
            let mut one = [0u8; 1];
            return match self.inner.read(&mut one)? {
                0 => Ok(0),
                _ => Err(self.too_large()),
            };
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Bounded<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.left == 0 {
            let more = !self.inner.fill_buf()?.is_empty();
            if more {
                return Err(self.too_large());
            }
            return Ok(&[]);
        }
        let left = usize::try_from(self.left).unwrap_or(usize::MAX);
        let buf = self.inner.fill_buf()?;
        Ok(&buf[..buf.len().min(left)])
    }

    fn consume(&mut self, amt: usize) {
        self.left = self.left.saturating_sub(amt as u64);
        self.inner.consume(amt);
    }
}

/// Counts the units of [`MAX_JSON_UNITS`] in JSON text as it goes by, without parsing it:
/// structural characters outside strings.
#[derive(Clone, Debug, Default)]
struct JsonUnits {
    in_string: bool,
    escape: bool,
    units: u64,
}

impl JsonUnits {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'[' | b',' | b':' => self.units += 1,
                    b'{' => self.units += 20,
                    _ => {}
                }
            }
        }
    }
}

fn too_many_values(path: &Path) -> io::Error {
    io::Error::other(format!(
        "{} holds more JSON values than magichunt reads of one table (about 256 MiB once parsed)",
        path.display()
    ))
}

/// Checks that the JSON text `bytes` (named `path`) parses to at most [`MAX_JSON_UNITS`].
///
/// # Errors
/// When it holds more.
pub fn check_json_units(bytes: &[u8], path: &Path) -> io::Result<()> {
    let mut u = JsonUnits::default();
    u.feed(bytes);
    if u.units > MAX_JSON_UNITS {
        return Err(too_many_values(path));
    }
    Ok(())
}

/// A reader of JSON text that fails once the text holds more than [`MAX_JSON_UNITS`]: a
/// parser reading from it stops there, before the values fill memory.
#[derive(Debug)]
pub struct JsonBounded<R> {
    inner: R,
    units: JsonUnits,
    path: PathBuf,
}

impl<R> JsonBounded<R> {
    /// `inner`, JSON text named `path` in the error.
    pub fn new(inner: R, path: &Path) -> JsonBounded<R> {
        JsonBounded {
            inner,
            units: JsonUnits::default(),
            path: path.to_path_buf(),
        }
    }
}

impl<R: Read> Read for JsonBounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.units.feed(&buf[..n]);
        if self.units.units > MAX_JSON_UNITS {
            return Err(too_many_values(&self.path));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_opened_and_each_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("store.json");
        std::fs::write(&f, b"{}").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(open(&link, Kind::Store).is_ok());
        let real = std::fs::canonicalize(&f).unwrap();
        assert_eq!(read_as(&real), vec![Kind::Store]);
        assert!(matches!(
            open(dir.path(), Kind::Store),
            Err(InputError::NotRegular {
                what: "a folder",
                ..
            })
        ));
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(
            read(&zero, Kind::Certificate, 10),
            Err(InputError::NotRegular { .. })
        ));
        assert!(open(&dir.path().join("missing"), Kind::Store)
            .unwrap_err()
            .is_not_found());
    }

    #[test]
    fn json_values_are_counted_outside_strings_and_capped() {
        let mut u = JsonUnits::default();
        u.feed(br#"{"a":[1,2],"b":"x,[{:\",y"}"#);
        assert_eq!(u.units, 20 + 1 + 1 + 1 + 1 + 1);
        let p = Path::new("t.json");
        assert!(check_json_units(b"[0,0,0]", p).is_ok());
        let zeros = format!("[{}0]", "0,".repeat(MAX_JSON_UNITS as usize));
        assert!(check_json_units(zeros.as_bytes(), p).is_err());
        let mut r = JsonBounded::new(zeros.as_bytes(), p);
        assert!(r.read_to_end(&mut Vec::new()).is_err());
    }

    #[test]
    fn a_bounded_reader_stops_one_byte_past_its_limit() {
        let p = Path::new("x");
        let mut out = Vec::new();
        assert!(Bounded::new(&b"abcd"[..], 4, p)
            .read_to_end(&mut out)
            .is_ok());
        assert_eq!(out, b"abcd");
        let err = Bounded::new(&b"abcde"[..], 4, p)
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(err.to_string().contains("more than"), "{err}");
        let mut lines = Bounded::new(&b"ab\ncd\nef"[..], 6, p);
        let mut line = String::new();
        lines.read_line(&mut line).unwrap();
        assert_eq!(line, "ab\n");
        assert!(lines.read_to_string(&mut String::new()).is_err());
    }
}
