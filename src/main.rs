//! The `magichunt` binary: parse, run, map the outcome to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    let opts = magichunt::cli::parse_args();
    match magichunt::cli::run(opts) {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("magichunt: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `magichunt show ... | head` must not report an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
