//! Running one part: worker threads take chunks of tasks, and the tasks are credited in order,
//! so that the cursor only ever points past tasks that are completely searched.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::cpu::ThreadClock;
use super::found::Listing;
use super::residue::{Residue, TaskResult};
use super::shard::Shard;
use crate::exhaust::{Plan, Searcher, Tally};
use crate::interrupt::Stop;

/// The progress of one part: what a checkpoint saves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartState {
    /// Tasks of the part searched, in order.
    pub done: u64,
    /// What they gave.
    pub tally: Tally,
    /// CPU-seconds of the worker threads ([`super::cpu`]: on Linux the time they were on a
    /// CPU, so a run stopped or sharing its cores counts only what it ran).
    pub seconds: f64,
    /// The residue of the tasks searched, when the part keeps one (a part begun by a build
    /// without residues has none, and cannot start one halfway).
    pub residue: Option<Residue>,
    /// The magics found, listed as their tasks are credited, when the part keeps a list.
    pub found: Option<Listing>,
}

/// How a run of a part ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every task of the part is searched.
    Finished,
    /// The stop flag was set (Ctrl-C, SIGTERM).
    Stopped,
    /// The time limit was reached.
    TimeUp,
    /// More nodes were seen than [`RunConfig::node_limit`] allows.
    Overran,
}

/// What the caller sees at each report.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    /// Tasks of the part.
    pub len: u64,
    /// Wall time of this run so far.
    pub elapsed: Duration,
    /// Partial magics tested in this run, including tasks cut short by a stop.
    pub nodes_seen: u64,
    /// Tasks searched in this run.
    pub tasks_run: u64,
}

/// How to run a part.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Stop after this long, if set.
    pub time_limit: Option<Duration>,
    /// How often the caller hears of the progress ([`REPORT`] unless a test wants every
    /// chunk).
    pub report: Duration,
    /// Stop once the part's tasks before this position are searched (an audit re-runs one
    /// block); the whole part when unset.
    pub until: Option<u64>,
    /// Stop once the workers have seen more nodes than this (an audit's re-run of a block
    /// that already passed its recorded count cannot match it, so a forged record costs no
    /// more than it claims); no limit when unset.
    pub node_limit: Option<u64>,
}

/// Tasks a worker takes at once, at most: a chunk stays short enough that a stop loses little.
const MAX_CHUNK: u64 = 1 << 12;
/// A chunk faster than this doubles the worker's next one (fewer trips to the shared counter).
const CHUNK_FAST: Duration = Duration::from_millis(2);
/// A chunk slower than this halves it (less work redone after a stop, less idle at the end).
const CHUNK_SLOW: Duration = Duration::from_millis(40);
/// How often the caller hears of the progress, by default.
pub const REPORT: Duration = Duration::from_millis(250);
/// How often the coordinator looks at the stop flag and the clock.
const TICK: Duration = Duration::from_millis(20);

/// What a worker sends back for one chunk of consecutive tasks.
struct Chunk {
    /// Its first task (a position in the part).
    start: u64,
    /// Tasks in the chunk.
    len: u64,
    /// Tasks searched completely, from `start` on; fewer than `len` when it was cut short.
    done: u64,
    /// What the completely searched tasks gave.
    tally: Tally,
    /// Each completely searched task's own tally, in order, for the residue.
    results: Vec<TaskResult>,
    /// The magics of the completely searched tasks, in order, while the part lists them.
    magics: Vec<u64>,
}

/// Searches the tasks of `shard` from `state.done` on, updating `state` as tasks finish in
/// order and calling `on_report` every [`RunConfig::report`] (to print progress and checkpoint)
/// and once at the end.
///
/// Each worker thread keeps one [`Searcher`] and takes chunks of consecutive tasks from a
/// shared counter, sized to take a few milliseconds; there is no barrier, so a long task holds
/// up no other thread. The calling thread credits the chunks in task order, so the cursor only
/// ever points past completely searched tasks: a chunk cut short by a stop credits its finished
/// prefix, and nothing after it is credited (it is searched again on resume).
///
/// # Errors
/// When a worker thread cannot be started.
pub fn run_part(
    plan: &Plan,
    shard: Shard,
    state: &mut PartState,
    cfg: &RunConfig,
    stop: &Stop,
    mut on_report: impl FnMut(&PartState, &Progress),
) -> std::io::Result<Ending> {
    let threads = cfg.threads.max(1);
    let len = shard.len(plan.tasks());
    let end = cfg.until.map_or(len, |u| u.min(len));
    let start = Instant::now();
    let deadline = cfg.time_limit.and_then(|d| start.checked_add(d));
    let halt = AtomicBool::new(false);
    let next = AtomicU64::new(state.done.min(end));
    let seen = AtomicU64::new(0);
    // Nanoseconds the workers ran, credited to `state.seconds` at each report.
    let cpu_ns = AtomicU64::new(0);
    let overran = AtomicBool::new(false);
    // Whether the workers keep the magics they find: while the part's list has room.
    let listing = AtomicBool::new(state.found.as_ref().is_some_and(|l| !l.full()));
    let mut tasks_run = 0;
    let (tx, rx) = mpsc::channel::<Chunk>();
    let worker = |tx: mpsc::Sender<Chunk>| {
        let (halt, next, seen, overran, listing) = (&halt, &next, &seen, &overran, &listing);
        let cpu_ns = &cpu_ns;
        move || {
            let mut clock = ThreadClock::start();
            let credit = |clock: &mut ThreadClock, last: bool| {
                let ran = u64::try_from(clock.lap(last).as_nanos()).unwrap_or(u64::MAX);
                cpu_ns.fetch_add(ran, Ordering::Relaxed);
            };
            let mut searcher = Searcher::new(plan);
            let mut size = 1u64;
            while !halt.load(Ordering::Relaxed) {
                let first = next.fetch_add(size, Ordering::Relaxed);
                if first >= end {
                    break;
                }
                let chunk_len = size.min(end - first);
                let t0 = Instant::now();
                let keep = listing.load(Ordering::Relaxed);
                if keep {
                    searcher.collect_magics();
                } else {
                    searcher.stop_collecting();
                }
                let mut chunk = Chunk {
                    start: first,
                    len: chunk_len,
                    done: 0,
                    tally: Tally::default(),
                    results: Vec::with_capacity(usize::try_from(chunk_len).unwrap_or(0)),
                    magics: Vec::new(),
                };
                // Nodes reach the shared count at a chunk's end, or after every task under a
                // node limit, so that a re-run halts (the other workers with it, mid-task)
                // soon after passing the limit.
                let mut nodes = 0;
                let flush = |nodes: &mut u64| {
                    let total = seen.fetch_add(*nodes, Ordering::Relaxed) + *nodes;
                    *nodes = 0;
                    if cfg.node_limit.is_some_and(|l| total > l) {
                        overran.store(true, Ordering::Relaxed);
                        halt.store(true, Ordering::Relaxed);
                    }
                };
                for j in first..first + chunk_len {
                    if halt.load(Ordering::Relaxed) {
                        break;
                    }
                    let task = shard.task_at(j, plan.tasks());
                    // Under a limit a task may take what the limit leaves (this worker's
                    // nodes are all in the shared count by now): once past that, the shared
                    // count is past the limit too.
                    let budget = cfg
                        .node_limit
                        .map_or(u64::MAX, |l| l.saturating_sub(seen.load(Ordering::Relaxed)));
                    match searcher.run_task_within(task, halt, budget) {
                        Ok(t) => {
                            nodes += t.nodes;
                            chunk.tally.add(&t);
                            chunk.done += 1;
                            chunk.results.push(TaskResult { task, tally: t });
                            if keep {
                                chunk.magics.append(&mut searcher.take_collected());
                            }
                        }
                        Err(cut) => {
                            // A task cut short lists nothing: it is searched again.
                            searcher.take_collected();
                            nodes += cut.nodes;
                            break;
                        }
                    }
                    if cfg.node_limit.is_some() {
                        flush(&mut nodes);
                    }
                }
                flush(&mut nodes);
                credit(&mut clock, false);
                let cut = chunk.done < chunk.len;
                if tx.send(chunk).is_err() || cut {
                    break;
                }
                let took = t0.elapsed();
                if took < CHUNK_FAST {
                    size = (size * 2).min(MAX_CHUNK);
                } else if took > CHUNK_SLOW {
                    size = (size / 2).max(1);
                }
            }
            // Before `tx` goes: the last report comes once every sender is gone.
            credit(&mut clock, true);
        }
    };
    let ending = std::thread::scope(|scope| {
        let mut spawned = Ok(());
        for i in 0..threads {
            let b = std::thread::Builder::new().name(format!("exhaust-{i}"));
            if let Err(e) = b.spawn_scoped(scope, worker(tx.clone())) {
                halt.store(true, Ordering::Relaxed);
                spawned = Err(e);
                break;
            }
        }
        drop(tx);
        let mut pending: BTreeMap<u64, Chunk> = BTreeMap::new();
        // Once a chunk was cut short, nothing after it may be credited.
        let mut blocked = false;
        let mut last_report = Instant::now();
        loop {
            let open = match rx.recv_timeout(TICK) {
                Ok(c) => {
                    pending.insert(c.start, c);
                    true
                }
                Err(mpsc::RecvTimeoutError::Timeout) => true,
                Err(mpsc::RecvTimeoutError::Disconnected) => false,
            };
            while !blocked {
                let Some(c) = pending.remove(&state.done) else {
                    break;
                };
                state.tally.add(&c.tally);
                if let Some(r) = state.residue.as_mut() {
                    for (j, x) in (state.done..).zip(&c.results) {
                        r.push(j, x);
                    }
                }
                if let Some(l) = state.found.as_mut() {
                    for &m in &c.magics {
                        l.add(m);
                    }
                    if l.full() {
                        listing.store(false, Ordering::Relaxed);
                    }
                }
                state.done += c.done;
                tasks_run += c.done;
                blocked = c.done < c.len;
            }
            if stop.requested() || deadline.is_some_and(|d| Instant::now() >= d) {
                halt.store(true, Ordering::Relaxed);
            }
            if !open || last_report.elapsed() >= cfg.report {
                #[allow(clippy::cast_precision_loss)]
                let ran = cpu_ns.swap(0, Ordering::Relaxed) as f64 / 1e9;
                state.seconds += ran;
                last_report = Instant::now();
                on_report(
                    state,
                    &Progress {
                        len,
                        elapsed: start.elapsed(),
                        nodes_seen: seen.load(Ordering::Relaxed),
                        tasks_run,
                    },
                );
            }
            if !open {
                break;
            }
        }
        spawned.map(|()| {
            if state.done >= end {
                Ending::Finished
            } else if stop.requested() {
                Ending::Stopped
            } else if overran.load(Ordering::Relaxed) {
                Ending::Overran
            } else {
                Ending::TimeUp
            }
        })
    });
    ending
}

#[cfg(test)]
mod tests {
    use super::super::found::MAX_LISTED;
    use super::super::residue::Search;
    use super::*;
    use crate::{Piece, Square, Target};

    #[test]
    fn a_stopped_part_resumes_to_the_uninterrupted_tally() {
        let t = Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap());
        let plan = Plan::new(t, 6);
        let shard = Shard { index: 2, count: 3 };
        let cfg = RunConfig {
            threads: 2,
            time_limit: None,
            report: Duration::ZERO,
            until: None,
            node_limit: None,
        };
        let fresh = || PartState {
            residue: Some(Residue::new(Search::of(t, &plan, shard), plan.tasks())),
            found: Some(Listing::default()),
            ..PartState::default()
        };
        let mut whole = fresh();
        let end = run_part(&plan, shard, &mut whole, &cfg, &Stop::new(), |_, _| {}).unwrap();
        assert_eq!(end, Ending::Finished);
        assert_eq!(whole.done, shard.len(plan.tasks()));
        assert!(whole.tally.magics > 0);
        // The list holds the part's first magics in search order, as many as it keeps.
        let listed = &whole.found.as_ref().unwrap().magics;
        let mut s = Searcher::new(&plan);
        s.collect_magics();
        let mut want = Vec::new();
        for j in 0..shard.len(plan.tasks()) {
            s.run_task(shard.task_at(j, plan.tasks()), &AtomicBool::new(false))
                .unwrap();
            want.append(&mut s.take_collected());
        }
        assert_eq!(want.len() as u64, whole.tally.magics);
        assert!(want.len() > MAX_LISTED, "the bound is tested");
        assert_eq!(listed[..], want[..MAX_LISTED]);

        let residue = whole.residue.clone().unwrap();
        residue.check_finished(&plan, whole.tally.nodes).unwrap();
        // Stop three runs once they credited a task, then let the fourth finish.
        let mut state = fresh();
        for _ in 0..3 {
            let stop = Stop::new();
            let before = state.done;
            let end = run_part(&plan, shard, &mut state, &cfg, &stop, |st, _| {
                if st.done > before {
                    stop.request();
                }
            });
            assert_eq!(end.unwrap(), Ending::Stopped);
            assert!(state.done > 0 && state.done < whole.done);
            assert!(state.residue.as_ref().unwrap().fits(state.done));
        }
        let end = run_part(&plan, shard, &mut state, &cfg, &Stop::new(), |_, _| {});
        assert_eq!(end.unwrap(), Ending::Finished);
        assert_eq!(state.tally, whole.tally);
        assert_eq!(
            state.residue, whole.residue,
            "a resumed part has the same residue"
        );
        assert_eq!(state.found, whole.found, "and the same list");
    }

    #[test]
    fn parts_cut_by_a_short_time_limit_add_up_to_the_whole() {
        let t = Target::new(Piece::Bishop, "e8".parse::<Square>().unwrap());
        let plan = Plan::new(t, 5).with_task_bits(10);
        let shard = Shard::WHOLE;
        let whole = crate::exhaust::search_all(&plan);
        let cfg = RunConfig {
            threads: 2,
            time_limit: Some(Duration::from_millis(3)),
            report: REPORT,
            until: None,
            node_limit: None,
        };
        let mut state = PartState::default();
        let mut runs = 0;
        while run_part(&plan, shard, &mut state, &cfg, &Stop::new(), |_, _| {}).unwrap()
            != Ending::Finished
        {
            runs += 1;
            assert!(runs < 100_000, "no progress");
        }
        assert!(runs > 1, "the limit never cut a run");
        assert_eq!(state.tally, whole);
    }
}
