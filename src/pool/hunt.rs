//! Hunting a pool: few-slot magics for many questions at once, on a worker pool, into a pool
//! file that grows across runs and machines.
//!
//! Rounds of tasks, one per question each round: a task draws [`SLICE`] candidates of one
//! family from `task_rng(seed, target, bits, stream)` and keeps every valid magic whose
//! slots stay within the question's threshold (the footprint of the worst magic a full pool
//! keeps; footprint is never below slots, so the trial loop rejects on slots early). The
//! families are [`pool_portfolio`]: mutation of the pool's best magics of the question (a
//! local search: the pool's best improve each other), then the shapes of the fixed-shift
//! records' magics. A round starts when the previous one is done and depends only on it, so a
//! seeded run bounded by `--tries` keeps the same magics every time; a resumed run continues
//! past the streams its pool records.
//!
//! Every other round is a round of descents ([`descend`]): a task starts from one of the
//! pool's best magics of its question (half the time, when it has any) or from a fresh valid
//! magic of a draw family, and walks the magic's signed digits towards a smaller footprint,
//! offering every magic it steps on. Measured on rook d6 at 12 bits: draws stop at 576
//! slots, descents of 2 M candidates reach 512.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand_xoshiro::rand_core::RngCore;

use super::{shape_hash, Pool, Taken};
use crate::attacks::Occupancies;
use crate::error::TableError;
use crate::fs::lock::{LockError, StoreLock};
use crate::interrupt::Stop;
use crate::layout::Pattern;
use crate::magic::Verified;
use crate::progress::{count, Progress};
use crate::question::Question;
use crate::search::descend::descend;
use crate::search::{
    pool_portfolio, round_family, search_within, task_rng, Bound, Family, Scratchpad,
};
use crate::table::wire::MethodWire;
use crate::table::{Entry, Table};
use crate::timefmt::{format_duration, now_rfc3339};

/// Candidates per task.
pub const SLICE: u64 = 1 << 18;

/// Checkpoint at least this often.
const CHECKPOINT: Duration = Duration::from_secs(30);

/// The status goes to the caller about this often.
const STATUS: Duration = Duration::from_secs(1);

/// A validated pool hunt.
#[derive(Clone, Debug)]
pub struct PoolHuntConfig {
    /// The questions hunted (target, bits, formula).
    pub questions: Vec<Question>,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Candidates per question at most.
    pub tries: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// The run's seed.
    pub seed: u64,
    /// The pool file.
    pub pool: PathBuf,
    /// The gap of a new pool (an existing pool keeps its own; a different one is refused).
    pub gap: Option<u32>,
    /// The capacity of a new pool, or a larger one for an existing pool.
    pub capacity: Option<usize>,
    /// A table whose magics of the questions hunted also start descents; magics with their
    /// slot patterns are never taken (what the pool gets is new).
    pub starts: Option<PathBuf>,
}

/// Why a pool hunt could not run or save.
#[derive(Debug, thiserror::Error)]
pub enum PoolHuntError {
    /// The pool file is locked by another process, or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The pool file was refused.
    #[error(transparent)]
    Load(#[from] TableError),
    /// The run's settings do not fit the pool.
    #[error("{0}")]
    Config(String),
    /// A checkpoint failed; the file on disk is the previous checkpoint.
    #[error("cannot save pool {path}")]
    Save {
        /// The pool file.
        path: PathBuf,
        /// The refusal or the I/O error.
        source: crate::fs::output::OutputError,
    },
    /// The worker pool could not start.
    #[error("cannot start the worker pool")]
    Pool(#[from] rayon::ThreadPoolBuildError),
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct PoolSummary {
    /// Magics the pool took in this run.
    pub added: u64,
    /// Candidates examined.
    pub tried: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Stopped by a signal.
    pub interrupted: bool,
    /// The pool at the end.
    pub pool: Pool,
    /// The questions hunted, with their best footprint and slots before the run.
    pub before: Vec<(Question, Option<(u32, u32)>)>,
}

/// One task of a round.
#[derive(Clone, Debug)]
struct Task {
    /// Position of the question in the run's list.
    k: usize,
    question: Question,
    stream: u64,
    round: u64,
    bound: Bound,
    bases: Vec<u64>,
    /// Starting magics from `--starts` (never taken themselves, nor their patterns).
    starts: Vec<u64>,
}

/// A task's result.
struct Msg {
    index: usize,
    finds: Vec<(Verified, Pattern, &'static str)>,
    tried: u64,
    seconds: f64,
}

/// Runs a pool hunt until `--time` or `--tries` runs out or `stop` is set: takes the pool's
/// lock, loads it (every magic verified), hunts, checkpoints, saves; notes and a status line
/// (about once a second) go to `progress`.
///
/// # Errors
/// [`PoolHuntError`]: the pool is in use or refused (the file untouched), or a save failed.
pub fn run(
    cfg: &PoolHuntConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<PoolSummary, PoolHuntError> {
    let start = Instant::now();
    let lock = StoreLock::acquire(&cfg.pool, crate::fs::output::Writes::Pool)?;
    let real = lock.store().to_path_buf();
    let mut pool = if real.exists() {
        Pool::read(&real)?
    } else {
        progress.note(&format!(
            "magichunt: no pool at {}: starting a new one there",
            cfg.pool.display()
        ));
        Pool::new(
            cfg.gap.unwrap_or(super::DEFAULT_GAP),
            cfg.capacity.unwrap_or(super::DEFAULT_CAPACITY),
        )
    };
    if let Some(g) = cfg.gap.filter(|&g| g != pool.gap) {
        return Err(PoolHuntError::Config(format!(
            "{} ranks magics with gap {}, not {g}: leave out --gap or start a new pool",
            cfg.pool.display(),
            pool.gap
        )));
    }
    if let Some(c) = cfg.capacity {
        pool.capacity = pool.capacity.max(c);
    }
    let save = |pool: &Pool| {
        pool.save_locked(&lock)
            .map_err(|source| PoolHuntError::Save {
                path: cfg.pool.clone(),
                source,
            })
    };
    let starts: Vec<Vec<u64>> = match &cfg.starts {
        None => vec![Vec::new(); cfg.questions.len()],
        Some(path) => {
            let table = Table::read(path)?;
            cfg.questions
                .iter()
                .map(|&q| {
                    table
                        .entries
                        .iter()
                        .filter(|e| e.question() == q)
                        .map(|e| e.magic)
                        .collect()
                })
                .collect()
        }
    };
    // What a run with starts never takes, from any family: a start's slot pattern.
    let start_shapes: Vec<HashSet<u64>> = cfg
        .questions
        .iter()
        .zip(&starts)
        .map(|(q, magics)| {
            let occ = Occupancies::new(q.target);
            magics
                .iter()
                .filter_map(|&m| Pattern::from_pairs(&occ, q.formula, q.bits, m))
                .map(|p| shape_hash(&p))
                .collect()
        })
        .collect();
    if let Some(path) = &cfg.starts {
        let n: usize = starts.iter().map(Vec::len).sum();
        crate::say!(
            "magichunt: {} from {} for the descents",
            count(n, "start"),
            path.display()
        );
    }
    let run_id = format!("{}-{}-{}", now_rfc3339(), cfg.seed, std::process::id());
    let before: Vec<_> = cfg
        .questions
        .iter()
        .map(|&q| (q, pool.members(q).first().map(|m| (m.footprint, m.slots))))
        .collect();
    progress.note(&format!(
        "magichunt: hunting few-slot magics for {} on {}, seed {} (--seed {} reproduces it), pool {} ({} magics, gap {}, {} per question)",
        count(cfg.questions.len(), "question"),
        count(cfg.threads, "thread"),
        cfg.seed,
        cfg.seed,
        cfg.pool.display(),
        pool.len(),
        pool.gap,
        pool.capacity
    ));
    // Resume: every question starts past the streams its pool records.
    let mut streams: Vec<u64> = cfg
        .questions
        .iter()
        .map(|&q| pool.work_on(q).0.div_ceil(SLICE))
        .collect();
    let mut tried_per: Vec<u64> = vec![0; cfg.questions.len()];
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .thread_name(|i| format!("pool-{i}"))
        .build()?;
    let deadline = cfg.time.and_then(|d| start.checked_add(d));
    let (tx, rx) = mpsc::channel::<Msg>();
    let (mut tried, mut added) = (0u64, 0u64);
    let mut last_save = Instant::now();
    let mut last_line = Instant::now();
    for round in 0u64.. {
        if stop.requested() {
            break;
        }
        let tasks: Vec<Task> = cfg
            .questions
            .iter()
            .enumerate()
            .filter(|&(k, _)| cfg.tries.is_none_or(|t| tried_per[k] < t))
            .map(|(k, &q)| Task {
                k,
                question: q,
                stream: streams[k],
                round,
                bound: Bound::Slots(pool.threshold(q).unwrap_or(u32::MAX)),
                bases: pool
                    .members(q)
                    .iter()
                    .take(16)
                    .map(|m| m.entry.magic)
                    .collect(),
                starts: starts[k].clone(),
            })
            .collect();
        if tasks.is_empty() {
            break;
        }
        for (index, task) in tasks.iter().enumerate() {
            let (tx, stop, task, seed) = (tx.clone(), stop.clone(), task.clone(), cfg.seed);
            let (capacity, gap) = (pool.capacity, pool.gap);
            let slice = if task.round % 2 == 1 {
                4 * SLICE
            } else {
                SLICE
            };
            let n = cfg
                .tries
                .map_or(slice, |t| slice.min(t - tried_per[task.k]));
            workers.spawn(move || {
                let t0 = Instant::now();
                let (finds, tried) = run_task(&task, seed, n, capacity, gap, &stop);
                let _ = tx.send(Msg {
                    index,
                    finds,
                    tried,
                    seconds: t0.elapsed().as_secs_f64(),
                });
            });
        }
        let mut pending = tasks.len();
        while pending > 0 {
            if let Ok(m) = rx.recv_timeout(Duration::from_millis(100)) {
                pending -= 1;
                let (k, q) = (tasks[m.index].k, tasks[m.index].question);
                streams[k] += 1;
                tried_per[k] = tried_per[k].saturating_add(m.tried);
                tried = tried.saturating_add(m.tried);
                pool.add_effort(q, &run_id, m.tried, m.seconds);
                for (v, pattern, family) in m.finds {
                    if start_shapes[k].contains(&shape_hash(&pattern)) {
                        continue;
                    }
                    let entry = Entry::from_verified(
                        &v,
                        Some(now_rfc3339()),
                        Some(MethodWire {
                            family: family.to_string(),
                            seed: Some(cfg.seed),
                            run: Some(run_id.clone()),
                        }),
                    );
                    if pool.offer(entry, &pattern) == Taken::Added {
                        added += 1;
                    }
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                stop.request();
            }
            if last_save.elapsed() >= CHECKPOINT {
                save(&pool)?;
                last_save = Instant::now();
            }
            if last_line.elapsed() >= STATUS {
                progress.status(&[status(&pool, cfg, start, tried, added)]);
                last_line = Instant::now();
            }
        }
    }
    save(&pool)?;
    progress.finish();
    drop(lock);
    Ok(PoolSummary {
        added,
        tried,
        elapsed: start.elapsed(),
        interrupted: stop.signalled(),
        pool,
        before,
    })
}

/// One task on a scratchpad of its own: every valid magic within the bound, the bound
/// tightened to the worst of the best `capacity` found so far once that many are found.
fn run_task(
    task: &Task,
    seed: u64,
    n: u64,
    capacity: usize,
    gap: u32,
    stop: &Stop,
) -> (Vec<(Verified, Pattern, &'static str)>, u64) {
    if task.round % 2 == 1 {
        return descend_task(task, seed, n, capacity, gap, stop);
    }
    let q = task.question;
    let mut pad = Scratchpad::with_formula(q.target, q.bits, q.formula);
    let families = pool_portfolio(q.target, q.bits, &task.bases);
    let family = round_family(&families, task.round / 2);
    let mut rng = task_rng(seed, q.target, q.bits, task.stream);
    let mut finds: Vec<(u32, Verified, Pattern)> = Vec::new();
    let mut bound = task.bound;
    let mut tried = 0;
    while tried < n && !stop.requested() {
        let batch = search_within(&mut pad, family, &mut rng, n - tried, stop.flag(), bound);
        tried += batch.tried;
        let Some(v) = batch.found else { continue };
        let pattern = Pattern::from_pairs(pad.pairs(), q.formula, q.bits, v.magic)
            .expect("a verified magic has a pattern");
        let footprint = pattern.footprint(gap);
        if let Bound::Slots(limit) = bound {
            if footprint > limit {
                continue;
            }
        }
        let at = finds.partition_point(|(f, _, _)| *f <= footprint);
        finds.insert(at, (footprint, v, pattern));
        finds.truncate(capacity);
        if finds.len() == capacity {
            let worst = finds[capacity - 1].0;
            bound = match bound {
                Bound::Slots(limit) => Bound::Slots(limit.min(worst)),
                _ => Bound::Slots(worst),
            };
        }
    }
    let name = family.name();
    let finds = finds.into_iter().map(|(_, v, p)| (v, p, name)).collect();
    (finds, tried)
}

/// Families whose draws start the descents that do not start from the pool: the shapes of
/// the records' few-slot magics.
const DESCENT_STARTS: [Family; 4] = [
    Family::NegSparse,
    Family::TwoCluster,
    Family::Signed,
    Family::Block,
];

/// A descent task: from one of the pool's best magics or a fresh one, [`descend`] for `n`
/// candidates in four stages, towards a smaller footprint at `gap / 64`, `gap / 16`,
/// `gap / 4`, then `gap` (a magic with few slots in a few dense clusters has small holes
/// inside each cluster and wide ones between them: the small gaps first teach the walk to
/// gather its slots, the wide ones to close the clusters up). Returns the best `capacity`
/// distinct patterns stepped on, by footprint at `gap`, within the task's bound.
fn descend_task(
    task: &Task,
    seed: u64,
    n: u64,
    capacity: usize,
    gap: u32,
    stop: &Stop,
) -> (Vec<(Verified, Pattern, &'static str)>, u64) {
    let q = task.question;
    let mut pad = Scratchpad::with_formula(q.target, q.bits, q.formula);
    let mut rng = task_rng(seed, q.target, q.bits, task.stream);
    let mut tried = 0;
    let mut shapes = HashSet::new();
    for &m in &task.starts {
        if let Some(p) = Pattern::from_pairs(pad.pairs(), q.formula, q.bits, m) {
            shapes.insert(shape_hash(&p));
        }
    }
    let from_starts = !task.starts.is_empty() && rng.next_u64().is_multiple_of(2);
    let from_pool = from_starts || (!task.bases.is_empty() && rng.next_u64().is_multiple_of(2));
    let mut cur = if from_starts {
        task.starts[(rng.next_u64() % task.starts.len() as u64) as usize]
    } else if from_pool {
        task.bases[(rng.next_u64() % task.bases.len() as u64) as usize]
    } else {
        let family = &DESCENT_STARTS[(task.round / 2 % DESCENT_STARTS.len() as u64) as usize];
        let batch = search_within(&mut pad, family, &mut rng, n, stop.flag(), Bound::Valid);
        tried += batch.tried;
        match batch.found {
            Some(v) => v.magic,
            None => return (Vec::new(), tried),
        }
    };
    let limit = match task.bound {
        Bound::Slots(l) => l,
        _ => u32::MAX,
    };
    let mut finds: Vec<(u32, Verified, Pattern)> = Vec::new();
    let stages = [gap / 64, gap / 16, gap / 4, gap];
    for (k, &stage) in stages.iter().enumerate() {
        if from_pool && k < 3 {
            // A pool magic is already gathered: refine it at the pool's gap only.
            continue;
        }
        let budget = if from_pool { n } else { n / 4 }.min(n.saturating_sub(tried));
        // The score computes the pattern; the step that follows takes it.
        let last: RefCell<Option<Pattern>> = RefCell::new(None);
        let mut best = (u32::MAX, cur);
        let mut score = |pad: &Scratchpad, v: &Verified| {
            let p = Pattern::from_pairs(pad.pairs(), q.formula, q.bits, v.magic)
                .expect("a verified magic has a pattern");
            let f = p.footprint(stage);
            *last.borrow_mut() = Some(p);
            f
        };
        let mut on_step = |v: &Verified, s: u32| {
            let p = last.borrow_mut().take().expect("scored before stepped");
            if s < best.0 {
                best = (s, v.magic);
            }
            let footprint = p.footprint(gap);
            if footprint > limit || !shapes.insert(shape_hash(&p)) {
                return;
            }
            if finds.len() == capacity && finds[capacity - 1].0 <= footprint {
                return;
            }
            let at = finds.partition_point(|(f, _, _)| *f <= footprint);
            finds.insert(at, (footprint, *v, p));
            finds.truncate(capacity);
        };
        // A pool's or a table's magic is walked with a little slack: its equals often all
        // share its slot pattern.
        let slack = if from_pool && k == 3 { stage / 16 } else { 0 };
        let d = descend(
            &mut pad,
            cur,
            budget,
            slack,
            &mut rng,
            stop.flag(),
            &mut score,
            &mut on_step,
        );
        tried += d.tried;
        cur = best.1;
    }
    let finds = finds
        .into_iter()
        .map(|(_, v, p)| (v, p, "descend"))
        .collect();
    (finds, tried)
}

/// The status line: magics held, the sum of the best footprints of the questions hunted.
fn status(pool: &Pool, cfg: &PoolHuntConfig, start: Instant, tried: u64, added: u64) -> String {
    let (mut fp, mut slots, mut held) = (0u64, 0u64, 0usize);
    for &q in &cfg.questions {
        if let Some(m) = pool.members(q).first() {
            fp += u64::from(m.footprint);
            slots += u64::from(m.slots);
            held += 1;
        }
    }
    format!(
        "magichunt: {}: {} candidates, {} magics taken, pool {} magics; best of the {held} questions held: footprint {fp}, slots {slots}",
        format_duration(start.elapsed()),
        crate::progress::human(tried as f64),
        added,
        pool.len()
    )
}

/// The end-of-run summary: per question hunted, the best footprint and slots before and
/// after; totals.
#[must_use]
pub fn summary_text(s: &PoolSummary) -> String {
    let mut out = format!(
        "{} in {}: {} candidates, {} magics taken into the pool (now {})\n",
        if s.interrupted { "interrupted" } else { "done" },
        format_duration(s.elapsed),
        s.tried,
        s.added,
        s.pool.len()
    );
    let (mut fp, mut slots) = (0u64, 0u64);
    for &(q, before) in &s.before {
        let members = s.pool.members(q);
        let Some(best) = members.first() else {
            out.push_str(&format!("  {q}: none found\n"));
            continue;
        };
        fp += u64::from(best.footprint);
        slots += u64::from(best.slots);
        let was = before.map_or_else(
            || "new".to_string(),
            |(f, s)| format!("was footprint {f}, slots {s}"),
        );
        out.push_str(&format!(
            "  {q}: {} magics, best footprint {} (slots {}, span {}), {was}\n",
            members.len(),
            best.footprint,
            best.slots,
            best.entry.span(),
        ));
    }
    out.push_str(&format!(
        "best of each question hunted: footprint {fp}, slots {slots} (gap {})\n",
        s.pool.gap
    ));
    out
}
