//! What a long library call tells its caller as it goes: lines for the user to read, and how
//! far the work is. The library never draws: the binary's display (bars on a terminal, plain
//! lines in a log) implements [`Progress`], and a library user passes [`Quiet`], [`Lines`] or
//! their own.
//!
//! ```
//! use magichunt::progress::{Progress, Quiet};
//!
//! /// Keeps every note, drops the status.
//! #[derive(Default)]
//! struct Notes(Vec<String>);
//!
//! impl Progress for Notes {
//!     fn note(&mut self, line: &str) {
//!         self.0.push(line.to_string());
//!     }
//! }
//!
//! let mut notes = Notes::default();
//! notes.note("magichunt: started");
//! notes.status(&["50% done".to_string()]);
//! assert_eq!(notes.0, ["magichunt: started"]);
//! Quiet.note("nobody reads this");
//! ```

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Where a library call reports as it goes. `Send`, so that a job may report from a worker
/// thread (the SAT solver's progress comes from one).
pub trait Progress: Send {
    /// A line the user should read now: a note, a warning, a new best.
    fn note(&mut self, line: &str);

    /// How far the work is, in one or more lines (the overall figures first); each call
    /// replaces the last. It comes often (several times a second): a display decides how
    /// often to draw it, and may drop it.
    fn status(&mut self, lines: &[String]) {
        let _ = lines;
    }

    /// The work is over: a status still shown is cleared.
    fn finish(&mut self) {}
}

/// Says nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn note(&mut self, _line: &str) {}
}

/// Notes on stderr, one a line, and the status as plain lines at most once every `every`
/// (never when `every` is `None`): what a log wants.
#[derive(Clone, Debug)]
pub struct Lines {
    every: Option<Duration>,
    last: Instant,
}

impl Lines {
    /// Notes, and a status line at most once every `every` (`None`: no status lines).
    #[must_use]
    pub fn new(every: Option<Duration>) -> Lines {
        Lines {
            every,
            last: Instant::now(),
        }
    }

    /// Whether a status line is due now (and if so, the next one is `every` from now).
    pub fn due(&mut self) -> bool {
        match self.every {
            Some(every) if self.last.elapsed() >= every => {
                self.last = Instant::now();
                true
            }
            _ => false,
        }
    }
}

impl Progress for Lines {
    fn note(&mut self, line: &str) {
        crate::say!("{line}");
    }

    fn status(&mut self, lines: &[String]) {
        if self.due() {
            for line in lines {
                crate::say!("{line}");
            }
        }
    }
}

/// The pace of a long run over its last stretch of time: the rates a status line shows and
/// its ETA rest on that stretch, not on the whole run, so that a stop (SIGSTOP, a suspended
/// laptop) or a busy hour stops weighing on them once it is further back than the window.
/// Until a run is as old as the window, the pace is the whole run's.
#[derive(Clone, Debug)]
pub struct Pace {
    window: Duration,
    /// (time since the run began, units done, work done), oldest first, about `window / 64`
    /// apart; the first is the oldest that is still at least `window` old, or the run's
    /// start.
    samples: VecDeque<(Duration, u64, u64)>,
}

/// The rates over a [`Pace`]'s window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Units (subtrees, tasks) done a second.
    pub done_per_s: f64,
    /// Work (nodes, candidates) a second.
    pub work_per_s: f64,
}

impl Rates {
    /// The time `left` more units take at this pace; `None` while nothing was done in the
    /// window.
    #[must_use]
    pub fn eta(&self, left: u64) -> Option<Duration> {
        (self.done_per_s > 0.0)
            .then(|| Duration::try_from_secs_f64(left as f64 / self.done_per_s).ok())
            .flatten()
    }
}

impl Pace {
    /// A pace over the last `window` of a run that begins now (at zero, nothing done).
    #[must_use]
    pub fn new(window: Duration) -> Pace {
        Pace {
            window,
            samples: VecDeque::from([(Duration::ZERO, 0, 0)]),
        }
    }

    /// Records that by `at` (since the run began) `done` units and `work` work were done in
    /// all, and returns the rates over the window that ends there.
    pub fn record(&mut self, at: Duration, done: u64, work: u64) -> Rates {
        let newest = self.samples.back().map_or(Duration::ZERO, |s| s.0);
        if at >= newest + self.window / 64 {
            self.samples.push_back((at, done, work));
        }
        while self.samples.get(1).is_some_and(|s| s.0 + self.window <= at) {
            self.samples.pop_front();
        }
        let (t0, d0, w0) = self.samples[0];
        let secs = at.saturating_sub(t0).as_secs_f64();
        if secs <= 0.0 {
            return Rates {
                done_per_s: 0.0,
                work_per_s: 0.0,
            };
        }
        Rates {
            done_per_s: done.saturating_sub(d0) as f64 / secs,
            work_per_s: work.saturating_sub(w0) as f64 / secs,
        }
    }
}

/// A count or rate for a status line: `1234567.0` as `1.23M` (`k`, `M`, `G`).
#[must_use]
pub fn human(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e3 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// A count and its noun for a status line, singular for one: `count(1, "thread")` is
/// `1 thread`, `count(2, "thread")` is `2 threads` (nouns whose plural adds an `s`).
#[must_use]
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular() {
        assert_eq!(count(1, "thread"), "1 thread");
        assert_eq!(count(2, "thread"), "2 threads");
        assert_eq!(count(0, "part"), "0 parts");
    }

    #[test]
    fn human_numbers() {
        assert_eq!(human(1_234_567.0), "1.23M");
        assert_eq!(human(950.0), "950");
        assert_eq!(human(12_345.0), "12.3k");
    }

    #[test]
    fn the_pace_forgets_a_stop_once_it_is_older_than_the_window() {
        let min = |m: u64| Duration::from_secs(60 * m);
        let mut pace = Pace::new(min(10));
        // 10 units a minute for 20 minutes, reported every 10 seconds.
        let mut last = None;
        for s in 1..=120u64 {
            last = Some(pace.record(Duration::from_secs(10 * s), s * 10 / 6, s * 1000));
        }
        let r = last.expect("reported");
        assert!((r.done_per_s * 60.0 - 10.0).abs() < 0.2, "{r:?}");
        assert!((r.work_per_s - 100.0).abs() < 1.0, "{r:?}");
        // Stopped for 30 minutes: the first report after it sees the stop in its window.
        let r = pace.record(min(50) + Duration::from_secs(10), 201, 121_000);
        assert!(r.done_per_s * 60.0 < 1.0, "the stop weighs now: {r:?}");
        // Ten minutes after the stop ended, it has left the window.
        for s in 1..=62u64 {
            last = Some(pace.record(
                min(50) + Duration::from_secs(10 * s),
                200 + s * 10 / 6,
                120_000 + s * 1000,
            ));
        }
        let r = last.expect("reported");
        assert!((r.done_per_s * 60.0 - 10.0).abs() < 0.3, "{r:?}");
        let eta = r.eta(100).expect("a pace").as_secs();
        assert!(
            (580..620).contains(&eta),
            "100 units at 10 a minute: {eta} s"
        );
        // A run younger than its window: the whole run.
        let mut young = Pace::new(min(10));
        let r = young.record(min(2), 20, 0);
        assert!((r.done_per_s * 60.0 - 10.0).abs() < 1e-9);
        assert_eq!(young.record(min(2), 20, 0).eta(0), Some(Duration::ZERO));
        assert_eq!(Pace::new(min(10)).record(Duration::ZERO, 0, 0).eta(5), None);
    }

    #[test]
    fn lines_are_due_once_per_interval() {
        let mut l = Lines::new(Some(Duration::from_secs(3600)));
        assert!(!l.due(), "not before the interval");
        let mut never = Lines::new(None);
        assert!(!never.due());
        let mut always = Lines::new(Some(Duration::ZERO));
        assert!(always.due() && always.due());
    }
}
