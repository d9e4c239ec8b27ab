//! The one room through which magichunt opens, creates, locks or replaces a file. Nothing
//! outside it calls `File::open`, `File::create`, `OpenOptions`, `fs::write`, `fs::rename` or
//! `fs::remove_file` (`tests/imports.rs` greps `src/` for them), so the rules below are a
//! property of the layout, not of each caller:
//!
//! - **Reading** ([`input`]): regular files only, opened without blocking and checked again
//!   once open, read within bounds; each file read is remembered for the output guard.
//! - **Replacing** ([`output`], the guard, then [`replace`]): an output never replaces a file
//!   the command reads, a lock file, or a store, packed table or pool the command was not
//!   asked to update; the new content goes to a temporary file created exclusively
//!   (`O_CREAT | O_EXCL | O_NOFOLLOW`, an unpredictable name, never through a link), synced,
//!   then renamed over the file.
//! - **Locking** ([`lock`]): one writer per store, an OS lock on `<store>.lock`, opened with
//!   `O_NOFOLLOW` and refused unless it is a regular file with one name that holds a pid or
//!   nothing. Before every save the writer checks that the path still names the file it
//!   locked and that the store is still what it last read or wrote.
//! - **Creating** ([`create_new`], [`scratch`], [`create_dir`]): a scratch file (the
//!   solver's raw proof) is created exclusively under an unpredictable name.
//!
//! Imports inside the room run one way: `path` below everything, then `replace` and `input`,
//! then `output` (the guard), then `lock`.

pub mod input;
pub mod lock;
pub mod output;
mod path;
pub mod replace;

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

pub use path::{describe, folder, real_path, Stamp};

/// Creates `path` for writing, exclusively: it must not exist (a symlink there, dangling or
/// not, is an existing file), so nothing is ever written through a link or into another
/// file's inode.
///
/// # Errors
/// [`io::ErrorKind::AlreadyExists`] when something is there; any other I/O error.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .read(true)
        .create_new(true)
        .mode(0o666)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// An unpredictable 64-bit value: std's per-process random hash keys, advanced by a counter
/// and the clock. Names made from it cannot be planted in advance (and [`create_new`] refuses
/// one that was).
#[must_use]
pub fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(nanos);
    h.finish()
}

/// Names tried before [`scratch`] and the temporary files of a save give up (each one taken
/// already: planted, or a leftover).
pub(crate) const NAME_ATTEMPTS: usize = 16;

/// Creates a scratch file in `dir` named `<stem>.<16 hex digits><ext>`, exclusively (see
/// [`create_new`]); a name taken already is passed over for another.
///
/// # Errors
/// When no name could be created.
pub fn scratch(dir: &Path, stem: &str, ext: &str) -> io::Result<(File, PathBuf)> {
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let path = dir.join(format!("{stem}.{:016x}{ext}", unpredictable()));
        match create_new(&path) {
            Ok(f) => return Ok((f, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no name left")))
}

/// Opens for reading a file this process created itself (a scratch file), not following a
/// link.
///
/// # Errors
/// Any I/O error.
pub fn open_own(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Removes a file this process created (a scratch file); a missing one is no error.
pub fn remove_own(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// Creates the folder `dir` and its parents (those already there are fine).
///
/// # Errors
/// Any I/O error.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_is_never_made_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        for p in [&link, &dangling, &victim] {
            let e = create_new(p).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{p:?}");
        }
        assert!(!dir.path().join("nowhere").exists());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let (_, a) = scratch(dir.path(), ".x", ".tmp").unwrap();
        let (_, b) = scratch(dir.path(), ".x", ".tmp").unwrap();
        assert_ne!(a, b);
        assert!(a.file_name().unwrap().to_str().unwrap().starts_with(".x."));
    }
}
