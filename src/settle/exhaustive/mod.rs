//! One part of an exhaustive search, searched into a store: what `magichunt exhaust` (and
//! `prove --method exhaust`) runs, as one call, [`run_part`].
//!
//! The part resumes from the checkpoint its store holds, keeps the task split and the order it
//! was begun with, saves a checkpoint at least every [`CHECKPOINT`], and when it finishes
//! records itself as done, offers its best magic to the store, and records the proof of none
//! once every part of the search is done and found nothing. One writer per store: the store's
//! lock is held from the first read to the last save.
//!
//! ```
//! use magichunt::exhaust::campaign::run::Ending;
//! use magichunt::exhaust::campaign::shard::Shard;
//! use magichunt::interrupt::Stop;
//! use magichunt::progress::Quiet;
//! use magichunt::settle::exhaustive::{run_part, PartConfig, PartOutcome, Whole};
//! use magichunt::{Formula, Piece, Question, Target};
//!
//! // Bishop b8 at 2 bits: no magic exists, and a search of its whole period says so (52 M nodes).
//! let dir = tempfile::tempdir()?;
//! let b8 = Target::new(Piece::Bishop, "b8".parse()?);
//! let cfg = PartConfig::new(Question::new(b8, 2, Formula::Plain)?, Shard::WHOLE, dir.path().join("s.json"));
//! let PartOutcome::Ran(run) = run_part(&cfg, &Stop::new(), &mut Quiet)? else { panic!() };
//! assert_eq!((run.ending, run.whole), (Ending::Finished, Some(Whole::NoneExists)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod found;
mod outcome;
mod record;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::exhaust::campaign::run::{self, Ending, PartState, Progress as Figures, RunConfig};
use crate::exhaust::campaign::shard::Shard;
use crate::exhaust::{Order, Plan};
use crate::fs::lock::StoreLock;
use crate::fs::output::Writes;
use crate::interrupt::Stop;
use crate::progress::{count, Pace, Progress};
use crate::question::{Formula, Question};
use crate::store::Store;
use crate::timefmt::format_duration;
use crate::trust::audit::{Halt, Standing};

pub use error::PartError;
pub use found::{add_found, tightest, Added, FoundConfig};
pub use outcome::{PartOutcome, PartRun, Whole};
use record::{offer, offer_verified, record, remember_run_here, resume, whole};

/// Checkpoints are at most this far apart.
pub const CHECKPOINT: Duration = Duration::from_secs(30);

/// The stretch of a run its status line's speed and ETA are taken over: long enough that the
/// heavy subtrees average out, short enough that a stop or a busy hour is soon forgotten.
pub const PACE: Duration = Duration::from_secs(600);

/// One part of an exhaustive search to run into a store.
#[derive(Clone, Debug)]
pub struct PartConfig {
    /// The question (plain magics only: a black magic has no period to enumerate).
    pub question: Question,
    /// The part.
    pub shard: Shard,
    /// The store holding its progress, its proof and its magics (the default store is
    /// started from the shipped one when it does not exist: [`crate::locate::start`]).
    pub store: PathBuf,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Stop after this long, save, and project the time left.
    pub time: Option<Duration>,
    /// Search again even if the store holds a proof of none at these bits or the part is
    /// done (the part is then searched from its start, its record replaced when done).
    pub recheck: bool,
    /// Task bits of a new search (a search already begun keeps its own; asking for others
    /// is refused).
    pub task_bits: Option<u32>,
    /// Order of a new search (a search already begun keeps its own; asking for another is
    /// refused); [`Order::suited`] when not given.
    pub order: Option<Order>,
}

impl PartConfig {
    /// Part `shard` of `question` into `store`, on every core, without a time limit.
    #[must_use]
    pub fn new(question: Question, shard: Shard, store: PathBuf) -> PartConfig {
        PartConfig {
            question,
            shard,
            store,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            time: None,
            recheck: false,
            task_bits: None,
            order: None,
        }
    }
}

/// Runs part `cfg.shard` of `cfg.question` into `cfg.store`, from its checkpoint, until it
/// is done, `stop` is set or `cfg.time` runs out; saves a checkpoint at least every
/// [`CHECKPOINT`] and at the end. Notes (the start, this run's speed, a published proof it
/// reproduces) and a status line go to `progress`.
///
/// # Errors
/// [`PartError`]: a black question, a store that is locked, unreadable or begun with other
/// settings, a record that does not resume, a failed save.
pub fn run_part(
    cfg: &PartConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<PartOutcome, PartError> {
    let (q, shard) = (cfg.question, cfg.shard);
    if q.formula != Formula::Plain {
        return Err(PartError::Black);
    }
    crate::locate::start(&cfg.store, progress)?;
    let name = cfg.store.display().to_string();
    let load = |path: &std::path::Path| {
        Store::load(path).map_err(|source| PartError::Load {
            name: name.clone(),
            source,
        })
    };
    // Read without the lock first: a store that settles the question needs no lock. Only
    // proofs this build checked (or ships) settle it ([`crate::trust::vet_file`]).
    let mut cache = crate::trust::Cache::open();
    // Silently: the notes of a store read (records listed twice) come with the read under
    // the lock.
    let mut first = Store::read(&cfg.store)
        .map_err(|source| PartError::Load {
            name: name.clone(),
            source,
        })?
        .0;
    crate::trust::vet_file(&mut first, &cfg.store, &mut cache);
    if let Some(done) = already(&first, cfg, &name, progress) {
        return Ok(done);
    }
    // One writer per store: take the lock, then read the store again under it. The lock
    // resolves the store to its real file: load and save that one.
    let lock = StoreLock::acquire(&cfg.store, Writes::Store)?;
    lock.note_removed(progress);
    let path = lock.store();
    let mut store = load(path)?;
    let plan = plan(&store, cfg, &name)?;
    let begun = store.exhaust(q.target, q.bits, shard.count);
    let mut part = begun.and_then(|x| x.parts.get(&shard.index)).cloned();
    // `--time` counts from here: a claimed part's re-run below spends it too.
    let deadline = cfg.time.and_then(|t| Instant::now().checked_add(t));
    if let (Some(x), Some(p)) = (begun, part.as_ref().filter(|p| p.done)) {
        // A part done counts once this build checked it; one only claimed has blocks of it
        // re-run first ([`crate::trust::audit::done_part_stands`]).
        let standing = if cfg.recheck {
            Standing::SearchAgain
        } else {
            let halt = Halt { stop, deadline };
            crate::trust::audit::done_part_stands(x, p, &name, cfg.threads, halt, &mut cache)
                .map_err(PartError::Threads)?
        };
        match standing {
            Standing::Stands => {
                return Ok(PartOutcome::Done {
                    question: q,
                    shard,
                    whole: x.complete().then(|| record::whole_of(x)),
                })
            }
            // Search the part again from its start; the record is replaced when done.
            Standing::SearchAgain => part = None,
            // Nothing decided, nothing changed: the record stays as it was.
            Standing::CutShort if stop.signalled() => {
                return Ok(PartOutcome::Interrupted { question: q, shard })
            }
            Standing::CutShort => return Ok(PartOutcome::OutOfTime { question: q, shard }),
        }
        if stop.signalled() {
            return Ok(PartOutcome::Interrupted { question: q, shard });
        }
    }
    let mut state = resume(q, &plan, shard, part.as_ref())?;
    if state.residue.is_none() {
        progress.note(&format!(
            "note: part {shard} was begun by a build that kept no residue: it resumes, but finishes without evidence (claimed, not counted); --recheck searches it again from the start"
        ));
    }
    let start_done = state.done;
    // What the re-run above left of `--time`.
    let cfg = &PartConfig {
        time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        ..cfg.clone()
    };
    let (ending, last) = search(cfg, &plan, &mut store, &lock, &mut state, stop, progress)?;
    let finished = ending == Ending::Finished;
    record(&mut store, &plan, q, shard, &state, finished);
    // The best magic found is offered to the store's table at every checkpoint and here,
    // finished or not: a search stopped after finding one must not leave it only in its record.
    if let Some(b) = state.tally.best {
        offer(&mut store, q, b, shard)?;
    }
    if finished {
        store.settle_exhaust(&name)?;
    }
    // Once every part is done, the tightest magic the search knows (the smallest highest
    // index, then the fewest slots) is offered too: the parts' bests only break ties by the
    // magic.
    let whole = finished.then(|| whole(&store, q, shard));
    if let Some(Whole::Exists {
        tightest: Some(v), ..
    }) = &whole
    {
        offer_verified(&mut store, v, "tightest");
    }
    store.save_locked(&lock)?;
    if finished && start_done == 0 && state.residue.is_some() {
        remember_run_here(&store, q, shard);
    }
    if let Some(p) = last {
        let secs = p.elapsed.as_secs_f64().max(1e-9);
        let rate = p.nodes_seen as f64 / secs / 1e6;
        progress.note(&format!(
            "this run: {} partial magics tested in {secs:.1} s at {} ({rate:.2} M/s, {:.2} M/s per thread)",
            p.nodes_seen,
            count(cfg.threads, "thread"),
            rate / cfg.threads as f64
        ));
    }
    if finished {
        progress.note(&format!(
            "part {shard}: {} partial magics tested in {:.2} CPU-seconds in all",
            state.tally.nodes, state.seconds
        ));
    }
    Ok(PartOutcome::Ran(PartRun {
        question: q,
        shard,
        ending,
        len: shard.len(plan.tasks()),
        start_done,
        done: state.done,
        tally: state.tally,
        seconds: state.seconds,
        threads: cfg.threads,
        whole,
    }))
}

/// The store already settles the question (a proof of its own at these bits or more, that
/// this build checked or ships): nothing to do, as for a finished part. One only claimed
/// decides nothing, and a published proof alone is worth reproducing: each is noted, and the
/// search runs.
fn already(
    store: &Store,
    cfg: &PartConfig,
    name: &str,
    progress: &mut dyn Progress,
) -> Option<PartOutcome> {
    let q = cfg.question;
    let own = store.trusted_own_none_with(q.target, Formula::Plain);
    if let Some(proven) = own.filter(|&p| p >= q.bits && !cfg.recheck) {
        return Some(PartOutcome::Proven {
            question: q,
            proven,
            store: name.to_string(),
        });
    }
    if let Some(why) = store.claimed_only(q).filter(|_| !cfg.recheck) {
        progress.note(&format!(
            "note: {name} records that no {} magic with {} bits exists, but the proof is {why}: it decides nothing, so the search runs (`magichunt audit --store {name}` checks it instead)",
            q.target, q.bits
        ));
    }
    if let Some(p) = crate::published::proof(q.target).filter(|p| p.bits >= q.bits) {
        let source = p
            .extra
            .get("source")
            .and_then(|v| v.as_str())
            .unwrap_or("published");
        progress.note(&format!(
            "note: {} at {} bits is proven impossible by {source}; searching to reproduce it",
            q.target, q.bits
        ));
    }
    None
}

/// The plan of the search: a search already begun keeps the task split and the order its
/// parts were searched with; a new one takes those asked for, or the defaults.
fn plan(store: &Store, cfg: &PartConfig, name: &str) -> Result<Plan, PartError> {
    let (q, shard) = (cfg.question, cfg.shard);
    let begun = store.exhaust(q.target, q.bits, shard.count);
    let fresh = Plan::new(q.target, q.bits);
    let what = || format!("{} at {} bits in {} parts", q.target, q.bits, shard.count);
    let plan = match (begun, cfg.task_bits) {
        (Some(x), Some(n)) if fresh.clone().with_task_bits(n).task_bits() != x.task_bits => {
            return Err(PartError::Begun(format!(
                "{} was begun in {name} with {} task bits, not {n}: leave out --task-bits, or search into another store",
                what(),
                x.task_bits
            )))
        }
        (Some(x), _) => fresh.with_task_bits(x.task_bits),
        (None, Some(n)) => fresh.with_task_bits(n),
        (None, None) => fresh,
    };
    Ok(match (begun, cfg.order) {
        (Some(x), Some(o)) if o != x.order => {
            return Err(PartError::Begun(format!(
                "{} was begun in {name} in the {} order, not {o}: leave out --order, or search into another store",
                what(),
                x.order
            )))
        }
        (Some(x), _) => plan.with_order(x.order),
        (None, o) => plan.with_order(o.unwrap_or(Order::suited(q.target))),
    })
}

/// Searches the part's tasks from `state` for at most `cfg.time`, saving a checkpoint into
/// `store` (at `path`) at least every [`CHECKPOINT`]; the status goes to `progress`. Returns
/// how it ended and the last figures of the run.
fn search(
    cfg: &PartConfig,
    plan: &Plan,
    store: &mut Store,
    lock: &StoreLock,
    state: &mut PartState,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<(Ending, Option<Figures>), PartError> {
    let (q, shard) = (cfg.question, cfg.shard);
    progress.note(&format!(
        "exhaust {} at {} bits, part {shard}: period 2^{}, {} of {} subtrees, {} done, {}",
        q.target,
        q.bits,
        plan.period_bits(),
        shard.len(plan.tasks()),
        plan.tasks(),
        state.done,
        count(cfg.threads, "thread")
    ));
    let run_cfg = RunConfig {
        threads: cfg.threads,
        time_limit: cfg.time,
        report: run::REPORT,
        until: None,
        node_limit: None,
    };
    let mut last_save = Instant::now();
    let start_done = state.done;
    // The first checkpoint that failed (the best magic failing its verify, or the save); no
    // checkpoint is taken after it, and the part ends with it.
    let mut error: Option<PartError> = None;
    let mut last: Option<Figures> = None;
    let mut pace = Pace::new(PACE);
    let ending = run::run_part(plan, shard, state, &run_cfg, stop, |st, p| {
        last = Some(*p);
        progress.status(&[status_line(st, p, start_done, &mut pace)]);
        if last_save.elapsed() >= CHECKPOINT && error.is_none() {
            last_save = Instant::now();
            record(store, plan, q, shard, st, false);
            error = st
                .tally
                .best
                .map_or(Ok(()), |b| offer(store, q, b, shard))
                .and_then(|()| store.save_locked(lock).map_err(PartError::Checkpoint))
                .err();
        }
    })
    .map_err(PartError::Threads)?;
    progress.finish();
    match error {
        Some(e) => Err(e),
        None => Ok((ending, last)),
    }
}

/// The status line: how much of the part is searched, the magics, and the speed and ETA over
/// the last [`PACE`] of the run.
fn status_line(st: &PartState, p: &Figures, start_done: u64, pace: &mut Pace) -> String {
    let rates = pace.record(p.elapsed, st.done - start_done, p.nodes_seen);
    let eta = rates
        .eta(p.len - st.done)
        .map_or_else(|| "?".into(), format_duration);
    format!(
        "{:.3}% ({}/{} subtrees), {} magics, {:.1} M partial magics/s, ETA {eta}",
        100.0 * st.done as f64 / p.len.max(1) as f64,
        st.done,
        p.len,
        st.tally.magics,
        rates.work_per_s / 1e6
    )
}
