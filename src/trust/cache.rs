//! The user's cache of checks that passed: certificates this build checked and parts of
//! exhaustive searches it ran in full or audited. It lives outside every store
//! (`$MAGICHUNT_CACHE`, else `$XDG_CACHE_HOME/magichunt/checked.json`, else
//! `~/.cache/magichunt/checked.json`), so a store received from elsewhere cannot vouch for
//! itself, and it is keyed by content (a certificate's SHA-256 with its CNF's, a part's record
//! with its residue), so a changed file or record is a new key and is checked again.
//!
//! The cache only saves time: a lost or unreadable cache means checking again. A file's
//! SHA-256 is kept by its real path with its length, modification time, status-change time
//! (`ctime`), device and inode, so that a large certificate is not hashed again on every
//! command; a file replaced by another, or rewritten in place with its length and
//! modification time put back (`touch -r`), has another inode or a new `ctime`, which only
//! the kernel sets, and is hashed (and checked) again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::fs::input::{self, InputError};
use crate::fs::output::{self, OutputError, Writes};

/// The environment variable naming the cache file (`off` disables the cache).
pub const CACHE_ENV: &str = "MAGICHUNT_CACHE";

/// A certificate that checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CertificateCheck {
    /// When (RFC 3339).
    pub at: String,
}

/// What was checked of one part of an exhaustive search.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartCheck {
    /// Searched in full here, residue computed from the start.
    #[serde(default)]
    pub run_here: bool,
    /// Blocks re-run by audits that matched the record.
    #[serde(default)]
    pub audited: BTreeSet<u64>,
}

/// A file's SHA-256, known for one (length, modification time, status-change time, device,
/// inode). An entry of an older cache (length and modification time only) never matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct FileHash {
    len: u64,
    mtime_ns: i128,
    #[serde(default)]
    ctime_ns: i128,
    #[serde(default)]
    dev: u64,
    #[serde(default)]
    ino: u64,
    sha256: String,
}

/// A file whose status changed more recently than this before it was hashed is hashed
/// again next time (see [`Cache::remember_sha256`]).
pub const RACY: std::time::Duration = std::time::Duration::from_secs(2);

/// What identifies one content of a file, short of reading it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    dev: u64,
    ino: u64,
}

impl FileStamp {
    /// The stamp of a file's metadata (from `stat` or `fstat`).
    #[must_use]
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        FileStamp {
            len: meta.len(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }

    fn matches(&self, f: &FileHash) -> bool {
        f.ctime_ns != 0
            && (f.len, f.mtime_ns, f.ctime_ns, f.dev, f.ino)
                == (self.len, self.mtime_ns, self.ctime_ns, self.dev, self.ino)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    #[serde(default)]
    certificates: BTreeMap<String, CertificateCheck>,
    #[serde(default)]
    parts: BTreeMap<String, PartCheck>,
    #[serde(default)]
    files: BTreeMap<String, FileHash>,
}

/// The cache, read once per command and saved when something was added.
#[derive(Clone, Debug, Default)]
pub struct Cache {
    path: Option<PathBuf>,
    data: CacheFile,
    forgotten: BTreeSet<String>,
    dirty: bool,
}

impl Cache {
    /// The user's cache (see the module documentation); empty when it does not exist yet or
    /// cannot be read (said once on stderr), disabled when `MAGICHUNT_CACHE=off` or no home
    /// folder is known.
    #[must_use]
    pub fn open() -> Cache {
        let path = match std::env::var_os(CACHE_ENV) {
            Some(v) if v == "off" || v.is_empty() => None,
            Some(v) => Some(PathBuf::from(v)),
            None => std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .map(|d| d.join("magichunt").join("checked.json")),
        };
        match path {
            Some(p) => Cache::at(&p),
            None => Cache::default(),
        }
    }

    /// The cache in the file `path` (a regular file of at most
    /// [`MAX_CACHE_BYTES`](crate::fs::input::MAX_CACHE_BYTES); anything else is said once on
    /// stderr and ignored).
    #[must_use]
    pub fn at(path: &Path) -> Cache {
        let read = input::read(path, input::Kind::Cache, input::MAX_CACHE_BYTES).and_then(|b| {
            input::check_json_units(&b, path)
                .map(|()| b)
                .map_err(|error| input::InputError::Io {
                    path: path.to_path_buf(),
                    error,
                })
        });
        let data = match read {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                crate::say!(
                    "magichunt: ignoring the cache {} ({e}); checks are made again",
                    path.display()
                );
                CacheFile::default()
            }),
            Err(e) if e.is_not_found() => CacheFile::default(),
            Err(e) => {
                crate::say!("magichunt: ignoring the cache of checks ({e}); checks are made again");
                CacheFile::default()
            }
        };
        Cache {
            path: Some(path.to_path_buf()),
            data,
            forgotten: BTreeSet::new(),
            dirty: false,
        }
    }

    /// A cache that remembers nothing beyond this command (every check is made).
    #[must_use]
    pub fn none() -> Cache {
        Cache::default()
    }

    /// Whether the certificate check `key` passed before.
    #[must_use]
    pub fn certificate(&self, key: &str) -> bool {
        self.data.certificates.contains_key(key)
    }

    /// Records that the certificate check `key` passed.
    pub fn add_certificate(&mut self, key: &str) {
        self.data.certificates.insert(
            key.to_string(),
            CertificateCheck {
                at: crate::timefmt::now_rfc3339(),
            },
        );
        self.dirty = true;
    }

    /// What was checked of the part `key`.
    #[must_use]
    pub fn part(&self, key: &str) -> Option<&PartCheck> {
        self.data.parts.get(key)
    }

    /// Records that the part `key` was searched in full here.
    pub fn add_run_here(&mut self, key: &str) {
        self.data.parts.entry(key.to_string()).or_default().run_here = true;
        self.dirty = true;
    }

    /// Records that `blocks` of the part `key` were re-run and matched.
    pub fn add_audited(&mut self, key: &str, blocks: impl IntoIterator<Item = u64>) {
        self.data
            .parts
            .entry(key.to_string())
            .or_default()
            .audited
            .extend(blocks);
        self.dirty = true;
    }

    /// Forgets the part `key` (an audit found it wrong).
    pub fn forget_part(&mut self, key: &str) {
        self.data.parts.remove(key);
        self.forgotten.insert(key.to_string());
        self.dirty = true;
    }

    /// The SHA-256 of the file `path` (lower-case hex), read as `kind`: from the cache when
    /// its stamp ([`FileStamp`]: length, modification and status-change times, device,
    /// inode) is the one it was hashed at, else hashed now (a regular file only, see
    /// [`crate::fs::input::open`]).
    ///
    /// # Errors
    /// When the file cannot be read or is not a regular file.
    pub fn file_sha256(&mut self, path: &Path, kind: input::Kind) -> Result<String, InputError> {
        let real = std::fs::canonicalize(path).map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let meta = std::fs::metadata(&real).map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        if let Some(sha) = self.known_sha256(&real, &FileStamp::of(&meta)) {
            input::note(path, kind);
            return Ok(sha);
        }
        let mut file = input::open(path, kind)?;
        let before = FileStamp::of(&file.metadata().map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?);
        let mut h = Sha256::new();
        std::io::copy(&mut file, &mut HashWriter(&mut h)).map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let sha = hex(&h.finalize());
        if let Ok(after) = file.metadata() {
            self.remember_sha256(&real, &before, &FileStamp::of(&after), &sha);
        }
        Ok(sha)
    }

    /// The SHA-256 the cache knows for the file at the real path `real` with stamp `stamp`.
    #[must_use]
    pub fn known_sha256(&self, real: &Path, stamp: &FileStamp) -> Option<String> {
        self.data
            .files
            .get(&real.to_string_lossy().into_owned())
            .filter(|f| stamp.matches(f))
            .map(|f| f.sha256.clone())
    }

    /// Remembers that the file at the real path `real` hashed to `sha256` when it had the
    /// stamp `before` when opened and `after` once read. Nothing is remembered when they
    /// differ (the file changed while it was read), nor when its status changed less than
    /// [`RACY`] ago: the kernel's clock for `ctime` is coarse (a few milliseconds), so a
    /// change made within the same tick could keep the stamp; a stamp older than that cannot
    /// be kept by any later change. Such a file is hashed again next time.
    pub fn remember_sha256(
        &mut self,
        real: &Path,
        before: &FileStamp,
        after: &FileStamp,
        sha256: &str,
    ) {
        let now_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX));
        if before != after || now_ns - before.ctime_ns < RACY.as_nanos() as i128 {
            return;
        }
        self.data.files.insert(
            real.to_string_lossy().into_owned(),
            FileHash {
                len: before.len,
                mtime_ns: before.mtime_ns,
                ctime_ns: before.ctime_ns,
                dev: before.dev,
                ino: before.ino,
                sha256: sha256.to_string(),
            },
        );
        self.dirty = true;
    }

    /// Saves what was added, merged with what another process saved meanwhile; a cache that
    /// cannot be written is said once on stderr and otherwise ignored (it only saves time).
    pub fn save(&mut self) {
        if let Err(e) = self.try_save() {
            crate::say!(
                "magichunt: cannot save the cache of checks ({e}); they will be made again"
            );
        }
    }

    fn try_save(&mut self) -> Result<(), OutputError> {
        let Some(path) = self.path.clone().filter(|_| self.dirty) else {
            return Ok(());
        };
        let mut on_disk = Cache::at(&path).data;
        for (k, v) in std::mem::take(&mut self.data.certificates) {
            on_disk.certificates.insert(k, v);
        }
        for k in &self.forgotten {
            on_disk.parts.remove(k);
        }
        for (k, v) in std::mem::take(&mut self.data.parts) {
            let e = on_disk.parts.entry(k).or_default();
            e.run_here |= v.run_here;
            e.audited.extend(v.audited);
        }
        for (k, v) in std::mem::take(&mut self.data.files) {
            on_disk.files.insert(k, v);
        }
        on_disk.version = 1;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::fs::create_dir(dir).map_err(|error| OutputError::Write {
                path: dir.to_path_buf(),
                error,
            })?;
        }
        let mut text = serde_json::to_string_pretty(&on_disk).expect("the cache serializes");
        text.push('\n');
        output::write(&path, text.as_bytes(), Writes::Cache, &[])?;
        self.data = on_disk;
        self.dirty = false;
        self.forgotten.clear();
        Ok(())
    }
}

/// SHA-256 of a file, lower-case hex, read in pieces (a regular file only).
///
/// # Errors
/// When the file cannot be read or is not a regular file.
pub fn sha256_file(path: &Path) -> Result<String, InputError> {
    let mut f = input::open(path, input::Kind::Other)?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut HashWriter(&mut h)).map_err(|error| InputError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(hex(&h.finalize()))
}

/// A writer that feeds a hasher.
pub struct HashWriter<'a>(pub &'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// SHA-256 of `text`, lower-case hex.
#[must_use]
pub fn sha256_text(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// Bytes as lower-case hex.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_survive_a_save_and_merge_with_another_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("checked.json");
        let mut a = Cache::at(&path);
        let mut b = Cache::at(&path);
        a.add_certificate("cert-1");
        a.add_audited("part-1", [3, 5]);
        a.save();
        b.add_audited("part-1", [7]);
        b.add_run_here("part-2");
        b.save();
        let c = Cache::at(&path);
        assert!(c.certificate("cert-1"));
        assert_eq!(
            c.part("part-1").unwrap().audited,
            [3, 5, 7].into_iter().collect()
        );
        assert!(c.part("part-2").unwrap().run_here);
        let mut d = Cache::at(&path);
        d.forget_part("part-1");
        d.save();
        assert!(Cache::at(&path).part("part-1").is_none());
    }

    #[test]
    fn a_corrupt_cache_is_ignored_and_a_file_hash_is_kept_by_length_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checked.json");
        std::fs::write(&path, "{not json").unwrap();
        let mut c = Cache::at(&path);
        assert!(!c.certificate("x"));
        let f = dir.path().join("f");
        std::fs::write(&f, b"abc").unwrap();
        let h = c.file_sha256(&f, input::Kind::Other).unwrap();
        assert_eq!(
            h,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(c.file_sha256(&f, input::Kind::Other).unwrap(), h);
        std::fs::write(&f, b"abcd").unwrap();
        assert_ne!(
            c.file_sha256(&f, input::Kind::Other).unwrap(),
            h,
            "a changed file is hashed again"
        );
    }

    #[test]
    fn a_file_rewritten_with_its_length_and_mtime_put_back_is_hashed_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Cache::at(&dir.path().join("checked.json"));
        let f = dir.path().join("f");
        std::fs::write(&f, b"good").unwrap();
        let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
        let real = std::fs::canonicalize(&f).unwrap();
        let stamp = |f: &Path| FileStamp::of(&std::fs::metadata(f).unwrap());
        // A fresh file is racy: its hash is not kept.
        let h = c.file_sha256(&f, input::Kind::Other).unwrap();
        assert_eq!(c.known_sha256(&real, &stamp(&f)), None);
        std::thread::sleep(RACY + std::time::Duration::from_millis(100));
        assert_eq!(c.file_sha256(&f, input::Kind::Other).unwrap(), h);
        assert_eq!(c.known_sha256(&real, &stamp(&f)), Some(h.clone()));
        // Rewritten in place, same length, mtime set back (touch -r): ctime moved on.
        std::fs::write(&f, b"evil").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 4);
        assert_eq!(std::fs::metadata(&f).unwrap().modified().unwrap(), mtime);
        assert_eq!(c.known_sha256(&real, &stamp(&f)), None);
        assert_ne!(c.file_sha256(&f, input::Kind::Other).unwrap(), h);
    }
}
