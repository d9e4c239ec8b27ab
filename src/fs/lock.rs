//! A store lock, so that exactly one process writes a store: an OS advisory lock (`flock`)
//! held on the open file `<store>.lock` for as long as the writer runs.
//!
//! The kernel releases the lock when the process ends, however it ends (`kill -9`, a crash,
//! a reboot), so there is no stale lock to judge and nothing to delete by guesswork: whoever
//! holds the lock on the file at that path is the writer. The file holds the owner's pid only
//! to name it in the message of a refused second writer; an empty or foreign pid means
//! nothing. The store path is resolved to its real file first (symlinks followed), so a link
//! and its target take the same lock and the save replaces the real file, not the link.
//!
//! The lock file itself is never followed and never shared: it is opened with `O_NOFOLLOW`
//! (created with `O_EXCL` when it is not there), and refused in one line unless it is a regular
//! file with one name (no hard link to another file) that holds what a lock file holds, a pid
//! or nothing. So a link planted at `<store>.lock` is never cut down to a pid.
//!
//! A lock file can be removed by anyone who may write the folder (as one removes a "stale"
//! lock). So before every save the writer checks ([`StoreLock::write`]) that the path still
//! names the file it locked and that the store is still the file it last read or wrote
//! (device, inode, length, modification time). If another process took the store meanwhile
//! (a new lock file at the path, or a store written since), the save is refused with one
//! line and nothing is written: another writer's work is never silently dropped. If the lock
//! file was only removed and the store is unchanged, the writer takes the lock again and
//! saves.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::output::{self, OutputError, Writes};
pub use super::path::lock_path;
use super::path::{describe, holds_a_pid, real_path, Stamp, LOCK_BYTES};
use super::replace::remove_leftovers;

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
    /// What is at the lock file's path is not a lock file of magichunt's.
    #[error("refusing to lock store {store}: the lock file {lock} is {what}; remove it if it is not in use")]
    NotALock {
        /// The store.
        store: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// What it is instead.
        what: String,
    },
    /// The store may not be written by this command (a packed table, a pool, a lock file).
    #[error(transparent)]
    Refused(#[from] OutputError),
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
    held: Mutex<Held>,
    path: PathBuf,
    store: PathBuf,
    writes: Writes,
    removed: Vec<PathBuf>,
}

/// The open, locked lock file (closing it releases the lock) and the store as last seen.
#[derive(Debug)]
struct Held {
    file: File,
    /// The lock file's device and inode.
    id: (u64, u64),
    /// The store when the lock was taken or last written (`None`: no store yet).
    seen: Option<Stamp>,
    /// The lock was taken again after its file was removed.
    retaken: bool,
}

/// Attempts when the lock file is replaced under us (by a holder removing it as it ends).
const ATTEMPTS: usize = 20;

/// A lock file opened: the file, and whether it was opened for writing (its pid).
struct Opened {
    file: File,
    writable: bool,
}

impl StoreLock {
    /// Resolves `store` to its real file (creating its folder if needed), takes the lock of
    /// that file, checks that a `writes` output may replace it (the output guard: a packed
    /// table is never replaced by a store, say), and removes the hidden temporary files that
    /// a process killed while saving left beside it (see [`StoreLock::removed`]).
    ///
    /// # Errors
    /// [`LockError::Busy`] when another process holds it, [`LockError::NotALock`] when the
    /// lock file's path holds a link, a hard link or another file, [`LockError::Refused`]
    /// when the store may not be written so, [`LockError::Io`] when the lock file cannot be
    /// created or locked (a read-only folder, say).
    pub fn acquire(store: &Path, writes: Writes) -> Result<StoreLock, LockError> {
        let io_err = |source| LockError::Io {
            store: store.to_path_buf(),
            source,
        };
        let real = real_path(store).map_err(io_err)?;
        let path = lock_path(&real);
        for _ in 0..ATTEMPTS {
            let Some(opened) = open_lock(store, &path)? else {
                continue;
            };
            match opened.file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy {
                        store: store.to_path_buf(),
                        lock: path,
                        pid: read_pid(&opened.file),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io_err(e)),
            }
            // The previous holder removes the file as it ends; if it did so after we opened
            // it, we hold a lock on a file nobody else can find: open the path again.
            let Some(id) = names(&path, &opened.file) else {
                continue;
            };
            if opened.writable {
                // Information only: a full disk that cannot take the pid leaves the lock held.
                let _ = write_pid(&opened.file);
            }
            let mut lock = StoreLock {
                held: Mutex::new(Held {
                    file: opened.file,
                    id,
                    seen: Stamp::at(&real),
                    retaken: false,
                }),
                path,
                store: real,
                writes,
                removed: Vec::new(),
            };
            // Under the lock, so the store cannot change between the check and the saves.
            output::check(&lock.store, writes, &[])?;
            lock.removed = remove_leftovers(&lock.store).map_err(io_err)?;
            return Ok(lock);
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

    /// The store's real path (symlinks followed): load this one, save through
    /// [`StoreLock::write`].
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
    pub fn note_removed(&self, progress: &mut dyn crate::progress::Progress) {
        for f in &self.removed {
            progress.note(&format!(
                "magichunt: removed {}, left by a process killed while saving",
                f.display()
            ));
        }
    }

    /// Whether the lock was taken again since it was acquired, its file having been removed
    /// by someone else while the store stayed as this writer left it.
    #[must_use]
    pub fn retaken(&self) -> bool {
        self.lock_held().retaken
    }

    fn lock_held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the store with `bytes` (through the output guard, atomically), once this
    /// writer has made sure it still holds the store: the lock file at the path is still the
    /// one it locked (taken again if it was removed and nobody wrote the store meanwhile), and
    /// the store is still the file it last read or wrote. Checked before the temporary file is
    /// written and again just before it is renamed over the store.
    ///
    /// # Errors
    /// [`OutputError::NotHeld`] when another process took the store meanwhile (nothing is
    /// written); any other [`OutputError`] of the guard or the write.
    pub fn write(&self, bytes: &[u8]) -> Result<(), OutputError> {
        let mut held = self.lock_held();
        self.still_held(&mut held)?;
        let stamp = output::write_locked(&self.store, bytes, self.writes, || {
            self.still_held(&mut held)
        })?;
        held.seen = Some(stamp);
        Ok(())
    }

    /// Checks that this writer still holds the store (see [`StoreLock::write`]).
    fn still_held(&self, held: &mut Held) -> Result<(), OutputError> {
        let not_held = |why: String| OutputError::NotHeld {
            path: self.store.clone(),
            why,
        };
        let changed = || {
            not_held(format!(
                "the store was written by another process since this one read or saved it (its lock file {} was removed or replaced meanwhile)",
                self.path.display()
            ))
        };
        match fs::symlink_metadata(&self.path) {
            Ok(m) if (m.dev(), m.ino()) == held.id => {}
            Ok(_) => {
                return Err(not_held(format!(
                    "its lock file {} was replaced by another process's ({}) while this one held the store",
                    self.path.display(),
                    open_lock_pid(&self.path).map_or_else(|| "no pid".to_string(), |p| format!("pid {p}"))
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if Stamp::at(&self.store) != held.seen {
                    return Err(changed());
                }
                self.retake(held).map_err(not_held)?;
            }
            Err(e) => return Err(not_held(format!("cannot see its lock file: {e}"))),
        }
        if Stamp::at(&self.store) != held.seen {
            return Err(changed());
        }
        Ok(())
    }

    /// Takes the lock again on a new lock file, the old one having been removed.
    fn retake(&self, held: &mut Held) -> Result<(), String> {
        let why = |e: String| {
            format!(
                "its lock file {} was removed while this process held the store, and it could not be taken again: {e}",
                self.path.display()
            )
        };
        let file = super::create_new(&self.path).map_err(|e| why(e.to_string()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(why("another process holds it".into())),
            Err(TryLockError::Error(e)) => return Err(why(e.to_string())),
        }
        let id = names(&self.path, &file).ok_or_else(|| why("it was replaced at once".into()))?;
        let _ = write_pid(&file);
        crate::say!(
            "magichunt: the lock file {} was removed while this process held the store; nobody wrote the store meanwhile, so the lock is taken again",
            self.path.display()
        );
        *held = Held {
            file,
            id,
            seen: held.seen,
            retaken: true,
        };
        Ok(())
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let held = self.lock_held();
        // Still holding the lock: a process that opened this file meanwhile finds, once it
        // gets the lock, that the path no longer names it, and starts again.
        if names(&self.path, &held.file) == Some(held.id) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Opens the lock file at `path` (of `store`), creating it exclusively when it is not there.
/// `None` when it vanished between two steps (try again).
fn open_lock(store: &Path, path: &Path) -> Result<Option<Opened>, LockError> {
    let io_err = |source| LockError::Io {
        store: store.to_path_buf(),
        source,
    };
    let not_a_lock = |what: String| LockError::NotALock {
        store: store.to_path_buf(),
        lock: path.to_path_buf(),
        what,
    };
    let flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
    let open = |write: bool| {
        OpenOptions::new()
            .read(true)
            .write(write)
            .custom_flags(flags)
            .open(path)
    };
    let created = match OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o666)
        .custom_flags(flags)
        .open(path)
    {
        Ok(file) => Some(file),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => None,
        Err(e) => return Err(io_err(e)),
    };
    let (file, created, writable) = match created {
        Some(f) => (f, true, true),
        None => {
            // Someone else's lock file (or a leftover): opened as it is, never followed.
            let opened = match open(true) {
                Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                    open(false).map(|f| (f, false))
                }
                r => r.map(|f| (f, true)),
            };
            match opened {
                Ok((f, w)) => (f, false, w),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                    return Err(not_a_lock(
                        "a symbolic link (a lock file is never followed)".into(),
                    ))
                }
                Err(e) => {
                    // A FIFO or a device there: say what it is rather than the error.
                    if let Some(m) = fs::symlink_metadata(path).ok().filter(|m| !m.is_file()) {
                        return Err(not_a_lock(format!("{}, not a regular file", describe(&m))));
                    }
                    return Err(io_err(e));
                }
            }
        }
    };
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Err(not_a_lock(format!(
            "{}, not a regular file",
            describe(&meta)
        )));
    }
    if meta.nlink() != 1 {
        return Err(not_a_lock(format!(
            "a file with {} names (a hard link: it may be another file)",
            meta.nlink()
        )));
    }
    if !created {
        let mut text = Vec::new();
        (&file)
            .take(LOCK_BYTES as u64 + 1)
            .read_to_end(&mut text)
            .map_err(io_err)?;
        if !holds_a_pid(&text) {
            return Err(not_a_lock(format!(
                "a file of {} bytes that holds something else than a pid (a lock file holds a pid or nothing)",
                meta.len()
            )));
        }
    }
    Ok(Some(Opened { file, writable }))
}

/// The pid in the lock file at `path`, opened without following a link.
fn open_lock_pid(path: &Path) -> Option<u32> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    f.metadata().ok().filter(fs::Metadata::is_file)?;
    read_pid(&f)
}

/// The device and inode of `file`, if `path` names it (the path itself, not followed).
fn names(path: &Path, file: &File) -> Option<(u64, u64)> {
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino() => Some((b.dev(), b.ino())),
        _ => None,
    }
}

fn read_pid(mut file: &File) -> Option<u32> {
    use std::io::Seek;
    let _ = file.seek(io::SeekFrom::Start(0));
    let mut text = String::new();
    file.take(LOCK_BYTES as u64)
        .read_to_string(&mut text)
        .ok()?;
    text.trim().parse().ok()
}

fn write_pid(mut file: &File) -> io::Result<()> {
    use std::io::Seek;
    file.set_len(0)?;
    file.seek(io::SeekFrom::Start(0))?;
    writeln!(file, "{}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acquire(p: &Path) -> Result<StoreLock, LockError> {
        StoreLock::acquire(p, Writes::Store)
    }

    #[test]
    fn one_holder_then_released() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        let lock = acquire(&store).unwrap();
        assert!(lock_path(&store).exists());
        let pid: u32 = fs::read_to_string(lock.path())
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(pid, std::process::id());
        // A second open file description of the same process is a second writer: refused.
        let err = acquire(&store).unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("in use by pid {}", std::process::id())),
            "{err}"
        );
        drop(lock);
        assert!(!lock_path(&store).exists());
        drop(acquire(&store).unwrap());
    }

    #[test]
    fn a_pid_without_a_lock_is_no_lock_and_an_empty_held_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        // Pid 1 is alive, but nobody holds the lock: the file means nothing.
        fs::write(lock_path(&store), "1\n").unwrap();
        drop(acquire(&store).unwrap());
        // Held with nothing written yet (a holder between lock and pid): busy all the same.
        let f = File::create(lock_path(&store)).unwrap();
        f.try_lock().unwrap();
        let err = acquire(&store).unwrap_err();
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
        let lock = acquire(&link).unwrap();
        assert_eq!(
            lock.store(),
            fs::canonicalize(dir.path()).unwrap().join("real/s.json")
        );
        assert!(acquire(&real).is_err());
        drop(lock);
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_lock_file_that_is_a_link_or_another_file_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        fs::write(&store, "{\"version\": 1, \"entries\": []}").unwrap();
        let other = dir.path().join("other.txt");
        fs::write(&other, "precious").unwrap();
        let lock = lock_path(&store);
        for plant in 0..4 {
            let _ = fs::remove_file(&lock);
            match plant {
                0 => std::os::unix::fs::symlink(&store, &lock).unwrap(),
                1 => std::os::unix::fs::symlink(dir.path().join("nowhere"), &lock).unwrap(),
                2 => fs::hard_link(&other, &lock).unwrap(),
                _ => fs::write(&lock, "not a pid").unwrap(),
            }
            let err = acquire(&store).unwrap_err();
            assert!(matches!(err, LockError::NotALock { .. }), "{plant}: {err}");
            assert_eq!(fs::read_to_string(&other).unwrap(), "precious");
            assert!(fs::read_to_string(&store).unwrap().contains("entries"));
        }
        assert!(!dir.path().join("nowhere").exists());
    }

    #[test]
    fn a_save_after_the_lock_was_taken_over_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        let lock = acquire(&store).unwrap();
        lock.write(b"{\"version\": 1, \"entries\": []}\n").unwrap();
        // Removed (a "stale" lock), nothing else: taken again, the save goes through.
        fs::remove_file(lock.path()).unwrap();
        lock.write(b"{\"version\": 1, \"entries\": [], \"a\": 1}\n")
            .unwrap();
        assert!(lock.retaken());
        assert!(lock_path(&store).exists());
        // Removed, and another writer saved meanwhile: refused, its save kept.
        fs::remove_file(lock.path()).unwrap();
        {
            let other = acquire(&store).unwrap();
            other
                .write(b"{\"version\": 1, \"entries\": [], \"b\": 2}\n")
                .unwrap();
        }
        let err = lock
            .write(b"{\"version\": 1, \"entries\": []}\n")
            .unwrap_err();
        assert!(matches!(err, OutputError::NotHeld { .. }), "{err}");
        assert!(fs::read_to_string(&store).unwrap().contains("\"b\""));
        // Replaced by another holder's lock file: refused too.
        let _ = fs::remove_file(lock.path());
        let other = File::create(lock.path()).unwrap();
        other.try_lock().unwrap();
        let err = lock
            .write(b"{\"version\": 1, \"entries\": []}\n")
            .unwrap_err();
        assert!(err.to_string().contains("was replaced"), "{err}");
        assert!(fs::read_to_string(&store).unwrap().contains("\"b\""));
        drop(lock);
        assert!(lock_path(&store).exists(), "another's lock file is kept");
    }
}
