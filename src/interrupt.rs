//! Two-stage interruption: the first Ctrl-C (SIGINT) or SIGTERM asks the work to stop and
//! save; a second Ctrl-C exits at once with code 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A stop flag shared by the workers and the signal handler.
///
/// Two flags: `stop` tells the work to wind down (set by a signal, or by the program itself at
/// a deadline); `signalled` records that a signal arrived, so that only a *second signal*, not a
/// signal after a deadline, aborts without saving.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    stop: Arc<AtomicBool>,
    signalled: Arc<AtomicBool>,
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

    /// What the signal handler does: the first signal sets both flags and returns `true`; a
    /// later one returns `false` (the handler then exits at once).
    fn on_signal(&self) -> bool {
        let first = !self.signalled.swap(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        first
    }
}

/// Installs the process's Ctrl-C / SIGTERM handler: the first signal sets `stop` and prints
/// one line; the second exits with code 130 at once. Only one handler per process.
///
/// # Errors
/// When a handler is already installed.
pub fn install(stop: &Stop) -> Result<(), ctrlc::Error> {
    let stop = stop.clone();
    ctrlc::set_handler(move || {
        if !stop.on_signal() {
            eprintln!("\nmagichunt: second interrupt, exiting now");
            std::process::exit(130);
        }
        eprintln!("\nmagichunt: stopping and saving (Ctrl-C again to abort at once)");
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
        assert!(
            stop.on_signal(),
            "a signal after a deadline is the first signal: save"
        );
        assert!(!stop.on_signal(), "the next one aborts");
        assert!(stop.signalled());
    }
}
