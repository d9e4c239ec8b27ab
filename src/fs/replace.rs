//! Crash-safe file replacement: a temporary file created exclusively in the same folder,
//! synced, then renamed over the file; the same with a hard link where the file must not exist
//! yet; and the cleaning of temporary files that a process killed in the middle of a save left
//! behind.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::path::{folder, Stamp};
use super::{create_new, unpredictable, NAME_ATTEMPTS};

/// Replaces `path` with `bytes` so that at every moment the file is either the old content or
/// the new, never a mix: the bytes go to a temporary file beside it
/// (`.<name>.<pid>.<16 hex digits>.tmp`, created exclusively: never through a link, never into
/// a file that is there already), which is synced and then renamed over `path`; the folder is
/// synced so the rename survives a power cut. A file being replaced keeps its permissions (a
/// `chmod 444` store stays read-only), and its owner and group as far as this process may set
/// them (a group-shared store stays in its group).
///
/// # Errors
/// Any I/O error; the temporary file is removed and `path` is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<Stamp> {
    write_atomic_with(path, |f| f.write_all(bytes), || Ok(()))
}

/// [`write_atomic`] with the new content written by `fill` into the temporary file (a large
/// file copied in pieces rather than held in memory), and `last` called once the content is
/// synced, just before the rename: an error from either leaves `path` as it was. Returns the
/// stamp of the new file.
///
/// # Errors
/// Any I/O error, `fill`'s and `last`'s included; the temporary file is removed and `path` is
/// left as it was.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
    last: impl FnOnce() -> io::Result<()>,
) -> io::Result<Stamp> {
    publish(path, fill, last, Publish::Replace)
}

/// Writes `bytes` to `path`, which must not exist: the temporary file is linked to `path`
/// (which fails if anything is there, a link included) instead of renamed over it, so a file
/// created meanwhile by someone else is never replaced.
///
/// # Errors
/// [`io::ErrorKind::AlreadyExists`] when `path` exists; any other I/O error. The temporary
/// file is removed either way.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<Stamp> {
    publish(path, |f| f.write_all(bytes), || Ok(()), Publish::New)
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Publish {
    Replace,
    New,
}

fn publish(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
    last: impl FnOnce() -> io::Result<()>,
    how: Publish,
) -> io::Result<Stamp> {
    let dir = folder(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("path has no file name"))?;
    let old = match how {
        Publish::Replace => fs::metadata(path).ok(),
        Publish::New => None,
    };
    let (mut f, tmp) = temporary(&dir, name)?;
    let result = (|| {
        fill(&mut f)?;
        if let Some(old) = &old {
            keep_owner_and_mode(&f, old);
        }
        f.sync_all()?;
        last()?;
        match how {
            Publish::Replace => fs::rename(&tmp, path)?,
            Publish::New => {
                fs::hard_link(&tmp, path)?;
                let _ = fs::remove_file(&tmp);
            }
        }
        // The file keeps its inode through the rename: its stamp is the new file's.
        let stamp = Stamp::of(&f.metadata()?);
        drop(f);
        // Make the rename itself durable; not every filesystem allows syncing a folder.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(stamp)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates the temporary file of a save of `name` in `dir`, exclusively, under a name nobody
/// could plant beforehand (one taken already is passed over).
fn temporary(dir: &Path, name: &OsStr) -> io::Result<(File, PathBuf)> {
    let mut last = None;
    for _ in 0..NAME_ATTEMPTS {
        let tmp = dir.join(temporary_name(name, std::process::id(), unpredictable()));
        match create_new(&tmp) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name left")))
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

/// The temporary file that process `pid` writes while replacing the file `name`.
fn temporary_name(name: &OsStr, pid: u32, random: u64) -> String {
    format!(".{}.{pid}.{random:016x}.tmp", name.to_string_lossy())
}

/// The pid in `file` if it is the temporary file of a save of `name`: `.<name>.<pid>.<16 hex
/// digits>.tmp`, or `.<name>.<pid>.tmp` as earlier builds named it.
fn temporary_pid(file: &OsStr, name: &OsStr) -> Option<u32> {
    let file = file.to_str()?;
    let name = name.to_str()?;
    let rest = file
        .strip_prefix('.')?
        .strip_prefix(name)?
        .strip_prefix('.')?
        .strip_suffix(".tmp")?;
    let digits = match rest.split_once('.') {
        Some((pid, random))
            if random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            pid
        }
        Some(_) => return None,
        None => rest,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Removes the temporary files of saves of `path` left by processes that no longer run (a
/// `kill -9` in the middle of a save), and returns them. Only regular files (not links) named
/// as [`write_atomic`] names them beside `path`, whose pid is not a running process, are
/// touched. Call it holding the store's lock, so that no save of ours is under way.
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
        assert_eq!(
            temporary_pid(OsStr::new(".best.json.123.00ff00ff00ff00ff.tmp"), name),
            Some(123)
        );
        for other in [
            ".best.json.123.00ff00ff00ff00f.tmp",
            ".best.json.123.00ff00ff00ff00fg.tmp",
            ".best.json.123.x.00ff00ff00ff00ff.tmp",
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
        let written = temporary_name(name, 77, 0xabc);
        assert_eq!(written, ".best.json.77.0000000000000abc.tmp");
        assert_eq!(
            temporary_pid(OsStr::new(&written), name),
            Some(77),
            "the cleaner reads what the writer writes"
        );
    }

    #[test]
    fn a_planted_link_or_hard_link_receives_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_atomic(&p, b"old").unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, b"victim").unwrap();
        // The names earlier builds used, planted as a symlink and a hard link to the victim.
        let pid = std::process::id();
        std::os::unix::fs::symlink(&victim, dir.path().join(format!(".s.json.{pid}.tmp"))).unwrap();
        fs::hard_link(&victim, dir.path().join(format!(".s.json.{pid}.1.tmp"))).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"victim");
        assert_eq!(fs::read(&p).unwrap(), b"new");
        let (m, v) = (fs::metadata(&p).unwrap(), fs::metadata(&victim).unwrap());
        assert_ne!(m.ino(), v.ino());
        assert_eq!(m.nlink(), 1);
    }

    #[test]
    fn a_new_file_never_replaces_one_there() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        write_new(&p, b"first").unwrap();
        let e = write_new(&p, b"second").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&p).unwrap(), b"first");
        let link = dir.path().join("l.json");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        assert!(write_new(&link, b"x").is_err());
        assert!(!dir.path().join("nowhere").exists());
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary left"
        );
    }
}
