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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_numbers() {
        assert_eq!(human(1_234_567.0), "1.23M");
        assert_eq!(human(950.0), "950");
        assert_eq!(human(12_345.0), "12.3k");
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
