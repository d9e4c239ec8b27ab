//! An LRAT proof checker, independent of the solver that writes the proofs.
//!
//! An LRAT proof derives clauses from a CNF one step at a time. An addition step
//! `id l1 .. lk 0 h1 .. hj 0` claims the clause `l1 .. lk` and lists, in order, the clauses
//! (by id) that make it a reverse unit propagation (RUP) consequence: with every literal of the
//! clause set false, each hint in turn must become unit (and its last literal is then set
//! true) until one is falsified outright. A deletion step `id d i1 .. ij 0` drops clauses. The
//! proof is valid when every step checks and the empty clause is derived. Only what the hints
//! name is ever propagated, so checking is linear in the proof and the trust base is this file.
//!
//! Resolution asymmetric tautology steps (negative hints) are refused: the solver is run so
//! that it never writes them, and a proof that contains one is reported rather than trusted.

use std::io::{BufRead, Read};

use super::cnf::Cnf;

/// The name and version of the checker, recorded in every proof.
pub const CHECKER: &str = "magichunt lrat-check 1";

/// Why a proof was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LratError {
    /// A line does not parse.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line number in the proof.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A step does not follow from its hints.
    #[error("line {line}: clause {id} is not implied by its hints: {message}")]
    Step {
        /// 1-based line number.
        line: u64,
        /// The clause id of the step.
        id: u64,
        /// What went wrong.
        message: String,
    },
    /// The proof ended without the empty clause.
    #[error("the proof never derives the empty clause ({steps} steps checked)")]
    Incomplete {
        /// Steps checked.
        steps: u64,
    },
    /// The proof could not be read.
    #[error("cannot read the proof: {0}")]
    Io(String),
}

/// What a checked proof contained.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Clauses added (each checked).
    pub additions: u64,
    /// Clauses deleted.
    pub deletions: u64,
    /// Hints followed.
    pub hints: u64,
}

/// Ids may grow by at most this much from one step to the next.
const MAX_ID_JUMP: u64 = 1 << 24;

/// The most literals the clauses alive at once may hold in [`check`], each clause counting four
/// more for its place in the index: 2^28 (1 GiB). The largest shipped certificate (bishop h8
/// at 4 bits, 30 MB of LRAT) keeps 1.7 million literals in 158,000 clauses; a proof that needs
/// more is refused rather than allowed to exhaust memory. A certificate read from a file gets
/// a budget by its size instead ([`live_literal_budget`]).
pub const MAX_LIVE_LITERALS: usize = 1 << 28;

/// The live literals (as counted by [`MAX_LIVE_LITERALS`]) allowed to a certificate of
/// `compressed` bytes: 8 per byte (32 bytes of memory per byte of file), at least 2^24 (64
/// MiB). Real certificates keep about 0.3 per compressed byte (bishop h8 at 4 bits: 2.3
/// million for 8 MB), so no honest one comes near it, at any size; a gzip bomb of valid steps
/// (up to a thousand bytes of proof per byte of file) is refused once it passes it.
#[must_use]
pub fn live_literal_budget(compressed: u64) -> usize {
    usize::try_from(compressed.saturating_mul(8))
        .unwrap_or(usize::MAX)
        .max(1 << 24)
}

/// The longest line a proof of a CNF with `vars` variables may have: a step names each
/// variable at most once as a literal and needs at most one hint per variable (each hint
/// makes one literal true, the last one conflicts), each at most 21 characters; at least
/// 1 MiB. Longer lines are refused before they are held in memory (the shipped certificates'
/// longest is 1.5 KB).
#[must_use]
pub fn max_line(vars: u32) -> usize {
    (1usize << 20).max(21 * (2 * vars as usize + 4))
}

/// Entries of the id index kept directly by id as long as they are at most this many beyond
/// twice the clauses alive (ids with gaps between them cost nothing until then).
const DENSE_SLACK: usize = 1 << 20;

/// The clauses by id: literals in one arena, `(start, len)` per id, `len == DEAD` once
/// deleted. The arena is compacted when deleted clauses hold more than the live ones, and the
/// index goes from one slot per id to a sorted list of the live ids when ids leave large gaps
/// (a proof trimmed of most of its steps, or a hostile one): memory follows the clauses alive
/// at once, whatever the ids.
struct Db {
    lits: Vec<i32>,
    index: Index,
    max_live: usize,
    live_lits: usize,
    live_clauses: usize,
    dead_entries: usize,
}

enum Index {
    /// `at[id]`.
    Dense(Vec<(u32, u32)>),
    /// `at[k]` for the id `ids[k]`, ids increasing.
    Sparse { ids: Vec<u64>, at: Vec<(u32, u32)> },
}

const DEAD: u32 = u32::MAX;

impl Db {
    fn new(lits: usize, clauses: usize, max_live: usize) -> Db {
        Db {
            lits: Vec::with_capacity(lits),
            index: Index::Dense(Vec::with_capacity(clauses + 1)),
            max_live,
            live_lits: 0,
            live_clauses: 0,
            dead_entries: 0,
        }
    }

    fn slot(&self, id: u64) -> Option<(u32, u32)> {
        match &self.index {
            Index::Dense(at) => at.get(usize::try_from(id).ok()?).copied(),
            Index::Sparse { ids, at } => ids.binary_search(&id).ok().map(|k| at[k]),
        }
    }

    fn get(&self, id: u64) -> Option<&[i32]> {
        let (start, len) = self.slot(id)?;
        (len != DEAD).then(|| &self.lits[start as usize..start as usize + len as usize])
    }

    /// Adds clause `id` (ids only increase).
    fn insert(&mut self, id: u64, clause: &[i32]) -> Result<(), String> {
        // A clause costs its literals and its slot in the index (about four literals' worth).
        if self.live_lits + 4 * self.live_clauses + clause.len() + 4 > self.max_live {
            return Err(format!(
                "the proof keeps more than {} literals alive at once, more than its size allows; refused rather than exhausting memory",
                self.max_live
            ));
        }
        if self.lits.len() + clause.len() > u32::MAX as usize / 2 {
            self.compact_arena();
        }
        let start = u32::try_from(self.lits.len()).map_err(|_| "proof too large".to_string())?;
        let len = u32::try_from(clause.len()).map_err(|_| "clause too long".to_string())?;
        let i = usize::try_from(id).map_err(|_| "id out of range".to_string())?;
        let dense_limit = 2 * (self.live_clauses + 1) + DENSE_SLACK;
        if let Index::Dense(at) = &self.index {
            if i >= dense_limit.max(at.len()) {
                self.make_sparse();
            }
        }
        match &mut self.index {
            Index::Dense(at) => {
                if at.len() <= i {
                    let grown = at.len();
                    at.resize(i + 1, (0, DEAD));
                    self.dead_entries += i - grown;
                }
                at[i] = (start, len);
            }
            Index::Sparse { ids, at } => {
                ids.push(id);
                at.push((start, len));
            }
        }
        self.lits.extend_from_slice(clause);
        self.live_lits += clause.len();
        self.live_clauses += 1;
        Ok(())
    }

    fn delete(&mut self, id: u64) -> bool {
        let entry = match &mut self.index {
            Index::Dense(at) => usize::try_from(id).ok().and_then(|i| at.get_mut(i)),
            Index::Sparse { ids, at } => ids.binary_search(&id).ok().map(|k| &mut at[k]),
        };
        match entry {
            Some(e) if e.1 != DEAD => {
                self.live_lits -= e.1 as usize;
                self.live_clauses -= 1;
                self.dead_entries += 1;
                e.1 = DEAD;
                true
            }
            _ => false,
        }
    }

    /// After deletions: compacts what the deleted clauses left once it outweighs the rest.
    fn tidy(&mut self) {
        let dead_lits = self.lits.len() - self.live_lits;
        if dead_lits > self.live_lits + DENSE_SLACK {
            self.compact_arena();
        }
        if self.dead_entries > 2 * self.live_clauses + DENSE_SLACK {
            self.make_sparse();
        }
    }

    fn entries_mut(&mut self) -> &mut Vec<(u32, u32)> {
        match &mut self.index {
            Index::Dense(at) | Index::Sparse { at, .. } => at,
        }
    }

    /// Moves the live clauses to a new arena, in place order.
    fn compact_arena(&mut self) {
        let old = std::mem::take(&mut self.lits);
        let mut lits = Vec::with_capacity(self.live_lits + self.live_lits / 2);
        for e in self.entries_mut().iter_mut().filter(|e| e.1 != DEAD) {
            let (start, len) = (e.0 as usize, e.1 as usize);
            e.0 = lits.len() as u32;
            lits.extend_from_slice(&old[start..start + len]);
        }
        self.lits = lits;
    }

    /// Keeps only the live ids, in a sorted list.
    fn make_sparse(&mut self) {
        let (ids, at) = match std::mem::replace(&mut self.index, Index::Dense(Vec::new())) {
            Index::Dense(at) => at
                .into_iter()
                .enumerate()
                .filter(|(_, e)| e.1 != DEAD)
                .map(|(i, e)| (i as u64, e))
                .unzip(),
            Index::Sparse { ids, at } => {
                ids.into_iter().zip(at).filter(|(_, e)| e.1 != DEAD).unzip()
            }
        };
        self.index = Index::Sparse { ids, at };
        self.dead_entries = 0;
    }
}

/// Parses the next signed decimal of `line` from `*pos`, skipping blanks; `None` at the end.
pub(super) fn next_int(line: &[u8], pos: &mut usize) -> Option<Result<i64, ()>> {
    while *pos < line.len() && line[*pos].is_ascii_whitespace() {
        *pos += 1;
    }
    if *pos >= line.len() {
        return None;
    }
    let neg = line[*pos] == b'-';
    if neg {
        *pos += 1;
    }
    let begin = *pos;
    let mut v: i64 = 0;
    while *pos < line.len() && line[*pos].is_ascii_digit() {
        v = match v
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(line[*pos] - b'0')))
        {
            Some(v) => v,
            None => return Some(Err(())),
        };
        *pos += 1;
    }
    if *pos == begin || (*pos < line.len() && !line[*pos].is_ascii_whitespace()) {
        return Some(Err(()));
    }
    Some(Ok(if neg { -v } else { v }))
}

/// Checks an LRAT proof of the unsatisfiability of `cnf` (text format).
///
/// # Errors
/// [`LratError`] naming the first step that fails, or the proof's end without the empty clause.
///
/// Memory follows the clauses alive at once (at most [`MAX_LIVE_LITERALS`] literals) and one
/// line of the proof (at most [`max_line`] bytes), whatever the proof's size or its ids.
pub fn check(cnf: &Cnf, proof: impl BufRead) -> Result<Checked, LratError> {
    check_within(cnf, proof, MAX_LIVE_LITERALS)
}

/// [`check`] with at most `max_live` literals alive at once (the CNF's own included).
///
/// # Errors
/// As [`check`], and when the proof keeps more literals alive.
pub fn check_within(
    cnf: &Cnf,
    mut proof: impl BufRead,
    max_live: usize,
) -> Result<Checked, LratError> {
    let mut db = Db::new(cnf.lits.len() * 2, cnf.clauses * 2, max_live);
    for (i, c) in cnf.iter().enumerate() {
        db.insert(i as u64 + 1, c).map_err(LratError::Io)?;
    }
    let max_line = max_line(cnf.vars);
    let vars = cnf.vars as usize;
    let mut value = vec![0i8; vars + 1];
    let mut trail: Vec<usize> = Vec::new();
    let mut out = Checked::default();
    let mut lits: Vec<i32> = Vec::new();
    let mut hints: Vec<i64> = Vec::new();
    let mut last_id = cnf.clauses as u64;
    let mut line = Vec::new();
    let mut line_no = 0u64;
    loop {
        line.clear();
        let n = (&mut proof)
            .take(max_line as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| LratError::Io(e.to_string()))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let syntax = |message: &str| LratError::Syntax {
            line: line_no,
            message: message.to_string(),
        };
        if line.len() > max_line {
            return Err(syntax(&format!(
                "longer than {max_line} bytes, more than any step of this CNF needs"
            )));
        }
        let mut pos = 0;
        while pos < line.len() && line[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos == line.len() || line[pos] == b'c' {
            continue;
        }
        let id = match next_int(&line, &mut pos) {
            Some(Ok(v)) if v > 0 => v as u64,
            _ => return Err(syntax("expected a clause id")),
        };
        while pos < line.len() && line[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if line.get(pos) == Some(&b'd') {
            pos += 1;
            let mut ended = false;
            while let Some(t) = next_int(&line, &mut pos) {
                match t {
                    Ok(0) => {
                        ended = true;
                        break;
                    }
                    Ok(d) if d > 0 => {
                        if db.delete(d as u64) {
                            out.deletions += 1;
                        }
                    }
                    _ => return Err(syntax("expected a clause id")),
                }
            }
            if !ended {
                return Err(syntax("deletion without its terminating 0"));
            }
            if !line[pos..].iter().all(u8::is_ascii_whitespace) {
                return Err(syntax("text after the step's terminating 0"));
            }
            db.tidy();
            continue;
        }
        lits.clear();
        hints.clear();
        let mut part = 0;
        while let Some(t) = next_int(&line, &mut pos) {
            let v = t.map_err(|()| syntax("expected a number"))?;
            if v == 0 {
                part += 1;
                if part == 2 {
                    break;
                }
                continue;
            }
            if part == 0 {
                let l = i32::try_from(v).map_err(|_| syntax("literal out of range"))?;
                if l.unsigned_abs() as usize > vars {
                    return Err(syntax(&format!("variable {} is not in the CNF", l.abs())));
                }
                lits.push(l);
            } else {
                hints.push(v);
            }
        }
        if part != 2 {
            return Err(syntax("addition without its two terminating 0s"));
        }
        if !line[pos..].iter().all(u8::is_ascii_whitespace) {
            return Err(syntax("text after the step's terminating 0"));
        }
        let step = |message: String| LratError::Step {
            line: line_no,
            id,
            message,
        };
        if id <= last_id || id - last_id > MAX_ID_JUMP {
            return Err(step(format!(
                "ids must increase, by at most {MAX_ID_JUMP} (the last was {last_id})"
            )));
        }
        last_id = id;
        let result = rup(&db, &lits, &hints, &mut value, &mut trail);
        for &v in &trail {
            value[v] = 0;
        }
        trail.clear();
        result.map_err(step)?;
        out.additions += 1;
        out.hints += hints.len() as u64;
        if lits.is_empty() {
            return Ok(out);
        }
        db.insert(id, &lits).map_err(step)?;
    }
    Err(LratError::Incomplete {
        steps: out.additions + out.deletions,
    })
}

/// Value of literal `l`: 1 true, -1 false, 0 unassigned.
#[inline]
fn lit_value(value: &[i8], l: i32) -> i8 {
    let v = value[l.unsigned_abs() as usize];
    if l > 0 {
        v
    } else {
        -v
    }
}

#[inline]
fn assign(value: &mut [i8], trail: &mut Vec<usize>, l: i32) {
    let v = l.unsigned_abs() as usize;
    value[v] = if l > 0 { 1 } else { -1 };
    trail.push(v);
}

/// Checks that `lits` follows from the hinted clauses by unit propagation.
fn rup(
    db: &Db,
    lits: &[i32],
    hints: &[i64],
    value: &mut [i8],
    trail: &mut Vec<usize>,
) -> Result<(), String> {
    for &l in lits {
        match lit_value(value, l) {
            // A repeated literal: nothing more to assume.
            -1 => {}
            // A tautology: the clause holds trivially.
            1 => return Ok(()),
            _ => assign(value, trail, -l),
        }
    }
    for &h in hints {
        if h < 0 {
            return Err(format!(
                "hint {h} is a RAT step, which this checker does not accept"
            ));
        }
        let clause = db
            .get(h as u64)
            .ok_or_else(|| format!("hint {h} names no live clause"))?;
        let mut unit = None;
        for &l in clause {
            match lit_value(value, l) {
                -1 => {}
                1 => return Err(format!("hint {h} is already satisfied")),
                _ => {
                    if unit.is_some_and(|u| u != l) {
                        return Err(format!("hint {h} is not unit"));
                    }
                    unit = Some(l);
                }
            }
        }
        match unit {
            None => return Ok(()),
            Some(l) => assign(value, trail, l),
        }
    }
    Err("the hints end without a conflict".into())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// (x1 | x2) (x1 | -x2) (-x1 | x2) (-x1 | -x2): unsatisfiable (the trimmer's tests too).
    pub(in crate::prove) fn cnf() -> Cnf {
        Cnf {
            vars: 2,
            magic_bits: 2,
            lits: vec![1, 2, 0, 1, -2, 0, -1, 2, 0, -1, -2, 0],
            clauses: 4,
            comments: vec![],
        }
    }

    fn run(proof: &str) -> Result<Checked, LratError> {
        check(&cnf(), proof.as_bytes())
    }

    #[test]
    fn a_valid_proof_checks() {
        let proof = "5 1 0 1 2 0\n4 d 1 2 0\n6 0 5 3 4 0\n";
        let c = run(proof).unwrap();
        assert_eq!(
            c,
            Checked {
                additions: 2,
                deletions: 2,
                hints: 5
            }
        );
    }

    #[test]
    fn ids_with_huge_gaps_and_deleted_clauses_cost_no_memory() {
        // 200 steps, each id 2^24 past the last: as one slot per id, 27 GB of index.
        let mut proof = String::new();
        let mut id = 4u64;
        for _ in 0..200 {
            id += MAX_ID_JUMP;
            proof.push_str(&format!("{id} 1 0 1 2 0\n"));
            if id - MAX_ID_JUMP > 4 {
                proof.push_str(&format!("{id} d {} 0\n", id - MAX_ID_JUMP));
            }
        }
        proof.push_str(&format!("{} 0 {id} 3 4 0\n", id + 1));
        assert_eq!(run(&proof).unwrap().additions, 201);
        let mut db = Db::new(0, 0, MAX_LIVE_LITERALS);
        for k in 1..=1000u64 {
            db.insert(k * MAX_ID_JUMP, &[1, 2, 3]).unwrap();
        }
        assert!(matches!(db.index, Index::Sparse { .. }));
        assert_eq!(db.get(500 * MAX_ID_JUMP), Some(&[1, 2, 3][..]));
        assert_eq!(db.get(500 * MAX_ID_JUMP + 1), None);
        // Deleting most clauses compacts the arena down to the live ones.
        let mut db = Db::new(0, 0, MAX_LIVE_LITERALS);
        for k in 1..=1_000_000u64 {
            db.insert(k, &[1, -2]).unwrap();
        }
        for k in 1..=999_000u64 {
            assert!(db.delete(k));
            if k % 1000 == 0 {
                db.tidy();
            }
        }
        db.tidy();
        assert!(db.lits.len() <= 2 * 1000 + DENSE_SLACK, "{}", db.lits.len());
        assert_eq!(db.get(999_001), Some(&[1, -2][..]));
        assert_eq!(db.get(5), None);
    }

    #[test]
    fn a_proof_keeping_more_literals_alive_than_allowed_is_refused() {
        let mut proof = String::new();
        for id in 5..105 {
            proof.push_str(&format!("{id} 1 2 0 1 0\n"));
        }
        proof.push_str("105 1 0 1 2 0\n106 0 105 3 4 0\n");
        assert!(check_within(&cnf(), proof.as_bytes(), 1000).is_ok());
        match check_within(&cnf(), proof.as_bytes(), 300) {
            Err(LratError::Step { message, .. }) => {
                assert!(message.contains("alive at once"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(live_literal_budget(10), 1 << 24);
        assert_eq!(live_literal_budget(1 << 30), 1 << 33);
    }

    #[test]
    fn a_line_longer_than_any_step_needs_is_refused_before_it_is_held() {
        let long = format!("5 1 0 1 2 {}0\n6 0 5 3 4 0\n", "1 ".repeat(1 << 20));
        match run(&long) {
            Err(LratError::Syntax { line: 1, message }) => {
                assert!(message.contains("longer than"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(max_line(2), 1 << 20);
        assert!(max_line(100_000) > 21 * 200_000);
    }

    #[test]
    fn tampered_proofs_are_refused() {
        for bad in [
            "5 1 0 1 0\n6 0 5 3 4 0\n",              // hint missing: not a conflict
            "5 -1 0 1 2 0\n6 0 5 3 4 0\n",           // wrong literal
            "5 1 0 1 2 0\n6 0 5 3 0\n",              // conflict not reached
            "5 1 0 1 2 0\n",                         // no empty clause
            "5 1 0 1 2 0\n5 0 5 3 4 0\n",            // id reused
            "5 1 0 1 2 0\n5 d 5 0\n6 0 5 3 4 0\n",   // the lemma was deleted
            "5 1 0 1 9 0\n6 0 5 3 4 0\n",            // unknown hint
            "5 1 0 -1 2 0\n6 0 5 3 4 0\n",           // RAT hint
            "5 3 0 1 2 0\n6 0 5 3 4 0\n",            // variable not in the CNF
            "5 1 0 1 2\n6 0 5 3 4 0\n",              // unterminated
            "five 1 0 1 2 0\n",                      // garbage
            "5 1 0 1 2 0 junk\n6 0 5 3 4 0\n",       // text after the step
            "5 1 0 1 2 0\n4 d 1 0 9\n6 0 5 3 4 0\n", // text after a deletion
            "5 1 0 3 1 2 0\n6 0 5 3 4 0\n",          // a satisfied hint
        ] {
            assert!(run(bad).is_err(), "accepted: {bad:?}");
        }
    }
}
