//! A store lock, so that exactly one process writes a store: an OS advisory lock (`flock`)
//! held on the open file `<store>.lock` for as long as the writer runs.
//!
//! The kernel releases the lock when the process ends, however it ends (`kill -9`, a crash,
//! a reboot), so there is no stale lock to judge and nothing to delete by guesswork: whoever
//! holds the lock on the file at that path is the writer. The file holds the owner's pid only
//! to name it in the message of a refused second writer; an empty or foreign pid means
//! nothing. The store path is resolved to its real file first (symlinks followed), so a link
//! and its target take the same lock and the save replaces the real file, not the link.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::atomic::remove_leftovers;
use crate::progress::Progress;

/// Why a store could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("store {store} is in use by {} (lock file {lock})", holder(*.pid))]
    Busy {
        /// The store.
        store: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// The owner's pid, as far as the lock file tells it.
        pid: Option<u32>,
    },
    /// The lock file could not be created or locked.
    #[error("cannot lock store {store}")]
    Io {
        /// The store.
        store: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

fn holder(pid: Option<u32>) -> String {
    pid.map_or_else(|| "another process".to_string(), |p| format!("pid {p}"))
}

/// A held store lock. Dropping it removes the lock file (while still holding it, and only if
/// the path still names the locked file) and so releases it.
#[derive(Debug)]
pub struct StoreLock {
    /// The open, locked lock file; closing it releases the lock.
    file: File,
    path: PathBuf,
    store: PathBuf,
    removed: Vec<PathBuf>,
}

/// The lock file of `store`: `<store>.lock` beside it.
#[must_use]
pub fn lock_path(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

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

fn folder(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Attempts when the lock file is replaced under us (by a holder removing it as it ends).
const ATTEMPTS: usize = 20;

impl StoreLock {
    /// Resolves `store` to its real file (creating its folder if needed), takes the lock of
    /// that file, and removes the hidden temporary files that a process killed while saving
    /// left beside it (see [`StoreLock::removed`]).
    ///
    /// # Errors
    /// [`LockError::Busy`] when another process holds it, [`LockError::Io`] when the lock file
    /// cannot be created or locked (a read-only folder, say).
    pub fn acquire(store: &Path) -> Result<StoreLock, LockError> {
        let io_err = |source| LockError::Io {
            store: store.to_path_buf(),
            source,
        };
        let real = real_path(store).map_err(io_err)?;
        let path = lock_path(&real);
        let not_regular = |m: &fs::Metadata| {
            io_err(io::Error::other(format!(
                "the lock file {} is {}, not a regular file",
                path.display(),
                crate::input::describe(m)
            )))
        };
        for _ in 0..ATTEMPTS {
            // A FIFO or a device there is refused before it is opened, and again once open.
            if let Some(m) = fs::metadata(&path).ok().filter(|m| !m.is_file()) {
                return Err(not_regular(&m));
            }
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .custom_flags(libc::O_NONBLOCK)
                .open(&path)
                .map_err(io_err)?;
            let meta = file.metadata().map_err(io_err)?;
            if !meta.is_file() {
                return Err(not_regular(&meta));
            }
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy {
                        store: store.to_path_buf(),
                        lock: path,
                        pid: read_pid(&file),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io_err(e)),
            }
            // The previous holder removes the file as it ends; if it did so after we opened
            // it, we hold a lock on a file nobody else can find: open the path again.
            if !names(&path, &file) {
                continue;
            }
            // Information only: a full disk that cannot take the pid leaves the lock held.
            let _ = write_pid(&file);
            let removed = remove_leftovers(&real).map_err(io_err)?;
            return Ok(StoreLock {
                file,
                path,
                store: real,
                removed,
            });
        }
        Err(io_err(io::Error::other(
            "the lock file keeps being replaced while we lock it",
        )))
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The store's real path (symlinks followed): load and save this one.
    #[must_use]
    pub fn store(&self) -> &Path {
        &self.store
    }

    /// The leftover temporary files removed when the lock was taken.
    #[must_use]
    pub fn removed(&self) -> &[PathBuf] {
        &self.removed
    }

    /// Notes on `progress`, one line each, the leftover temporary files removed when the lock
    /// was taken (what every writer says after taking the lock).
    pub fn note_removed(&self, progress: &mut dyn Progress) {
        for f in &self.removed {
            progress.note(&format!(
                "magichunt: removed {}, left by a process killed while saving",
                f.display()
            ));
        }
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        // Still holding the lock: a process that opened this file meanwhile finds, once it
        // gets the lock, that the path no longer names it, and starts again.
        if names(&self.path, &self.file) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Whether `path` names the open file `file` (same device and inode).
fn names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

fn read_pid(file: &File) -> Option<u32> {
    let mut text = String::new();
    file.take(64).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

fn write_pid(mut file: &File) -> io::Result<()> {
    file.set_len(0)?;
    writeln!(file, "{}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_then_released() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        let lock = StoreLock::acquire(&store).unwrap();
        assert!(lock_path(&store).exists());
        let pid: u32 = fs::read_to_string(lock.path())
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(pid, std::process::id());
        // A second open file description of the same process is a second writer: refused.
        let err = StoreLock::acquire(&store).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("in use by pid {}", std::process::id())),
            "{err}"
        );
        drop(lock);
        assert!(!lock_path(&store).exists());
        drop(StoreLock::acquire(&store).unwrap());
    }

    #[test]
    fn a_pid_without_a_lock_is_no_lock_and_an_empty_held_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        // Pid 1 is alive, but nobody holds the lock: the file means nothing.
        fs::write(lock_path(&store), "1\n").unwrap();
        drop(StoreLock::acquire(&store).unwrap());
        // Held with nothing written yet (a holder between lock and pid): busy all the same.
        let f = File::create(lock_path(&store)).unwrap();
        f.try_lock().unwrap();
        let err = StoreLock::acquire(&store).unwrap_err();
        assert!(
            err.to_string().contains("in use by another process"),
            "{err}"
        );
        assert!(
            lock_path(&store).exists(),
            "a refused writer deletes nothing"
        );
    }

    #[test]
    fn a_symlink_and_its_target_share_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real").join("s.json");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real/s.json", &link).unwrap();
        // Dangling: the folder is created, the link resolved all the same.
        let lock = StoreLock::acquire(&link).unwrap();
        assert_eq!(
            lock.store(),
            fs::canonicalize(dir.path()).unwrap().join("real/s.json")
        );
        assert!(StoreLock::acquire(&real).is_err());
        drop(lock);
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }
}
