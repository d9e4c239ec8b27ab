//! Certificates on disk: their names and folder beside a store, checking one again, and
//! carrying them along when stores are merged.
//!
//! A store names each certificate by a path relative to its own folder
//! (`proofs/bishop-c1-4.lrat.gz`), so a store and its `proofs/` folder move together. When
//! `merge` writes a store into another folder (the part stores of a cluster run live in
//! `results/shards/`, the main store in `results/`), [`copy_certificates`] copies the
//! certificates over, so the merged store finds every certificate it names.

use std::fs::{self, File};
use std::io::BufReader;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;

use super::lrat::{self, Checked};
use super::{cnf_of, cube, io_err, sha256, ProveError};
use crate::atomic::write_atomic;
use crate::exhaust::shard::Shard;
use crate::question::{Formula, Question};
use crate::store::Store;
use crate::table::sat::SatAnswer;

/// The certificate's file name for part `shard` of `question`:
/// `bishop-c1-4.lrat.gz`, `rook-a1-11-black-3of64.lrat.gz`.
#[must_use]
pub fn certificate_name(question: Question, shard: Shard) -> String {
    let mut name = format!(
        "{}-{}-{}",
        question.target.piece, question.target.square, question.bits
    );
    if question.formula != Formula::Plain {
        name.push('-');
        name.push_str(question.formula.name());
    }
    if shard.count > 1 {
        name.push_str(&format!("-{}of{}", shard.index, shard.count));
    }
    name.push_str(".lrat.gz");
    name
}

/// The folder of the store at `store`: the base of the certificate paths it records.
#[must_use]
pub fn store_dir(store: &Path) -> &Path {
    store
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Where the certificates of the store at `store` go: `proofs/` beside it.
#[must_use]
pub fn certificate_dir(store: &Path) -> PathBuf {
    store_dir(store).join("proofs")
}

/// Checks a stored certificate again: rebuilds the CNF of part `shard` of `question`, compares
/// its SHA-256 with `recorded` and runs the checker on the certificate.
///
/// # Errors
/// [`ProveError::Hash`] when the CNF changed, [`ProveError::Certificate`] when the proof does
/// not check, [`ProveError::Io`] when the file cannot be read.
pub fn recheck(
    question: Question,
    shard: Shard,
    certificate: &Path,
    recorded: &str,
) -> Result<Checked, ProveError> {
    let cnf = cnf_of(question, cube(question, shard)?);
    let actual = sha256(&cnf);
    if actual != recorded {
        return Err(ProveError::Hash {
            path: certificate.to_path_buf(),
            question,
            recorded: recorded.to_string(),
            actual,
        });
    }
    let file = File::open(certificate).map_err(io_err(certificate))?;
    lrat::check(&cnf, BufReader::new(GzDecoder::new(file)))
        .map_err(|source| ProveError::Certificate { question, source })
}

/// Copies every certificate that `store` (read from the file `from`) names into the folder of
/// the store file `to`, at the same relative path, unless a file is already there (a
/// certificate's name fixes its question and part, hence its CNF). Returns how many were
/// copied; nothing is copied when both stores share a folder.
///
/// # Errors
/// [`ProveError::Io`] when a certificate the store names is missing or cannot be copied.
pub fn copy_certificates(store: &Store, from: &Path, to: &Path) -> Result<usize, ProveError> {
    let (src_dir, dst_dir) = (store_dir(from), store_dir(to));
    let same = |a: &Path, b: &Path| match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(src_dir, dst_dir) {
        return Ok(0);
    }
    let mut copied = 0;
    for sat in store.sats() {
        for part in sat.parts.values() {
            let SatAnswer::None { certificate } = &part.answer else {
                continue;
            };
            let (src, dst) = (src_dir.join(certificate), dst_dir.join(certificate));
            if dst.exists() {
                continue;
            }
            let bytes = fs::read(&src).map_err(io_err(&src))?;
            if let Some(parent) = dst.parent() {
                fs::create_dir_all(parent).map_err(io_err(parent))?;
            }
            write_atomic(&dst, &bytes).map_err(io_err(&dst))?;
            copied += 1;
        }
    }
    Ok(copied)
}
