//! The one place that talks to the SAT solver (CaDiCaL, through the `cadical-sys` crate).
//!
//! The solver's proof is written in LRAT (text) to a file by `LratFile`, a proof tracer that
//! numbers the original clauses as the DIMACS file does (the solver's own numbering shifts when
//! it strengthens a clause while the clauses are still being added); [`super::lrat`] checks it.
//! A stop flag (Ctrl-C) and a deadline end a solve early with [`Answer::Unknown`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cadical_sys::{CaDiCal, Learner, ProofTracer, Status, Terminator};

use super::cnf::Cnf;
use crate::interrupt::Stop;

/// The solver's name and version, recorded in every proof.
#[must_use]
pub fn name() -> String {
    format!("CaDiCaL {}", CaDiCal::version())
}

/// What a solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A model; its magic (the magic variables only).
    Sat(u64),
    /// No model; the proof (if one was asked for) is complete.
    Unsat,
    /// Stopped by the flag or the deadline.
    Unknown,
}

/// A solve's answer and cost.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The answer.
    pub answer: Answer,
    /// Conflicts (from the solver's statistics).
    pub conflicts: u64,
    /// Wall time of the solve.
    pub elapsed: Duration,
}

/// Why the solver could not run.
#[derive(Debug, thiserror::Error)]
pub enum SolverError {
    /// The proof file could not be written.
    #[error("the solver cannot write its proof to {path}: {message}")]
    ProofFile {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

/// Writes the solver's clausal proof as LRAT, renumbering clauses: the k-th original clause is
/// `k` (its line in the DIMACS file), derived clauses follow from `originals + 1` in the order
/// the solver derives them.
struct LratFile {
    out: BufWriter<File>,
    /// Solver id -> LRAT id of every live clause.
    ids: HashMap<i64, u64>,
    originals: u64,
    next: u64,
    line: String,
    error: Option<String>,
}

impl LratFile {
    fn new(file: File, originals: usize) -> LratFile {
        LratFile {
            out: BufWriter::new(file),
            ids: HashMap::new(),
            originals: 0,
            next: originals as u64,
            line: String::new(),
            error: None,
        }
    }

    fn fail(&mut self, message: String) {
        self.error.get_or_insert(message);
    }

    fn emit(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(self.line.as_bytes()) {
                self.fail(e.to_string());
            }
        }
    }

    fn derive(&mut self, id: i64, clause: &[i32], antecedents: &[i64]) {
        use std::fmt::Write as _;
        self.next += 1;
        let own = self.next;
        self.line.clear();
        let _ = write!(self.line, "{own}");
        for l in clause {
            let _ = write!(self.line, " {l}");
        }
        self.line.push_str(" 0");
        for a in antecedents {
            match self.ids.get(a) {
                Some(h) => {
                    let _ = write!(self.line, " {h}");
                }
                None => {
                    self.fail(format!("the solver cited clause {a}, which it never added"));
                    return;
                }
            }
        }
        self.line.push_str(" 0\n");
        self.emit();
        self.ids.insert(id, own);
    }

    fn finish(&mut self) -> Result<(), String> {
        if let Err(e) = self.out.flush() {
            self.fail(e.to_string());
        }
        self.error.clone().map_or(Ok(()), Err)
    }
}

impl ProofTracer for LratFile {
    fn add_original_clause(&mut self, id: i64, _redundant: bool, _clause: &[i32], restored: bool) {
        if restored {
            self.fail("the solver restored a clause (not expected without incremental use)".into());
            return;
        }
        self.originals += 1;
        self.ids.insert(id, self.originals);
    }

    fn add_derived_clause(
        &mut self,
        id: i64,
        _redundant: bool,
        witness: i32,
        clause: &[i32],
        antecedents: &[i64],
    ) {
        if witness != 0 {
            self.fail(format!("the solver derived clause {id} by a RAT step"));
        }
        self.derive(id, clause, antecedents);
    }

    fn delete_clause(&mut self, id: i64, _redundant: bool, _clause: &[i32]) {
        if let Some(own) = self.ids.remove(&id) {
            self.line = format!("{} d {own} 0\n", self.next);
            self.emit();
        }
    }

    fn weaken_minus(&mut self, _id: i64, _clause: &[i32]) {}

    fn strengthen(&mut self, _id: i64) {}

    fn finalize_clause(&mut self, _id: i64, _clause: &[i32]) {}

    fn add_assumption(&mut self, _lit: i32) {}

    fn add_constraint(&mut self, _clause: &[i32]) {}

    fn reset_assumptions(&mut self) {}

    fn add_assumption_clause(&mut self, id: i64, clause: &[i32], antecedents: &[i64]) {
        self.derive(id, clause, antecedents);
    }

    fn conclude_sat(&mut self, _conclusion_type: i32, _model: &[i32]) {}

    fn conclude_unsat(&mut self, _conclusion_type: i32, _clause_ids: &[i64]) {}

    fn conclude_unknown(&mut self, _trail: &[i32]) {}
}

/// Stops the solver on a stop request or at the deadline.
struct Limit {
    stop: Stop,
    deadline: Option<Instant>,
}

impl Terminator for Limit {
    fn terminated(&mut self) -> bool {
        self.stop.requested() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Counts learned clauses (one per conflict) for the progress line.
struct Count(Arc<AtomicU64>);

impl Learner for Count {
    fn learning(&mut self, _size: i32) -> bool {
        self.0.fetch_add(1, Ordering::Relaxed);
        false
    }

    fn learn(&mut self, _lit: i32) {}
}

/// A progress report: called with (elapsed, conflicts so far).
pub type Report<'a> = &'a (dyn Fn(Duration, u64) + Sync);

/// How to run one solve.
pub struct Run<'a> {
    /// Where to write the LRAT proof, if anywhere.
    pub proof: Option<&'a Path>,
    /// Fixed literals for this solve only.
    pub assumptions: &'a [i32],
    /// Ctrl-C.
    pub stop: &'a Stop,
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Called about every `every` with (elapsed, conflicts so far), from another thread.
    pub progress: Option<(Duration, Report<'a>)>,
}

/// Solves `cnf` once.
///
/// # Errors
/// [`SolverError`] when the proof file cannot be written.
pub fn solve(cnf: &Cnf, run: &Run<'_>) -> Result<Solved, SolverError> {
    let mut s = CaDiCal::new();
    let proof_err = |message: String| SolverError::ProofFile {
        path: run
            .proof
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        message,
    };
    let tracer = match run.proof {
        None => None,
        Some(path) => {
            let file = crate::fs::create_new(path).map_err(|e| proof_err(e.to_string()))?;
            let t = Rc::new(RefCell::new(LratFile::new(file, cnf.clauses)));
            s.connect_proof_tracer1(Rc::clone(&t), true, false);
            Some(t)
        }
    };
    let count = Arc::new(AtomicU64::new(0));
    s.connect_terminator(Limit {
        stop: run.stop.clone(),
        deadline: run.deadline,
    });
    s.connect_learner(Count(Arc::clone(&count)));
    for clause in cnf.iter() {
        s.clause6(clause);
    }
    for &a in run.assumptions {
        s.assume(a);
    }
    let start = Instant::now();
    let done = std::sync::atomic::AtomicBool::new(false);
    let status = std::thread::scope(|scope| {
        if let Some((every, report)) = run.progress {
            let (done, count) = (&done, &count);
            scope.spawn(move || {
                let mut next = every;
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                    if start.elapsed() >= next {
                        report(start.elapsed(), count.load(Ordering::Relaxed));
                        next += every;
                    }
                }
            });
        }
        let status = s.solve();
        done.store(true, Ordering::Relaxed);
        status
    });
    let elapsed = start.elapsed();
    let answer = match status {
        Status::SATISFIABLE => Answer::Sat(cnf.magic_of(|v| s.val(v) > 0)),
        Status::UNSATISFIABLE => Answer::Unsat,
        Status::UNKNOWN => Answer::Unknown,
    };
    let conflicts = u64::try_from(s.get_statistic_value("conflicts")).unwrap_or(0);
    if let Some(t) = tracer {
        let mut t = t.borrow_mut();
        let seen = t.originals;
        if seen != cnf.clauses as u64 {
            t.fail(format!(
                "the solver saw {seen} original clauses, the CNF has {}",
                cnf.clauses
            ));
        }
        t.finish().map_err(proof_err)?;
    }
    Ok(Solved {
        answer,
        conflicts,
        elapsed,
    })
}

/// Every model's magic of `cnf`, by blocking each magic found (one incremental solver), up to
/// `limit` magics. For tests and small periods: the trust check against `exhaust`.
#[must_use]
pub fn enumerate(cnf: &Cnf, limit: usize) -> Vec<u64> {
    let mut s = CaDiCal::new();
    for clause in cnf.iter() {
        s.clause6(clause);
    }
    let mut found = Vec::new();
    while found.len() < limit && s.solve() == Status::SATISFIABLE {
        let m = cnf.magic_of(|v| s.val(v) > 0);
        found.push(m);
        let block: Vec<i32> = cnf.magic_lits(m).iter().map(|l| -l).collect();
        s.clause6(&block);
    }
    found
}

/// For each magic, whether `cnf` is satisfiable with the magic variables fixed to it (one
/// incremental solver, the magic as assumptions).
#[must_use]
pub fn judge(cnf: &Cnf, magics: &[u64]) -> Vec<bool> {
    let mut s = CaDiCal::new();
    for clause in cnf.iter() {
        s.clause6(clause);
    }
    magics
        .iter()
        .map(|&m| {
            for l in cnf.magic_lits(m) {
                s.assume(l);
            }
            s.solve() == Status::SATISFIABLE
        })
        .collect()
}
