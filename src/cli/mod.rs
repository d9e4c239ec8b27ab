//! The command line: clap definitions, validation into configs, and dispatch.
//!
//! Each subcommand lives in its own file with its raw arguments (clap) and a validated config
//! that the library core sees; the core never sees clap.

mod audit;
mod bench;
mod compare;
mod docs;
mod estimate;
mod exhaust;
mod export;
mod hunt;
mod merge;
pub mod out;
mod pack;
mod progress;
mod prove;
mod show;
mod verify;

use clap::{Parser, Subcommand};

use crate::error::ParseError;
use crate::magic::parse_magic;
use crate::piece::Piece;
use crate::square::Square;

/// Hunt magic multipliers for magic bitboards, above all reduced-bit ones.
#[derive(Debug, Parser)]
#[command(name = "magichunt", version, about, max_term_width = 100)]
pub struct Opts {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Hunt magics (reduced-bit ones first) and keep the best in the store; resumable.
    Hunt(hunt::HuntArgs),
    /// Check a magic (or every entry of a table file) against the slow reference.
    Verify(verify::VerifyArgs),
    /// Show a square's mask, subsets, attack sets, lower bound and the best published bits.
    Show(show::ShowArgs),
    /// Export every square (filling the ones the store lacks) as Rust, C or JSON.
    Export(export::ExportArgs),
    /// Compare the store with the published records or another table, square by square.
    Compare(compare::CompareArgs),
    /// Search one period of magics completely (or one part of it): prove none exists, or
    /// count them all.
    Exhaust(exhaust::ExhaustArgs),
    /// Settle whether a magic exists: SAT with a checked certificate, or exhaustive search.
    Prove(prove::ProveArgs),
    /// Merge stores: best entry per square, proofs and exhaustive parts combined; only
    /// records whose evidence holds get in.
    Merge(merge::MergeArgs),
    /// Check the evidence of a store's proofs here: every certificate, and a random sample
    /// of blocks of every exhaustive search re-run against its residue.
    Audit(audit::AuditArgs),
    /// Pack the store's magics into one shared array (the packed layout) and write it as a
    /// packed table; optionally hunt magics that fit its holes.
    Pack(pack::PackArgs),
    /// Measure the search: a fixed, seeded workload, medians per thread count.
    Bench(bench::BenchArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    Completions(docs::CompletionsArgs),
    /// Print the manual page (roff), or write one page per subcommand with --dir.
    Man(docs::ManArgs),
}

/// How a command ended, for the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done (exit 0).
    Success,
    /// Ran, but the answer is "no": an invalid magic, a failing entry (exit 1).
    Failure,
    /// Stopped by Ctrl-C or SIGTERM after saving (exit 130).
    Interrupted,
}

impl Outcome {
    /// The process exit code.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::Failure => 1,
            Outcome::Interrupted => 130,
        }
    }
}

/// Runs a parsed command line.
///
/// # Errors
/// Bad input, unreadable or refused files: the binary prints the error on one line and
/// exits 2.
pub fn run(opts: Opts) -> anyhow::Result<Outcome> {
    match opts.command {
        Command::Hunt(args) => hunt::run(&args),
        Command::Verify(args) => verify::run(args),
        Command::Show(args) => show::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Exhaust(args) => exhaust::run(args),
        Command::Prove(args) => prove::run(args),
        Command::Merge(args) => merge::run(&args),
        Command::Audit(args) => audit::run(&args),
        Command::Pack(args) => pack::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Completions(args) => docs::completions(&args),
        Command::Man(args) => docs::man(&args),
    }
}

/// Parses the process arguments. On a usage error it prints one line naming the bad value
/// (help and version print as usual) and exits 2.
#[must_use]
pub fn parse_args() -> Opts {
    match Opts::try_parse() {
        Ok(opts) => opts,
        Err(e) => {
            use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
            if matches!(e.kind(), DisplayHelp | DisplayVersion) {
                e.exit();
            }
            crate::say!("magichunt: {} (see --help)", usage_line(&e.to_string()));
            std::process::exit(2);
        }
    }
}

/// A clap usage error as one line: its first line, with the lines that complete it joined on
/// (the missing arguments after "were not provided:", the possible values, a tip), and
/// without the usage block and the pointer to `--help` that follow them.
fn usage_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("invalid arguments").trim_end();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let more: Vec<&str> = lines
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match (more.is_empty(), first.ends_with(':')) {
        (true, _) => first.to_owned(),
        (false, true) => format!("{first} {}", more.join(", ")),
        (false, false) => format!("{first}; {}", more.join("; ")),
    }
}

/// Parses `--piece`.
///
/// # Errors
/// [`ParseError::Piece`].
pub fn piece_arg(s: &str) -> Result<Piece, ParseError> {
    s.parse()
}

/// Parses `--square`.
///
/// # Errors
/// [`ParseError::Square`].
pub fn square_arg(s: &str) -> Result<Square, ParseError> {
    s.parse()
}

/// Parses `--formula`.
///
/// # Errors
/// [`ParseError::Other`] naming the value.
pub fn formula_arg(s: &str) -> Result<crate::question::Formula, ParseError> {
    s.parse()
}

/// The most worker threads a command starts (`--threads`): more is a typo, refused in one
/// line before anything runs rather than left to fail (or to swamp the machine) as threads
/// are created.
pub const MAX_THREADS: usize = 1024;

/// Parses `--threads`: 0 (every core, where the command allows it) to [`MAX_THREADS`].
///
/// # Errors
/// A message naming the bound.
pub fn threads_arg(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number of threads"))?;
    if n > MAX_THREADS {
        return Err(format!("at most {MAX_THREADS} threads"));
    }
    Ok(n)
}

/// Worker threads: `n`, or every core the machine offers when `n` is 0 (`--threads 0`) or
/// not given.
pub(crate) fn threads_or_all(n: Option<usize>) -> usize {
    match n {
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, usize::from),
    }
}

/// Parses `--magic`.
///
/// # Errors
/// [`ParseError::Magic`].
pub fn magic_arg(s: &str) -> Result<u64, ParseError> {
    parse_magic(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Opts::command().debug_assert();
    }

    #[test]
    fn verify_flags() {
        let ok = [
            "mh", "verify", "--piece", "rook", "--square", "a8", "--bits", "11", "--magic", "0x1",
        ];
        assert!(Opts::try_parse_from(ok).is_ok());
        assert!(Opts::try_parse_from(["mh", "verify", "--file", "t.json"]).is_ok());
        assert!(Opts::try_parse_from(["mh", "verify", "--square", "i9"]).is_err());
        assert!(Opts::try_parse_from(["mh", "verify", "--file", "t", "--piece", "rook"]).is_err());
    }

    /// The line a usage error prints, from clap's own error for `args`.
    fn line(args: &[&str]) -> String {
        let e = Opts::try_parse_from(args).expect_err("a usage error");
        usage_line(&e.to_string())
    }

    #[test]
    fn usage_errors_name_what_is_missing_in_one_line() {
        let missing = line(&["mh", "show"]);
        assert!(
            missing.contains("--piece <PIECE>, --square <SQUARE>"),
            "{missing}"
        );
        let values = line(&["mh", "hunt", "--objective", "x"]);
        assert!(
            values.contains("[possible values: bits, tight, slots]"),
            "{values}"
        );
        let unknown = line(&["mh", "show", "--piece", "rook", "--square", "a1", "--bogus"]);
        assert!(
            unknown.starts_with("unexpected argument '--bogus' found"),
            "{unknown}"
        );
        let near = line(&[
            "mh", "show", "--piece", "rook", "--square", "a1", "--stroe", "x",
        ]);
        assert!(
            near.contains("tip: a similar argument exists: '--store'"),
            "{near}"
        );
        for l in [missing, values, unknown, near] {
            assert!(
                !l.contains('\n') && !l.contains("Usage:") && !l.contains("error:"),
                "{l}"
            );
        }
    }
}
