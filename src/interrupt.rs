//! Two-stage interruption: the first Ctrl-C (SIGINT) or SIGTERM asks the work to stop and
//! save; a second Ctrl-C exits at once with code 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A stop flag shared by the workers and the signal handler.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Sets the flag.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    #[must_use]
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The underlying flag, for loops that poll it.
    #[must_use]
    pub fn flag(&self) -> &AtomicBool {
        &self.0
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
        if stop.0.swap(true, Ordering::SeqCst) {
            eprintln!("\nmagichunt: second interrupt, exiting now");
            std::process::exit(130);
        }
        eprintln!("\nmagichunt: stopping and saving (Ctrl-C again to abort at once)");
    })
}
