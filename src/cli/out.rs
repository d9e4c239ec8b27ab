//! The one way the binary writes on stdout: every command's output goes through [`text`] (what
//! a terminal shows: text from a store or a path is shown, never obeyed, its control characters
//! written escaped), [`json`] (the same for a JSON document, as JSON escapes) or [`document`]
//! (Markdown, SVG, generated code, a CNF, a manual page: escaped for its own format by its
//! renderer). A failed write is an error of one line and a
//! non-zero exit, never a panic:
//!
//! - a reader that went away (`magichunt show ... | head -1`: `EPIPE`) ends the command quietly,
//!   with exit status 141, as a Unix tool killed by `SIGPIPE` reports in a shell;
//! - a full device (`> /dev/full`) or any other error: `magichunt: cannot write to stdout: ...`
//!   and exit 2;
//! - a stdout closed before magichunt started (`>&-`), which the Rust runtime replaces with
//!   `/dev/null` before `main`: the binary notices it first ([`note_stdout_closed`]), and the
//!   first write is refused (exit 2) rather than lost in silence.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Why the output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    /// The reader closed the pipe: the command ends quietly (exit 141).
    #[error("stdout was closed by its reader")]
    BrokenPipe,
    /// Stdout was closed when the process started.
    #[error("cannot write to stdout: it was closed when magichunt started (`>&-`); redirect it to a file or to /dev/null")]
    Closed,
    /// Any other error (a full disk, say).
    #[error("cannot write to stdout: {0}")]
    Io(io::Error),
}

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Records that file descriptor 1 was closed when the process started (the binary checks it
/// before the Rust runtime opens `/dev/null` in its place).
pub fn note_stdout_closed() {
    CLOSED.store(true, Ordering::Relaxed);
}

/// Writes text for a terminal on stdout: characters that steer a terminal (ESC, BEL, ...)
/// are written escaped ([`crate::escape::terminal_text`]).
///
/// # Errors
/// [`OutError`].
pub fn text(text: &str) -> Result<(), OutError> {
    bytes(crate::escape::terminal_text(text).as_bytes())
}

/// Writes a JSON document on stdout, with what would steer a terminal written as JSON escapes
/// ([`crate::escape::json_text`]): the same data, read back.
///
/// # Errors
/// [`OutError`].
pub fn json(doc: &str) -> Result<(), OutError> {
    bytes(crate::escape::json_text(doc).as_bytes())
}

/// Writes a document on stdout as it is (its renderer escaped what it took from outside for
/// its own format).
///
/// # Errors
/// [`OutError`].
pub fn document(doc: &[u8]) -> Result<(), OutError> {
    bytes(doc)
}

fn bytes(b: &[u8]) -> Result<(), OutError> {
    if b.is_empty() {
        return Ok(());
    }
    if CLOSED.load(Ordering::Relaxed) {
        return Err(OutError::Closed);
    }
    let mut out = io::stdout().lock();
    out.write_all(b)
        .and_then(|()| out.flush())
        .map_err(|e| match e.kind() {
            io::ErrorKind::BrokenPipe => OutError::BrokenPipe,
            _ => OutError::Io(e),
        })
}
