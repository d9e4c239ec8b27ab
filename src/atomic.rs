//! Crash-safe file replacement: temporary file in the same folder, fsync, rename; and the
//! cleaning of temporary files that a process killed in the middle of a save left behind.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes` so that at every moment the file is either the old content or
/// the new, never a mix: the bytes go to a temporary file beside it (`.<name>.<pid>.tmp`),
/// which is synced and then renamed over `path`; the folder is synced so the rename survives
/// a power cut. A file being replaced keeps its permissions (a `chmod 444` store stays
/// read-only), and its owner and group as far as this process may set them (a group-shared
/// store stays in its group).
///
/// # Errors
/// Any I/O error; the temporary file is removed and `path` is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |f| f.write_all(bytes))
}

/// [`write_atomic`] with the new content written by `fill` into the temporary file (a large
/// file copied in pieces rather than held in memory); an error from `fill` leaves `path` as
/// it was.
///
/// # Errors
/// Any I/O error, `fill`'s included; the temporary file is removed and `path` is left as it
/// was.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let dir = folder(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("path has no file name"))?;
    let tmp = dir.join(temporary_name(name, std::process::id()));
    let old = fs::metadata(path).ok();
    let result = (|| {
        let mut f = File::create(&tmp)?;
        fill(&mut f)?;
        if let Some(old) = &old {
            keep_owner_and_mode(&f, old);
        }
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // Make the rename itself durable; not every filesystem allows syncing a folder.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Gives the new file `f` the owner, group and permissions of the file it replaces. The owner
/// and group are tried (only root may give a file away; a member of the group may set it) and
/// left as they come when refused; the permissions are set after them, since a change of
/// owner can clear some. Best effort: a filesystem without owners or modes (FAT, some network
/// shares) still gets the save.
fn keep_owner_and_mode(f: &File, old: &fs::Metadata) {
    use std::os::unix::fs::fchown;
    let differs = f
        .metadata()
        .map_or(true, |new| (new.uid(), new.gid()) != (old.uid(), old.gid()));
    if differs && fchown(f, Some(old.uid()), Some(old.gid())).is_err() {
        let _ = fchown(f, None, Some(old.gid()));
    }
    let _ = f.set_permissions(old.permissions());
}

fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The temporary file that process `pid` writes while replacing the file `name`.
fn temporary_name(name: &OsStr, pid: u32) -> String {
    format!(".{}.{pid}.tmp", name.to_string_lossy())
}

/// The pid in `file` if it is the temporary file of a save of `name` (`.<name>.<pid>.tmp`).
fn temporary_pid(file: &OsStr, name: &OsStr) -> Option<u32> {
    let file = file.to_str()?;
    let name = name.to_str()?;
    let digits = file
        .strip_prefix('.')?
        .strip_prefix(name)?
        .strip_prefix('.')?
        .strip_suffix(".tmp")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Removes the temporary files of saves of `path` left by processes that no longer run (a
/// `kill -9` in the middle of a save), and returns them. Only regular files named exactly
/// `.<name>.<pid>.tmp` beside `path`, whose pid is not a running process, are touched. Call it
/// holding the store's lock, so that no save of ours is under way.
///
/// # Errors
/// When the folder cannot be read or a leftover cannot be removed.
pub fn remove_leftovers(path: &Path) -> io::Result<Vec<PathBuf>> {
    let Some(name) = path.file_name() else {
        return Ok(Vec::new());
    };
    let mut removed = Vec::new();
    for item in fs::read_dir(folder(path))? {
        let item = item?;
        let Some(pid) = temporary_pid(&item.file_name(), name) else {
            continue;
        };
        if pid == std::process::id() || alive(pid) || !item.file_type()?.is_file() {
            continue;
        }
        match fs::remove_file(item.path()) {
            Ok(()) => removed.push(item.path()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    removed.sort();
    Ok(removed)
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
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failure_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"old").unwrap();
        // A path whose parent is a file cannot be written.
        assert!(write_atomic(&p.join("x"), b"new").is_err());
        assert_eq!(fs::read(&p).unwrap(), b"old");
    }

    #[test]
    fn the_mode_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
            0o640
        );
    }

    #[test]
    fn only_our_temporaries_are_recognised() {
        let name = OsStr::new("best.json");
        assert_eq!(
            temporary_pid(OsStr::new(".best.json.123.tmp"), name),
            Some(123)
        );
        for other in [
            ".best.json.tmp",
            ".best.json.12a.tmp",
            ".best.json.-1.tmp",
            "best.json.123.tmp",
            ".other.json.123.tmp",
            ".best.json.123.tmp~",
            ".best.json.1.2.tmp",
        ] {
            assert_eq!(temporary_pid(OsStr::new(other), name), None, "{other}");
        }
        assert_eq!(
            temporary_name(name, 77),
            ".best.json.77.tmp",
            "the cleaner reads what the writer writes"
        );
    }
}
