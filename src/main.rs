//! The `magichunt` binary: parse, run, map the outcome to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = magichunt::cli::parse_args();
    match magichunt::cli::run(opts) {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            magichunt::say!("magichunt: {}", one_line(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// An error is one line, whatever a path or a store put in it: control characters (a newline
/// in a folder name, an escape sequence) are written escaped.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `magichunt show ... | head` must not report an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
