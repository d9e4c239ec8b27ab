//! Certificates on disk: their names and folder beside a store, checking one again, and
//! carrying them along when stores are merged.
//!
//! A store names each certificate by a path relative to its own folder
//! (`proofs/bishop-c1-4.lrat.gz`), so a store and its `proofs/` folder move together. When
//! `merge` writes a store into another folder (the part stores of a cluster run live in
//! `results/shards/`, the main store in `results/`), [`copy_certificates`] copies the
//! certificates over, so the merged store finds every certificate it names.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;
use sha2::{Digest, Sha256};

use super::lrat::{self, Checked};
use super::{cnf_of, cube, io_err, sha256, ProveError};
use crate::exhaust::campaign::shard::Shard;
use crate::fs::input::{self, Kind};
use crate::fs::output::{self, Writes};
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
/// its SHA-256 with `recorded` and runs the checker on the certificate (a regular file only,
/// see [`crate::fs::input::open`]).
///
/// # Errors
/// [`ProveError::Hash`] when the CNF changed, [`ProveError::Certificate`] when the proof does
/// not check, [`ProveError::Io`] when the file cannot be read or is not a regular file.
pub fn recheck(
    question: Question,
    shard: Shard,
    certificate: &Path,
    recorded: &str,
) -> Result<Checked, ProveError> {
    let file = input::open(certificate, Kind::Certificate).map_err(input_err(certificate))?;
    check_file(question, shard, file, certificate, recorded).map(|(checked, _)| checked)
}

/// Text after the empty clause that a certificate may carry (another tool's proof may go on
/// after it; magichunt's stop there): at most this much is read past it, and more refuses
/// the certificate rather than unpacking a bomb hidden after the proof.
pub const MAX_AFTER_EMPTY_CLAUSE: u64 = 16 << 20;

/// [`recheck`] of the open certificate `file` (named `path`): checks it and returns, with what
/// the checker saw, the SHA-256 of the very bytes it checked (the whole file, read once: what
/// a cache of checks may key the result on). The file must hold one gzip stream and nothing
/// after it.
///
/// # Errors
/// As [`recheck`]; also when the gzip stream is followed by other bytes, or by more than
/// [`MAX_AFTER_EMPTY_CLAUSE`] of proof after the empty clause.
pub fn check_file(
    question: Question,
    shard: Shard,
    file: File,
    path: &Path,
    recorded: &str,
) -> Result<(Checked, String), ProveError> {
    let cnf = cnf_of(question, cube(question, shard)?);
    let actual = sha256(&cnf);
    if actual != recorded {
        return Err(ProveError::Hash {
            path: path.to_path_buf(),
            question,
            recorded: recorded.to_string(),
            actual,
        });
    }
    let refused = |message: String| ProveError::Certificate {
        question,
        error: lrat::LratError::Io(message),
    };
    let budget = lrat::live_literal_budget(file.metadata().map_err(io_err(path))?.len());
    let raw = Hashing {
        inner: BufReader::with_capacity(1 << 16, file),
        hash: Sha256::new(),
    };
    let mut proof = BufReader::new(GzDecoder::new(raw));
    let checked = lrat::check_within(&cnf, &mut proof, budget)
        .map_err(|error| ProveError::Certificate { question, error })?;
    // The rest of the gzip stream: read (bounded), so that the hash covers the whole file.
    let after = io::copy(
        &mut (&mut proof).take(MAX_AFTER_EMPTY_CLAUSE + 1),
        &mut io::sink(),
    )
    .map_err(|e| refused(format!("cannot read the rest of it: {e}")))?;
    if after > MAX_AFTER_EMPTY_CLAUSE {
        return Err(refused(format!(
            "more than {} MiB of proof after the empty clause",
            MAX_AFTER_EMPTY_CLAUSE >> 20
        )));
    }
    let mut raw = proof.into_inner().into_inner();
    let trailing = raw.fill_buf().map_err(io_err(path))?.len();
    if trailing > 0 {
        return Err(refused(
            "bytes after its gzip stream (a certificate is one gzip stream)".into(),
        ));
    }
    Ok((checked, super::hex(&raw.hash.finalize())))
}

/// A buffered reader that hashes what its reader consumes.
struct Hashing<R> {
    inner: R,
    hash: Sha256,
}

impl<R: BufRead> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let have = self.inner.fill_buf()?;
            let n = have.len().min(buf.len());
            buf[..n].copy_from_slice(&have[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Hashing<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if amt > 0 {
            if let Ok(buf) = self.inner.fill_buf() {
                self.hash.update(&buf[..amt.min(buf.len())]);
            }
        }
        self.inner.consume(amt);
    }
}

fn input_err(path: &Path) -> impl FnOnce(input::InputError) -> ProveError + '_ {
    move |e| ProveError::Io {
        path: path.to_path_buf(),
        error: io::Error::other(match e {
            input::InputError::Io { error, .. } => error.to_string(),
            e => e.to_string(),
        }),
    }
}

/// Copies every certificate that `store` (read from the file `from`) names into the folder of
/// the store file `to`, at the same relative path, unless a file is already there (a
/// certificate's name fixes its question and part, hence its CNF). Each is copied only if the
/// bytes copied are those that were checked: `checked` gives the SHA-256 each certificate had
/// when it checked (see [`check_file`]); one that changed since, or was never checked, is
/// refused and nothing of it is written. Returns how many were copied; nothing is copied when
/// both stores share a folder.
///
/// # Errors
/// [`ProveError::Io`] when a certificate the store names is missing, was not checked, changed
/// since it was checked, or cannot be copied.
pub fn copy_certificates(
    store: &Store,
    from: &Path,
    to: &Path,
    checked: &BTreeMap<String, String>,
) -> Result<usize, ProveError> {
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
        let want = checked.get(&certificate).ok_or_else(|| {
            io_err(&src)(io::Error::other(
                "it was not checked by this merge, so it is not copied",
            ))
        })?;
        let mut file = input::open(&src, Kind::Certificate).map_err(input_err(&src))?;
        if let Some(parent) = dst.parent() {
            crate::fs::create_dir(parent).map_err(io_err(parent))?;
        }
        output::write_with(&dst, Writes::Certificate, &[], |out| {
            let mut hash = Sha256::new();
            let mut buf = vec![0u8; 1 << 20];
            loop {
                let n = file.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                hash.update(&buf[..n]);
                out.write_all(&buf[..n])?;
            }
            let got = super::hex(&hash.finalize());
            if got != *want {
                return Err(io::Error::other(format!(
                    "{} changed since it was checked (SHA-256 {got}, {want} when checked): not copied",
                    src.display()
                )));
            }
            Ok(())
        })
        .map_err(|e| io_err(&dst)(io::Error::other(e.to_string())))?;
        copied += 1;
    }
    Ok(copied)
}

/// Records every certificate `store` (read from the file `path`) names as read by this
/// command ([`crate::fs::input::note`]): an output never replaces the evidence of a store the
/// command reads, checked or not.
pub fn note_inputs(store: &Store, path: &Path) {
    let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = store_dir(&real);
    for certificate in named_certificates(store) {
        input::note(&dir.join(certificate), Kind::Certificate);
    }
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
