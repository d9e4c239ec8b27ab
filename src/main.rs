//! The `magichunt` binary: parse, run, map the outcome to an exit code.

use std::process::ExitCode;

use magichunt::cli::out::OutError;

fn main() -> ExitCode {
    let opts = magichunt::cli::parse_args();
    match magichunt::cli::run(opts) {
        Ok(outcome) => ExitCode::from(outcome.code()),
        // `magichunt show ... | head -1`: quiet, as a Unix tool killed by SIGPIPE.
        Err(e) if is_broken_pipe(&e) => ExitCode::from(141),
        Err(e) => {
            magichunt::say!("magichunt: {}", one_line(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// An error is one line, whatever a path or a store put in it: control characters (a newline
/// in a folder name, an escape sequence) are written escaped.
fn one_line(text: &str) -> String {
    magichunt::escape::one_line(text)
}

/// Whether the command ended because the reader of its output went away.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(c.downcast_ref::<OutError>(), Some(OutError::BrokenPipe))
            || c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Looks whether file descriptor 1 is closed (`magichunt export >&-`) before the Rust runtime
/// puts `/dev/null` in its place, which it does before `main`, so that output written then
/// is refused rather than lost in silence (see `magichunt::cli::out`). It runs as the C
/// library's constructors do, from the ELF `.init_array`, which the C library calls before
/// `main` and so before the runtime's own set-up; the function itself is safe code.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // `link_section` places the pointer; nothing else is unsafe here.
#[used]
#[link_section = ".init_array"]
static CHECK_STDOUT: extern "C" fn() = check_stdout;

#[cfg(target_os = "linux")]
extern "C" fn check_stdout() {
    use std::os::fd::AsFd;
    // Duplicating a closed descriptor fails with EBADF; any open one (a file, a pipe,
    // /dev/null) duplicates.
    let closed = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .is_err_and(|e| e.raw_os_error() == Some(libc::EBADF));
    if closed {
        magichunt::cli::out::note_stdout_closed();
    }
}
