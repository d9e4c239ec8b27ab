//! The hunt: a rayon pool runs the tasks of each round; one coordinator thread owns the
//! store, takes every result over a channel, offers verified magics to the store, records
//! the work, checkpoints, and reports its progress to the caller's [`Progress`].
//!
//! ```
//! use magichunt::hunt::plan::{Objective, Select};
//! use magichunt::hunt::{run, HuntConfig};
//! use magichunt::interrupt::Stop;
//! use magichunt::progress::Quiet;
//! use magichunt::store::Store;
//! use magichunt::{Formula, Piece, Target};
//!
//! // Bishop e4, ratcheting down from its popcount (9 bits; a published proof rules out 8).
//! let dir = tempfile::tempdir()?;
//! let e4 = Target::new(Piece::Bishop, "e4".parse()?);
//! let cfg = HuntConfig {
//!     targets: vec![e4],
//!     select: Select::Ratchet,
//!     formula: Formula::Plain,
//!     objective: Objective::Bits,
//!     time: None,
//!     tries: Some(1 << 20),
//!     threads: 1,
//!     seed: 42,
//!     store: dir.path().join("store.json"),
//! };
//! let summary = run(&cfg, &Stop::new(), &mut Quiet)?;
//! // The first find, then tighter ones at the floor (a smaller highest index is better).
//! assert!(!summary.improvements.is_empty());
//! // The store on disk holds the magic, verified again on load.
//! assert_eq!(Store::load(&cfg.store)?.best(e4).map(|e| e.bits), Some(9));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod alloc;
pub mod plan;
pub mod progress;
pub mod schedule;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::error::{SaveError, TableError};
use crate::fs::lock::{LockError, StoreLock};
use crate::fs::output::Writes;
use crate::interrupt::Stop;
use crate::magic::format_magic;
use crate::piece::Target;
use crate::question::{Formula, Question};
use crate::search::{search_within, task_rng, Batch, Bound, Scratchpad};
use crate::store::{Offer, Store};
use crate::table::wire::MethodWire;
use crate::table::Entry;
use crate::timefmt::{self, format_duration, now_rfc3339};

use crate::progress::{count, Progress};
use alloc::Payoff;
use plan::{plan_for, Objective, PlanError, Select};
use progress::{status_lines, Line, Overall};
use schedule::{Done, Schedule, Task};

/// Checkpoint at least this often.
pub const CHECKPOINT: Duration = Duration::from_secs(30);

/// A validated hunt.
#[derive(Clone, Debug)]
pub struct HuntConfig {
    /// Targets selected (pieces x squares).
    pub targets: Vec<Target>,
    /// How bits are chosen.
    pub select: Select,
    /// The index formula hunted.
    pub formula: Formula,
    /// What the hunt improves.
    pub objective: Objective,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Candidates per target at most.
    pub tries: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// The run's seed.
    pub seed: u64,
    /// The store (the default store is started from the shipped one when it does not exist:
    /// [`crate::locate::start`]).
    pub store: PathBuf,
}

/// Why a hunt could not run or save.
#[derive(Debug, thiserror::Error)]
pub enum HuntError {
    /// The store is locked by another process, or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The store was refused.
    #[error(transparent)]
    Load(#[from] TableError),
    /// The selection cannot be hunted.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A checkpoint failed; the file on disk is the previous checkpoint.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// The worker pool could not start.
    #[error("cannot start the worker pool")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// The default store could not be started.
    #[error(transparent)]
    Start(#[from] crate::locate::LocateError),
}

/// A magic stored by this run.
#[derive(Clone, Debug)]
pub struct Improvement {
    /// Piece and square.
    pub target: Target,
    /// Bits of the magic it replaced, if any.
    pub old_bits: Option<u32>,
    /// The new entry.
    pub entry: Entry,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Magics stored, in the order found.
    pub improvements: Vec<Improvement>,
    /// Candidates examined.
    pub tried: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Stopped by a signal (not by `--time`, `--tries` or finishing).
    pub interrupted: bool,
    /// The store at the end.
    pub store: Store,
    /// The run identifier recorded in the store.
    pub run: String,
}

/// A task's result, sent to the coordinator.
struct Msg {
    index: usize,
    batch: Batch,
    seconds: f64,
}

thread_local! {
    /// Scratchpads of this worker thread, per (target, bits, formula): built once, reused by
    /// tasks.
    static PADS: RefCell<HashMap<(Target, u32, Formula), Scratchpad>> = RefCell::new(HashMap::new());
}

/// Runs a hunt until every target is finished, `--time` runs out, or `stop` is set.
/// Starts the default store when it does not exist yet, takes the store's lock, loads it
/// (every entry verified), hunts, checkpoints, saves; notes, new bests and the status go to
/// `progress`.
///
/// # Errors
/// [`HuntError`]: the store is in use or refused (the file untouched), the selection is
/// impossible, or a save failed.
pub fn run(
    cfg: &HuntConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<Summary, HuntError> {
    let start = Instant::now();
    crate::locate::start(&cfg.store, progress)?;
    // Refuse a bad store or an impossible selection before touching anything.
    let plan =
        |store: &Store| plan_for(store, &cfg.targets, cfg.select, cfg.formula, cfg.objective);
    plan(&Store::read(&cfg.store)?.0)?;
    // The lock resolves the store to its real file (a symlink stays a symlink).
    let lock = StoreLock::acquire(&cfg.store, Writes::Store)?;
    let real = lock.store();
    // Load again under the lock: another process may have written it meanwhile.
    let new_store = !real.exists();
    let mut store = Store::load(real)?;
    // Which of its proofs may decide what is hunted: those checked here, those this build
    // ships; a proof only claimed is said in a note and hunted past.
    crate::trust::vet_file(&mut store, real, &mut crate::trust::Cache::open());
    let the_plan = plan(&store)?;
    let run_id = format!("{}-{}-{}", now_rfc3339(), cfg.seed, std::process::id());
    if new_store {
        // First, so that a mistyped --store is seen at once.
        progress.note(&format!(
            "magichunt: no store at {}: starting a new one there",
            cfg.store.display()
        ));
    }
    lock.note_removed(progress);
    crate::locate::note_behind(&cfg.store, &store, progress);
    for n in &the_plan.notes {
        progress.note(&format!("magichunt: {n}"));
    }
    let goals = the_plan.goals.len();
    progress.note(&if goals == 0 {
        "magichunt: nothing to hunt: every target is already at its goal".to_string()
    } else {
        format!(
            "magichunt: hunting {} on {}, seed {} (--seed {} reproduces it), store {}",
            count(goals, "target"),
            count(cfg.threads, "thread"),
            cfg.seed,
            cfg.seed,
            cfg.store.display()
        )
    });
    // Mutation starts only from magics in the store (and those found during the run): what
    // the hunter reaches is its own work. A user who wants published starting points merges
    // a published table into the store first.
    let known: Vec<(Target, u64)> = store
        .entries_with(cfg.formula)
        .map(|e| (e.target, e.magic))
        .collect();
    let mut sched = Schedule::new(&the_plan.goals, cfg.tries, known);
    if cfg.formula == Formula::Black {
        // The store's plain magic of a square seeds the black hunt there: see `with_seeds`.
        let plain = store
            .entries_with(Formula::Plain)
            .map(|e| (e.target, e.magic))
            .collect();
        sched = sched.with_seeds(plain);
    }
    let mut payoff = Payoff::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .thread_name(|i| format!("hunt-{i}"))
        .build()?;
    let deadline = cfg.time.and_then(|d| start.checked_add(d));
    let mut improvements = Vec::new();
    let mut tried = 0u64;
    let mut last_save = Instant::now();
    let (tx, rx) = mpsc::channel::<Msg>();

    while !stop.requested() {
        let tasks = sched.round(&payoff);
        if tasks.is_empty() {
            break;
        }
        for (index, task) in tasks.iter().enumerate() {
            let (tx, stop, task, seed) = (tx.clone(), stop.clone(), task.clone(), cfg.seed);
            let formula = cfg.formula;
            pool.spawn(move || {
                let t0 = Instant::now();
                let batch = run_task(&task, formula, seed, &stop);
                let seconds = t0.elapsed().as_secs_f64();
                let _ = tx.send(Msg {
                    index,
                    batch,
                    seconds,
                });
            });
        }
        let mut done: Vec<Option<Done>> = vec![None; tasks.len()];
        let mut found: Vec<Option<(Target, u64)>> = vec![None; tasks.len()];
        let mut pending = tasks.len();
        while pending > 0 {
            if let Ok(m) = rx.recv_timeout(Duration::from_millis(100)) {
                pending -= 1;
                let task = &tasks[m.index];
                tried = tried.saturating_add(m.batch.tried);
                let q = Question {
                    target: task.target,
                    bits: task.bits,
                    formula: cfg.formula,
                };
                store.add_effort_on(q, &run_id, m.batch.tried, m.seconds);
                if let Some(v) = m.batch.found {
                    found[m.index] = Some((v.target, v.magic));
                    let method = MethodWire {
                        family: task.family.name().to_string(),
                        seed: Some(cfg.seed),
                        run: Some(run_id.clone()),
                    };
                    let entry = Entry::from_verified(&v, Some(now_rfc3339()), Some(method));
                    let old_bits = store.best_with(v.target, cfg.formula).map(|e| e.bits);
                    let offered = store.offer(entry.clone());
                    for r in store.take_refuted() {
                        progress.note(&format!("magichunt: {r}"));
                    }
                    if offered != Offer::Kept {
                        let black = if v.formula == Formula::Black {
                            format!(" black, min index {}", v.min_index)
                        } else {
                            String::new()
                        };
                        progress.note(&format!(
                            "magichunt: new best {} {} bits magic {}{black} max index {} ({}, stream {}, after {})",
                            v.target,
                            v.bits,
                            format_magic(v.magic),
                            v.max_index,
                            task.family.name(),
                            task.stream,
                            format_duration(start.elapsed())
                        ));
                        improvements.push(Improvement {
                            target: v.target,
                            old_bits,
                            entry,
                        });
                        store.save_locked(&lock)?;
                        last_save = Instant::now();
                    }
                }
                done[m.index] = Some(Done {
                    task: task.clone(),
                    tried: m.batch.tried,
                    seconds: m.seconds,
                    found: m.batch.found.is_some(),
                    span: m.batch.found.map(|v| v.span()),
                });
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                stop.request();
            }
            if last_save.elapsed() >= CHECKPOINT {
                store.save_locked(&lock)?;
                last_save = Instant::now();
            }
            progress.status(&status_lines(
                &overall(start, deadline, tried, improvements.len(), &sched),
                &lines(&sched, &store, cfg.formula),
            ));
        }
        let done: Vec<Done> = done.into_iter().flatten().collect();
        let found: Vec<(Target, u64)> = found.into_iter().flatten().collect();
        sched.finish(&done, &found, &mut payoff);
    }
    store.save_locked(&lock)?;
    progress.finish();
    Ok(Summary {
        improvements,
        tried,
        elapsed: start.elapsed(),
        interrupted: stop.signalled(),
        store,
        run: run_id,
    })
}

/// Runs one task on this worker's scratchpad for its (target, bits, formula).
fn run_task(task: &Task, formula: Formula, seed: u64, stop: &Stop) -> Batch {
    PADS.with(|pads| {
        let mut pads = pads.borrow_mut();
        if pads.len() > 300 {
            pads.clear();
        }
        let pad = pads
            .entry((task.target, task.bits, formula))
            .or_insert_with(|| Scratchpad::with_formula(task.target, task.bits, formula));
        let mut rng = task_rng(seed, task.target, task.bits, task.stream);
        let bound = task.limit.map_or(Bound::Valid, Bound::Span);
        search_within(pad, &task.family, &mut rng, task.n, stop.flag(), bound)
    })
}

fn overall(
    start: Instant,
    deadline: Option<Instant>,
    tried: u64,
    improved: usize,
    sched: &Schedule,
) -> Overall {
    Overall {
        elapsed: start.elapsed(),
        left: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        tried,
        improved,
        active: sched.active(),
    }
}

fn lines(sched: &Schedule, store: &Store, formula: Formula) -> Vec<Line> {
    let mut running: Vec<&schedule::State> = sched.states.iter().filter(|s| !s.done).collect();
    running.sort_by_key(|s| (std::cmp::Reverse(s.reduction()), s.target));
    running
        .into_iter()
        .map(|s| Line {
            target: s.target,
            bits: s.bits,
            rate: s.tried as f64 / s.seconds.max(1e-9),
            best: store.best_with(s.target, formula).map(|e| e.bits),
        })
        .collect()
}

/// The end-of-run summary: what improved in this run and the store's totals.
#[must_use]
pub fn summary_text(s: &Summary) -> String {
    let mut out = String::new();
    let secs = s.elapsed.as_secs_f64().max(1e-3);
    out.push_str(&format!(
        "{} in {}: {} candidates ({}/s), {} improvements{}\n",
        if s.interrupted { "interrupted" } else { "done" },
        format_duration(s.elapsed),
        s.tried,
        crate::progress::human(s.tried as f64 / secs),
        s.improvements.len(),
        if s.improvements.is_empty() { "" } else { ":" }
    ));
    // The last improvement of each target is what it ended at.
    let mut last: Vec<&Improvement> = Vec::new();
    for i in &s.improvements {
        last.retain(|x| x.target != i.target);
        last.push(i);
    }
    last.sort_by_key(|i| i.target);
    for i in last {
        let first = s
            .improvements
            .iter()
            .find(|x| x.target == i.target)
            .and_then(|x| x.old_bits);
        let formula = if i.entry.formula == Formula::Plain {
            String::new()
        } else {
            format!("  {}, min index {}", i.entry.formula, i.entry.min_index)
        };
        out.push_str(&format!(
            "  {:<10} {} -> {} bits  {}  max index {}{formula}  tight {}\n",
            i.target.to_string(),
            first.map_or_else(|| "none".to_string(), |b| b.to_string()),
            i.entry.bits,
            format_magic(i.entry.magic),
            i.entry.max_index,
            i.entry.span()
        ));
    }
    for formula in Formula::ALL {
        if formula == Formula::Black && s.store.entries_with(formula).next().is_none() {
            continue;
        }
        let (mut full, mut tight) = (0u64, 0u64);
        for e in s.store.entries_with(formula) {
            full += 1 << e.bits;
            tight += u64::from(e.span());
        }
        out.push_str(&format!(
            "store, {formula} magics: {} squares, {full} entries at 2^bits, {tight} tight\n",
            s.store.entries_with(formula).count()
        ));
    }
    let (t, sec) = s.store.effort().fold((0u64, 0.0f64), |(t, x), e| {
        (t.saturating_add(e.tried), x + e.seconds)
    });
    out.push_str(&format!(
        "store work: {} candidates, {} over all runs\n",
        t,
        format_duration(timefmt::secs(sec))
    ));
    out
}
