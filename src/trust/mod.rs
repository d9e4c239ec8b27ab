//! Trust: which proofs of none this build has checked, and which records may enter a store.
//!
//! A store is a file anyone can write, so a proof in it is a claim. It counts (in `compare`
//! and the export header) only once its evidence was checked here ([`vet`]):
//! - a SAT proof by its certificates: the CNF of each part rebuilt, its SHA-256 compared with
//!   the recorded one, the LRAT certificate checked by [`crate::prove::lrat`];
//! - an exhaustive proof by its residues ([`crate::exhaust::campaign::residue`]): every part searched in
//!   full on this machine, or audited by [`audit`] (blocks of it re-run, and they matched),
//!   on top of residues that fit their records.
//!
//! Checks that passed are kept in the user's [`Cache`], outside every store, keyed by content.
//!
//! `merge` lets a record in only when it holds up ([`admit`]): certificates present and
//! checking, finished parts carrying a residue that fits, proofs backed by one or the other
//! (or by a published proof). A part whose residue fits is admitted, and stays claimed until
//! an audit re-runs some of it.

pub mod audit;
mod audit_store;
pub mod cache;
mod counting;
mod merge;
pub mod report;

use std::path::Path;

use crate::exhaust::campaign::residue::{Residue, Search};
use crate::exhaust::campaign::shard::{Cursor, Shard};
use crate::exhaust::Plan;
use crate::prove::certificate::{proof_certificates, Named};
use crate::prove::lrat::CHECKER;
use crate::question::{Formula, Question};
use crate::store::Store;
use crate::table::sat::{Sat, SatAnswer};
use crate::table::wire::PartWire;
use crate::table::{Exhaust, Proof, Provenance};
pub use audit_store::{audit_store, AuditConfig, AuditError};
pub use cache::Cache;
pub use counting::load_counting;
pub use merge::{merge, MergeConfig, MergeError, Merged};

use crate::fs::input;

/// A record that may not enter a store.
#[derive(Debug, thiserror::Error)]
#[error("{store}: {what}: {why}")]
pub struct Refused {
    /// The store it comes from.
    pub store: String,
    /// The record (`proof that no 11-bit magic exists for rook a1`, `part 1/1 of ...`).
    pub what: String,
    /// Why.
    pub why: String,
}

/// What [`vet`] found wrong, one line each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vetted {
    /// Evidence that is there but fails: certificates that do not check, residues that do
    /// not fit their records.
    pub problems: Vec<String>,
    /// Questions whose SAT proof has its certificates elsewhere than beside the store (a
    /// store copied away from them, such as a user's store started from the built-in table):
    /// claimed, not failing. One line each, with the first certificate missing.
    pub absent: Vec<(Question, String)>,
}

/// Checks the evidence of every proof in `store` (certificates relative to `dir`, the
/// store's folder) and records each question's [`Provenance`] in the store, and which of its
/// proofs this build ships ([`Store::set_built_in`]): after it, [`Store::proven_none`] knows
/// which proofs may decide work. Certificates are
/// checked unless the cache knows them; exhaustive parts count when the cache knows them run
/// here or audited.
pub fn vet(store: &mut Store, dir: &Path, cache: &mut Cache) -> Vetted {
    let mut out = Vetted::default();
    let mut found: Vec<(Question, Provenance)> = Vec::new();
    for x in store.sats().filter(|x| x.proves_none()) {
        let named = sat_named(x);
        let p = certified(x.question, &named, dir, cache, &mut out);
        found.push((x.question, p));
    }
    for proof in store.proofs() {
        let q = proof.question();
        // Its SAT settlement was just checked (a failure is said once, not twice).
        if found.iter().any(|(k, _)| *k == q) {
            continue;
        }
        match proof_certificates(proof) {
            Ok(None) => {}
            Ok(Some(named)) => {
                let p = certified(q, &named, dir, cache, &mut out);
                found.push((q, p));
            }
            Err(why) => {
                out.problems.push(format!("{q}: {why}"));
                found.push((q, Provenance::Claimed(why)));
            }
        }
    }
    for x in store.exhausts().filter(|x| x.complete() && x.magics() == 0) {
        let p = exhaust_provenance(x, cache, &mut out.problems);
        found.push((x.question(), p));
    }
    for proof in store.proofs() {
        let q = proof.question();
        if !found.iter().any(|(k, _)| k.rules_out(q)) {
            found.push((
                q,
                Provenance::Claimed(
                    "no evidence: neither a certificate nor a finished exhaustive search".into(),
                ),
            ));
        }
    }
    for (q, p) in found {
        store.set_provenance(q, p);
    }
    // The store's proofs that this build ships too (a user's store started from the built-in
    // table, away from its certificates): this build's own, so they may steer work.
    let own: Vec<Question> = store.proofs().map(Proof::question).collect();
    for q in own {
        if crate::shipped::ships_proof_of(q) {
            store.set_built_in(q);
        }
    }
    cache.save();
    out
}

/// [`vet`] for the store read from the file `path`: its certificates lie beside its real
/// file (where `prove` wrote them through a symlink).
pub fn vet_file(store: &mut Store, path: &Path, cache: &mut Cache) -> Vetted {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    vet(store, crate::prove::certificate::store_dir(&real), cache)
}

/// The provenance of a finished exhaustive search with no magic: checked when every part's
/// residue fits and the cache knows the part run here or audited.
fn exhaust_provenance(x: &Exhaust, cache: &Cache, problems: &mut Vec<String>) -> Provenance {
    let mut audited = 0;
    let mut missing = Vec::new();
    for (&k, part) in &x.parts {
        let shard = Shard {
            index: k,
            count: x.shards,
        };
        match part_residue(x, part) {
            Err(why) => {
                let line = format!("part {shard}: {why}");
                problems.push(format!("exhaustive search of {} at {} bits, {line}", x.target, x.bits));
                return Provenance::Claimed(line);
            }
            Ok(None) => {
                return Provenance::Claimed(format!(
                    "part {shard} has no residue (searched before parts carried evidence; `exhaust --recheck` searches it again)"
                ))
            }
            Ok(Some(_)) => match cache.part(&part_key(x, part)) {
                Some(c) if c.run_here => {}
                Some(c) if !c.audited.is_empty() => audited += c.audited.len() as u64,
                _ => missing.push(shard.to_string()),
            },
        }
    }
    if missing.is_empty() {
        Provenance::Evidenced { audited }
    } else {
        Provenance::Claimed(format!(
            "exhaustive search not audited here (part {}; `magichunt audit` re-runs a sample)",
            missing.join(", ")
        ))
    }
}

/// The certificates of a SAT settlement that proves none, one per part.
fn sat_named(x: &Sat) -> Vec<Named> {
    x.parts
        .iter()
        .filter_map(|(&k, part)| match &part.answer {
            SatAnswer::None { certificate } => Some(Named {
                question: x.question,
                shard: Shard {
                    index: k,
                    count: x.shards,
                },
                certificate: certificate.clone(),
                cnf_sha256: part.wire.cnf_sha256.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// The provenance of the proof of `q` whose certificates are `named`: certified when every
/// one checks. A certificate not beside the store leaves it claimed and is noted in
/// `out.absent`; one that is there and fails, in `out.problems`.
fn certified(
    q: Question,
    named: &[Named],
    dir: &Path,
    cache: &mut Cache,
    out: &mut Vetted,
) -> Provenance {
    if let Some(n) = named.iter().find(|n| !dir.join(&n.certificate).exists()) {
        let why = format!(
            "part {} certificate {} is not in {}",
            n.shard,
            n.certificate,
            dir.display()
        );
        if out.absent.iter().all(|(k, _)| *k != q) {
            out.absent.push((q, why.clone()));
        }
        return Provenance::Claimed(why);
    }
    match named
        .iter()
        .try_for_each(|n| check_named(n, dir, cache).map(|_| ()))
    {
        Ok(()) => Provenance::Certified,
        Err(why) => {
            out.problems.push(format!("{q}: {why}"));
            Provenance::Claimed(why)
        }
    }
}

/// Checks one certificate: known to the cache (same question, part, CNF hash and certificate
/// SHA-256, same checker), or checked now and then remembered. Returns the certificate's
/// SHA-256: that of the bytes checked.
///
/// # Errors
/// A message naming the certificate and why it does not hold.
pub fn check_named(n: &Named, dir: &Path, cache: &mut Cache) -> Result<String, String> {
    check_certificate(n, dir, cache, true)
}

/// A certificate this large (compressed) is said on stderr before its check: checking runs at
/// about 36 MB of compressed certificate a second on one core (the shipped 18, 26 MB: 0.7 s
/// in all), so a 1 GB one takes about half a minute, once per content (see [`Cache`]).
const ANNOUNCE_CERTIFICATE: u64 = 256 << 20;

/// Checks one certificate; with `reuse`, one the cache knows is not checked again. A file
/// the cache knows by its stamp ([`cache::FileStamp`]) is not read; any other is read once,
/// checked and hashed in the same pass, so the check the cache keeps is that of the bytes
/// hashed. Returns the certificate's SHA-256.
///
/// # Errors
/// A message naming the certificate and why it does not hold (not a regular file
/// included).
pub fn check_certificate(
    n: &Named,
    dir: &Path,
    cache: &mut Cache,
    reuse: bool,
) -> Result<String, String> {
    let path = dir.join(&n.certificate);
    let what = format!("part {} certificate {}", n.shard, n.certificate);
    let cannot = |e: &dyn std::fmt::Display| format!("{what}: cannot read it ({e})");
    let key = |sha: &str| {
        format!(
            "sat {} {}-{}-{}-{} {} cnf {} certificate {sha} {CHECKER}",
            n.question.formula,
            n.question.target.piece,
            n.question.target.square,
            n.question.bits,
            n.shard.index,
            n.shard.count,
            n.cnf_sha256
        )
    };
    if reuse {
        let known = std::fs::canonicalize(&path).ok().and_then(|real| {
            let meta = std::fs::metadata(&real).ok().filter(|m| m.is_file())?;
            cache.known_sha256(&real, &cache::FileStamp::of(&meta))
        });
        if let Some(sha) = known.filter(|sha| cache.certificate(&key(sha))) {
            input::note(&path, input::Kind::Certificate);
            return Ok(sha);
        }
    }
    let file = input::open(&path, input::Kind::Certificate).map_err(|e| match e {
        input::InputError::Io { error, .. } => cannot(&error),
        e => format!("{what}: {e}"),
    })?;
    let before = file.metadata().map_err(|e| cannot(&e))?;
    if before.len() >= ANNOUNCE_CERTIFICATE {
        crate::say!(
            "magichunt: checking {} ({} MiB compressed: about 30 s a GiB on one core); a check that passes is kept in the cache of checks",
            path.display(),
            before.len() >> 20
        );
    }
    let stamp = cache::FileStamp::of(&before);
    let after_file = file.try_clone().map_err(|e| cannot(&e))?;
    let (_, sha) =
        crate::prove::certificate::check_file(n.question, n.shard, file, &path, &n.cnf_sha256)
            .map_err(|e| format!("{what} does not check: {e}"))?;
    if let (Ok(real), Ok(after)) = (std::fs::canonicalize(&path), after_file.metadata()) {
        cache.remember_sha256(&real, &stamp, &cache::FileStamp::of(&after), &sha);
    }
    cache.add_certificate(&key(&sha));
    Ok(sha)
}

/// The residue of a part, checked against its record and its plan: `None` when the part
/// has none.
///
/// # Errors
/// A message when the residue is unreadable, of another scheme, or does not fit (blocks
/// missing, too few nodes, blocks not adding up, a cursor it does not fit).
pub fn part_residue(x: &Exhaust, part: &PartWire) -> Result<Option<(Plan, Residue)>, String> {
    let shard = Shard {
        index: part.shard,
        count: x.shards,
    };
    let plan = Plan::new(x.target, x.bits)
        .with_task_bits(x.task_bits)
        .with_order(x.order);
    if plan.task_bits() != x.task_bits {
        return Err(format!(
            "task bits {} exceed the period's {}",
            x.task_bits,
            plan.period_bits()
        ));
    }
    if part.done
        && part.nodes
            < shard
                .len(plan.tasks())
                .saturating_mul(plan.first_level_nodes())
    {
        return Err(format!(
            "{} nodes, fewer than the {} that the first level of its {} subtrees alone tests",
            part.nodes,
            shard
                .len(plan.tasks())
                .saturating_mul(plan.first_level_nodes()),
            shard.len(plan.tasks())
        ));
    }
    let Some(w) = &part.residue else {
        return Ok(None);
    };
    let r = Residue::from_wire(w, Search::of(x.target, &plan, shard), plan.tasks())?;
    if part.done {
        r.check_finished(&plan, part.nodes)?;
    } else {
        let done = match &part.cursor {
            Some(c) => Cursor::decode(c).map_err(|e| e.to_string())?.done,
            None => 0,
        };
        if !r.fits(done) {
            return Err(format!(
                "its residue does not fit its cursor ({done} subtrees searched)"
            ));
        }
    }
    Ok(Some((plan, r)))
}

/// Whether this build may take the part `part` of `x` as searched: its residue fits its
/// record, and the cache knows it searched in full here or audited (some of its blocks
/// re-run and matching). A part recorded done that is not checked here is only claimed: it
/// must not decide that a search is skipped.
#[must_use]
pub fn part_checked(x: &Exhaust, part: &PartWire, cache: &Cache) -> bool {
    matches!(part_residue(x, part), Ok(Some(_)))
        && cache
            .part(&part_key(x, part))
            .is_some_and(|c| c.run_here || !c.audited.is_empty())
}

/// The cache key of a part: its search, counts, best magic and residue, hashed.
#[must_use]
pub fn part_key(x: &Exhaust, part: &PartWire) -> String {
    let r = part.residue.as_ref();
    let text = format!(
        "exhaust {}-{}-{} t{}{} {}/{} done {} nodes {} magics {} best {} residue {} {} {}",
        x.target.piece,
        x.target.square,
        x.bits,
        x.task_bits,
        match x.order {
            crate::exhaust::Order::Low => "",
            crate::exhaust::Order::High => " high",
            crate::exhaust::Order::Trim => " trim",
            crate::exhaust::Order::Fold => " fold",
        },
        part.shard,
        x.shards,
        part.done,
        part.nodes,
        part.magics,
        part.best.as_deref().unwrap_or("-"),
        r.map_or("-", |r| r.scheme.as_str()),
        r.map_or(0, |r| r.block),
        r.map_or(String::new(), |r| r.blocks.join(","))
    );
    format!("part {}", cache::sha256_text(&text))
}

/// Checks that the records of `store` (read from `name`, certificates relative to `dir`) may
/// enter another store: every certificate its SAT parts and proofs name is there and checks,
/// every part of its exhaustive searches carries a residue that fits (a finished part without
/// one only with `accept_claimed`), and every proof is backed by a certificate, a finished
/// exhaustive search, or a published proof (or `accept_claimed`, when it stays claimed).
///
/// # Errors
/// [`Refused`] naming the first record that does not hold.
pub fn admit(
    store: &Store,
    name: &str,
    dir: &Path,
    cache: &mut Cache,
    accept_claimed: bool,
) -> Result<Admitted, Refused> {
    let mut admitted = Admitted::default();
    let refuse = |what: String, why: String| Refused {
        store: name.to_string(),
        what,
        why,
    };
    for x in store.sats() {
        for n in sat_named(x) {
            let sha = check_named(&n, dir, cache)
                .map_err(|why| refuse(format!("SAT settlement of {}", x.question), why))?;
            admitted.certificates.insert(n.certificate.clone(), sha);
        }
    }
    let mut certified: Vec<Question> = Vec::new();
    for p in store.proofs() {
        let what = proof_name(p);
        match proof_certificates(p).map_err(|why| refuse(what.clone(), why))? {
            None => {}
            Some(named) => {
                for n in &named {
                    let sha =
                        check_named(n, dir, cache).map_err(|why| refuse(what.clone(), why))?;
                    admitted.certificates.insert(n.certificate.clone(), sha);
                }
                certified.push(p.question());
            }
        }
    }
    let mut evidenced: Vec<Question> = Vec::new();
    for x in store.exhausts() {
        let mut all = true;
        for part in x.parts.values() {
            let what = format!(
                "part {}/{} of the exhaustive search of {} at {} bits",
                part.shard, x.shards, x.target, x.bits
            );
            match part_residue(x, part).map_err(|why| refuse(what.clone(), why))? {
                Some(_) => {}
                None if !part.done => all = false,
                None if accept_claimed => all = false,
                None => {
                    return Err(refuse(
                        what,
                        "finished without a residue (searched before parts carried evidence): its search cannot be checked; search it again with this build, or merge with --accept-claimed to keep it as a claim".into(),
                    ))
                }
            }
        }
        if all && x.complete() && x.magics() == 0 {
            evidenced.push(x.question());
        }
    }
    let sat_none: Vec<Question> = store
        .sats()
        .filter(|x| x.proves_none())
        .map(|x| x.question)
        .collect();
    for p in store.proofs() {
        let q = p.question();
        let covers = |k: &Question| k.rules_out(q);
        let published = q.formula == Formula::Plain
            && crate::published::proof(q.target).is_some_and(|pp| pp.bits >= q.bits);
        let backed = certified.iter().any(covers)
            || sat_none.iter().any(covers)
            || evidenced.iter().any(covers)
            || published;
        if !backed && !accept_claimed {
            return Err(refuse(
                proof_name(p),
                "no evidence: it names no certificate, and the store holds no finished exhaustive search of it with residues (merge with --accept-claimed to keep it as a claim, never counted)".into(),
            ));
        }
    }
    cache.save();
    Ok(admitted)
}

/// What [`admit`] checked of a store it let in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admitted {
    /// The SHA-256 of every certificate it checked, by its path relative to the store's
    /// folder: what a merge may copy ([`crate::prove::copy_certificates`] copies only these
    /// bytes).
    pub certificates: std::collections::BTreeMap<String, String>,
}

/// `proof that no 11-bit magic exists for rook a1` (black: `... black magic ...`).
fn proof_name(p: &Proof) -> String {
    let kind = match p.formula {
        Formula::Plain => "",
        Formula::Black => " black",
    };
    format!(
        "proof that no {}-bit{kind} magic exists for {}",
        p.bits, p.target
    )
}
