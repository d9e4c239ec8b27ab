//! A store lock, so that exactly one process writes a store: `<store>.lock`, created
//! exclusively and holding the owner's pid; a lock whose process is gone is stale and replaced.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why a store could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another live process holds the lock.
    #[error("store {store} is in use by pid {pid} (lock file {lock})")]
    Busy {
        /// The store.
        store: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// The owner's pid.
        pid: u32,
    },
    /// The lock file could not be created or read.
    #[error("cannot lock store {store}")]
    Io {
        /// The store.
        store: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// A held store lock; dropping it removes the lock file.
#[derive(Debug)]
pub struct StoreLock {
    path: PathBuf,
}

/// The lock file of `store`: `<store>.lock` beside it.
#[must_use]
pub fn lock_path(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

impl StoreLock {
    /// Takes the lock of `store` (creating its folder if needed), replacing a stale lock left by
    /// a dead process.
    ///
    /// # Errors
    /// [`LockError::Busy`] when a live process holds it, [`LockError::Io`] when the lock file
    /// cannot be created (a read-only folder, say).
    pub fn acquire(store: &Path) -> Result<StoreLock, LockError> {
        let path = lock_path(store);
        let io_err = |source| LockError::Io {
            store: store.to_path_buf(),
            source,
        };
        if let Some(dir) = store.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_err)?;
        }
        // Two tries: the second after removing a stale lock.
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    writeln!(f, "{}", std::process::id()).map_err(io_err)?;
                    f.sync_all().map_err(io_err)?;
                    return Ok(StoreLock { path });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let text = match fs::read_to_string(&path) {
                        Ok(t) => t,
                        Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(io_err(e)),
                    };
                    match text.trim().parse::<u32>() {
                        Ok(pid) if pid != std::process::id() && alive(pid) => {
                            return Err(LockError::Busy {
                                store: store.to_path_buf(),
                                lock: path,
                                pid,
                            });
                        }
                        // Our own pid (a reused one), a dead process, or garbage: stale.
                        _ => fs::remove_file(&path).map_err(io_err)?,
                    }
                }
                Err(e) => return Err(io_err(e)),
            }
        }
        Err(io_err(io::Error::other(
            "the lock file keeps reappearing; another process is starting on it",
        )))
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether process `pid` exists: `/proc/<pid>` where there is a `/proc`, else `kill -0`.
fn alive(pid: u32) -> bool {
    if Path::new("/proc/self").exists() {
        return Path::new(&format!("/proc/{pid}")).exists();
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
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
        // A live foreign pid (our parent, say pid 1) makes it busy.
        fs::write(lock.path(), "1\n").unwrap();
        let err = StoreLock::acquire(&store).unwrap_err();
        assert!(err.to_string().contains("in use by pid 1"), "{err}");
        fs::write(lock.path(), format!("{}\n", std::process::id())).unwrap();
        drop(lock);
        assert!(!lock_path(&store).exists());
    }

    #[test]
    fn stale_lock_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.json");
        // No process has pid 4_000_000 (above Linux's pid_max ceiling).
        fs::write(lock_path(&store), "4000000\n").unwrap();
        let lock = StoreLock::acquire(&store).unwrap();
        let pid: u32 = fs::read_to_string(lock.path())
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(pid, std::process::id());
    }
}
