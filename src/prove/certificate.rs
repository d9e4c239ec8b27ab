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
use crate::exhaust::campaign::shard::Shard;
use crate::output::{self, Writes};
use crate::question::{Formula, Question};
use crate::store::Store;
use crate::table::sat::SatAnswer;
use crate::table::Proof;

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
    for certificate in named_certificates(store) {
        let (src, dst) = (src_dir.join(&certificate), dst_dir.join(&certificate));
        if dst.exists() {
            continue;
        }
        let bytes = fs::read(&src).map_err(io_err(&src))?;
        if let Some(parent) = dst.parent() {
            fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        output::write(&dst, &bytes, Writes::Other, &[])
            .map_err(|e| io_err(&dst)(std::io::Error::other(e.to_string())))?;
        copied += 1;
    }
    Ok(copied)
}

/// One certificate a record names: the part it refutes, its path relative to the store's
/// folder, and the SHA-256 of that part's CNF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// The question.
    pub question: Question,
    /// The part.
    pub shard: Shard,
    /// The certificate, relative to the store's folder.
    pub certificate: String,
    /// The SHA-256 the record gives for the part's CNF.
    pub cnf_sha256: String,
}

/// Every certificate file `store` names (its SAT parts' and its proofs'), each once.
#[must_use]
pub fn named_certificates(store: &Store) -> Vec<String> {
    let mut names: Vec<String> = named(store).into_iter().map(|n| n.certificate).collect();
    names.sort();
    names.dedup();
    names
}

/// Every certificate `store` names, with the part it refutes: its SAT parts' and the ones
/// its proofs name in their own fields (a proof whose fields do not fit together names none
/// here; checking it says why).
#[must_use]
pub fn named(store: &Store) -> Vec<Named> {
    let mut out = Vec::new();
    for x in store.sats() {
        for (&index, p) in &x.parts {
            if let SatAnswer::None { certificate } = &p.answer {
                out.push(Named {
                    question: x.question,
                    shard: Shard {
                        index,
                        count: x.shards,
                    },
                    certificate: certificate.clone(),
                    cnf_sha256: p.wire.cnf_sha256.clone(),
                });
            }
        }
    }
    for p in store.proofs() {
        out.extend(proof_certificates(p).ok().flatten().unwrap_or_default());
    }
    out
}

/// The certificates a proof record names in its own fields (`certificate` and `cnf_sha256`,
/// one string each for a question settled whole, lists in part order for one settled in
/// parts), or `None` when it names none.
///
/// # Errors
/// A message when the fields are there but do not fit together (a list of one length and a
/// string, lists of different lengths or not of a power of two, a path outside the store's
/// folder).
pub fn proof_certificates(proof: &Proof) -> Result<Option<Vec<Named>>, String> {
    use serde_json::Value;
    let (cert, cnf) = (
        proof.extra.get("certificate"),
        proof.extra.get("cnf_sha256"),
    );
    if cert.is_none() && cnf.is_none() {
        return Ok(None);
    }
    let list = |v: Option<&Value>, name: &str| -> Result<Vec<String>, String> {
        match v {
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("`{name}` lists a value that is not text"))
                })
                .collect(),
            Some(_) => Err(format!("`{name}` is neither text nor a list")),
            None => Err(format!("it names no `{name}`")),
        }
    };
    let (certs, cnfs) = (list(cert, "certificate")?, list(cnf, "cnf_sha256")?);
    if certs.len() != cnfs.len() || !certs.len().is_power_of_two() {
        return Err(format!(
            "{} certificates for {} CNF hashes (one per part, a power of two of parts)",
            certs.len(),
            cnfs.len()
        ));
    }
    let count = u32::try_from(certs.len()).map_err(|_| "too many parts".to_string())?;
    certs
        .into_iter()
        .zip(cnfs)
        .zip(1..)
        .map(|((certificate, cnf_sha256), index)| {
            if !crate::table::sat::is_plain_relative(&certificate) {
                return Err(format!(
                    "certificate '{certificate}' must be a relative path inside the store's folder"
                ));
            }
            Ok(Named {
                question: proof.question(),
                shard: Shard { index, count },
                certificate,
                cnf_sha256,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}
