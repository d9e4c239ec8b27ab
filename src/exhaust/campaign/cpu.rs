//! The CPU time a worker thread spends, so that a search records what it cost and not how
//! long it waited: a run stopped with SIGSTOP, or sharing its cores with other work at
//! `nice 19`, counts only the time its threads were on a CPU.
//!
//! On Linux the clock is the thread's own `/proc/thread-self/schedstat` (nanoseconds on a
//! CPU); where that cannot be read, the wall time the thread worked stands in for it, as
//! every record before this clock did.

use std::time::{Duration, Instant};

/// Reads of the clock are at most this often (each opens a file); what a thread ran between
/// reads is credited at the next one, or when the thread ends.
const EVERY: Duration = Duration::from_millis(100);

/// The time the calling thread has been on a CPU, if the system says.
#[must_use]
pub fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// One thread's clock: what it ran since the last [`ThreadClock::lap`].
#[derive(Debug)]
pub struct ThreadClock {
    cpu: Option<Duration>,
    wall: Instant,
}

impl ThreadClock {
    /// A clock started now, on the calling thread.
    #[must_use]
    pub fn start() -> ThreadClock {
        ThreadClock {
            cpu: thread_cpu(),
            wall: Instant::now(),
        }
    }

    /// The time run since the last lap that returned one (CPU time, or wall time where the
    /// CPU clock cannot be read), and zero when less than 100 ms have passed, unless `last`
    /// (the thread is ending). Call it on the thread that started the clock.
    pub fn lap(&mut self, last: bool) -> Duration {
        let now = Instant::now();
        let wall = now.duration_since(self.wall);
        if wall < EVERY && !last {
            return Duration::ZERO;
        }
        self.wall = now;
        match (self.cpu, thread_cpu()) {
            (Some(before), Some(after)) => {
                self.cpu = Some(after);
                after.saturating_sub(before)
            }
            _ => wall,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_sleeps_is_credited_less_than_one_that_works() {
        let mut clock = ThreadClock::start();
        assert_eq!(clock.lap(false), Duration::ZERO, "too soon for a read");
        std::thread::sleep(Duration::from_millis(150));
        let slept = clock.lap(false);
        let Some(t0) = thread_cpu() else {
            // No CPU clock: the wall time stands in.
            assert!(slept >= Duration::from_millis(150), "{slept:?}");
            return;
        };
        // Asleep, the thread is on no CPU; then it works until its own clock says 120 ms.
        assert!(slept < Duration::from_millis(50), "{slept:?}");
        let mut x = 0u64;
        while thread_cpu().is_some_and(|t| t < t0 + Duration::from_millis(120)) {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        let worked = clock.lap(true);
        assert!(worked >= Duration::from_millis(120), "{worked:?}");
    }
}
