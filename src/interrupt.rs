//! Two-stage interruption: the first Ctrl-C (SIGINT) or SIGTERM asks the work to stop and
//! save; a later Ctrl-C, a second or more after the first, exits at once with code 130.
//!
//! A signal within [`SAME_REQUEST`] of the first is the same request, not a second one:
//! `timeout -s INT` signals the process and then its whole group, and a terminal's Ctrl-C
//! reaches every process of the foreground group, so one request often arrives twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Signals this close to the first one are the same request.
pub const SAME_REQUEST: Duration = Duration::from_secs(1);

/// A stop flag shared by the workers and the signal handler.
///
/// Two flags: `stop` tells the work to wind down (set by a signal, or by the program itself at
/// a deadline); `signalled` records that a signal arrived, so that only a *second signal*, not a
/// signal after a deadline, aborts without saving.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    stop: Arc<AtomicBool>,
    signalled: Arc<AtomicBool>,
    first: Arc<Mutex<Option<Instant>>>,
}

/// What the handler does with a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    /// The first: stop and save.
    First,
    /// Within [`SAME_REQUEST`] of the first: the same request again; nothing more to do.
    Repeat,
    /// A later one: exit at once.
    Abort,
}

impl Stop {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks the work to stop (a deadline, or the end of the work); not a signal.
    pub fn request(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested, by a signal or by the program.
    #[must_use]
    pub fn requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether a Ctrl-C or SIGTERM arrived.
    #[must_use]
    pub fn signalled(&self) -> bool {
        self.signalled.load(Ordering::Relaxed)
    }

    /// The stop flag, for loops that poll it.
    #[must_use]
    pub fn flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// What the signal handler does with a signal arriving at `now`: the first sets both
    /// flags; one within [`SAME_REQUEST`] of it is a repeat; a later one aborts.
    fn on_signal(&self, now: Instant) -> Signal {
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        let out = match *first {
            None => {
                *first = Some(now);
                Signal::First
            }
            Some(t) if now.saturating_duration_since(t) < SAME_REQUEST => Signal::Repeat,
            Some(_) => Signal::Abort,
        };
        self.signalled.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        out
    }
}

/// Installs the process's Ctrl-C / SIGTERM handler: the first signal sets `stop` and prints
/// one line; one within [`SAME_REQUEST`] of it is ignored; a later one exits with code 130 at
/// once. Only one handler per process.
///
/// # Errors
/// When a handler is already installed.
pub fn install(stop: &Stop) -> Result<(), ctrlc::Error> {
    let stop = stop.clone();
    ctrlc::set_handler(move || match stop.on_signal(Instant::now()) {
        Signal::First => {
            crate::say!("\nmagichunt: stopping and saving (Ctrl-C again, a second from now, aborts at once)");
        }
        Signal::Repeat => {}
        Signal::Abort => {
            crate::say!("\nmagichunt: second interrupt, exiting now");
            std::process::exit(130);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_does_not_count_as_the_first_signal() {
        let stop = Stop::new();
        stop.request();
        assert!(stop.requested() && !stop.signalled());
        let t = Instant::now();
        assert_eq!(
            stop.on_signal(t),
            Signal::First,
            "a signal after a deadline is the first signal: save"
        );
        assert_eq!(stop.on_signal(t + SAME_REQUEST * 2), Signal::Abort);
        assert!(stop.signalled());
    }

    #[test]
    fn a_signal_delivered_twice_is_one_request() {
        let stop = Stop::new();
        let t = Instant::now();
        assert_eq!(stop.on_signal(t), Signal::First);
        // `timeout -s INT`: the process, then its group, microseconds apart.
        assert_eq!(
            stop.on_signal(t + Duration::from_micros(50)),
            Signal::Repeat
        );
        assert_eq!(stop.on_signal(t + SAME_REQUEST / 2), Signal::Repeat);
        // A signal handled before `now` was read on another thread counts as the same.
        assert_eq!(stop.on_signal(t), Signal::Repeat);
        assert_eq!(stop.on_signal(t + SAME_REQUEST), Signal::Abort);
        assert!(stop.requested() && stop.signalled());
    }
}
