//! Running one part: tasks in batches over a thread pool, in order, so that the cursor only
//! ever points past tasks that are completely searched.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::shard::Shard;
use super::{Plan, Searcher, Tally};
use crate::interrupt::Stop;

/// The progress of one part: what a checkpoint saves.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PartState {
    /// Tasks of the part searched, in order.
    pub done: u64,
    /// What they gave.
    pub tally: Tally,
    /// Thread-seconds of work.
    pub seconds: f64,
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
}

/// What the caller sees after each batch.
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
}

/// Searches the tasks of `shard` from `state.done` on, updating `state` after each batch and
/// calling `on_batch` (to print progress and checkpoint).
///
/// # Errors
/// When the thread pool cannot be built.
pub fn run_part(
    plan: &Plan,
    shard: Shard,
    state: &mut PartState,
    cfg: &RunConfig,
    stop: &Stop,
    mut on_batch: impl FnMut(&PartState, &Progress),
) -> Result<Ending, rayon::ThreadPoolBuildError> {
    let threads = cfg.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let len = shard.len(plan.tasks());
    let start = Instant::now();
    let deadline = cfg.time_limit.and_then(|d| start.checked_add(d));
    let halt = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let seen = AtomicU64::new(0);
    let mut tasks_run = 0;
    let mut batch = (threads as u64) * 4;
    let ending = std::thread::scope(|scope| {
        // The watcher turns Ctrl-C and the time limit into the one flag the workers poll.
        scope.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                if stop.requested() || deadline.is_some_and(|d| Instant::now() >= d) {
                    halt.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let ending = loop {
            if state.done >= len {
                break Ending::Finished;
            }
            if stop.requested() {
                break Ending::Stopped;
            }
            if halt.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
                break Ending::TimeUp;
            }
            let end = (state.done + batch).min(len);
            let t0 = Instant::now();
            let results: Vec<Option<Tally>> = pool.install(|| {
                (state.done..end)
                    .into_par_iter()
                    .map_init(
                        || Searcher::new(plan),
                        |s, j| match s.run_task(shard.task_at(j, plan.tasks()), &halt) {
                            Ok(t) => {
                                seen.fetch_add(t.nodes, Ordering::Relaxed);
                                Some(t)
                            }
                            Err(cut) => {
                                seen.fetch_add(cut.nodes, Ordering::Relaxed);
                                None
                            }
                        },
                    )
                    .collect()
            });
            let took = t0.elapsed();
            state.seconds += took.as_secs_f64() * threads as f64;
            // Credit the tasks finished in order; a task cut short is searched again later.
            for t in results.iter().map_while(Option::as_ref) {
                state.tally.add(t);
                state.done += 1;
                tasks_run += 1;
            }
            if took < Duration::from_millis(500) && batch < 1 << 16 {
                batch *= 2;
            } else if took > Duration::from_secs(4) && batch > threads as u64 {
                batch /= 2;
            }
            on_batch(
                state,
                &Progress {
                    len,
                    elapsed: start.elapsed(),
                    nodes_seen: seen.load(Ordering::Relaxed),
                    tasks_run,
                },
            );
        };
        finished.store(true, Ordering::Relaxed);
        ending
    });
    Ok(ending)
}

#[cfg(test)]
mod tests {
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
        };
        let mut whole = PartState::default();
        let end = run_part(&plan, shard, &mut whole, &cfg, &Stop::new(), |_, _| {}).unwrap();
        assert_eq!(end, Ending::Finished);
        assert_eq!(whole.done, shard.len(plan.tasks()));
        assert!(whole.tally.magics > 0);

        // Stop three runs after their first batch, then let the fourth finish.
        let mut state = PartState::default();
        for _ in 0..3 {
            let stop = Stop::new();
            let end = run_part(&plan, shard, &mut state, &cfg, &stop, |_, _| stop.request());
            assert_eq!(end.unwrap(), Ending::Stopped);
            assert!(state.done > 0 && state.done < whole.done);
        }
        let end = run_part(&plan, shard, &mut state, &cfg, &Stop::new(), |_, _| {});
        assert_eq!(end.unwrap(), Ending::Finished);
        assert_eq!(state.tally, whole.tally);
    }
}
