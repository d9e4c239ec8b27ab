//! Paths and what a file is: the real path of a store (symlinks followed), the folder of a
//! file, a few words for a file that is not a regular one, and the stamp that tells whether a
//! file is still the one last seen.

use std::fs::{self, Metadata};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Symbolic links followed before giving up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// The real path of a store: every symbolic link followed (a link to a store not created yet
/// included), the folder made canonical. A missing folder is created.
///
/// # Errors
/// When the path has no file name, a link loops, or the folder cannot be created.
pub fn real_path(store: &Path) -> io::Result<PathBuf> {
    let mut p = store.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                // A relative target is relative to the link's folder; `join` keeps an
                // absolute one as it is.
                p = folder(&p).join(fs::read_link(&p)?);
            }
            Ok(_) => return fs::canonicalize(&p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let name = p
                    .file_name()
                    .ok_or_else(|| io::Error::other("the store path has no file name"))?
                    .to_os_string();
                let dir = folder(&p);
                fs::create_dir_all(&dir)?;
                return Ok(fs::canonicalize(&dir)?.join(name));
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The folder of `p` (`.` for a bare file name).
#[must_use]
pub fn folder(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A few words for a file that is not a regular one.
#[must_use]
pub fn describe(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe) or a pipe"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// What identifies one state of a file: its device and inode (a file renamed over it is
/// another), its length and modification time (one rewritten in place).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

impl Stamp {
    /// The stamp of `meta`.
    #[must_use]
    pub fn of(meta: &Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }

    /// The stamp of the file at `path` now (symlinks followed), `None` when there is none.
    #[must_use]
    pub fn at(path: &Path) -> Option<Stamp> {
        fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }
}

/// The lock file of `store`: `<store>.lock` beside it.
#[must_use]
pub fn lock_path(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// The most a lock file holds: a pid and a newline.
pub(crate) const LOCK_BYTES: usize = 32;

/// Whether `text` is what a lock file holds: nothing, or a pid (decimal digits) and a newline.
#[must_use]
pub(crate) fn holds_a_pid(text: &[u8]) -> bool {
    let digits = text.strip_suffix(b"\n").unwrap_or(text);
    text.len() <= LOCK_BYTES && digits.iter().all(u8::is_ascii_digit)
}
