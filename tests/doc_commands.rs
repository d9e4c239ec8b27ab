//! The commands of the README and of the results page (`docs/results.md`) are ones a reader can
//! run: every cheap one (`verify`, `show`, `compare`, `--version`) runs against the built binary
//! and succeeds; the expensive ones (hunts, exhaustive searches, audits, C checks) parse, as
//! `tests/docs.rs` checks, and every file of the repository they name exists; the cheapest
//! exhaustive search and SAT proof on the page are run whole, and the search must enter the
//! nodes the page says. The version the README installs and the CHANGELOG releases is the
//! binary's.

use std::path::Path;
use std::process::{Command, Output};

use clap::error::ErrorKind;
use clap::Parser as _;

use crate::docs::{commands, shell_lines};

const DOCS: [&str; 2] = ["README.md", "docs/results.md"];

/// The inline code spans of the table rows of `doc` that are commands (`magichunt ...`,
/// `scripts/...`), split into words as the shell would.
fn table_commands(doc: &str) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('|')) {
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && (span.starts_with("magichunt ") || span.starts_with("scripts/")) {
                for cmd in commands(span) {
                    out.push((span.to_string(), cmd));
                }
            }
        }
    }
    out
}

/// Every command of `doc`: its shell blocks' and its tables'.
fn all_commands(doc: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = shell_lines(Path::new(doc))
        .into_iter()
        .flat_map(|l| commands(&l).into_iter().map(move |c| (l.clone(), c)))
        .collect();
    out.extend(table_commands(doc));
    out
}

/// Runs magichunt with `args` in the repository, with a cache of checks of its own in `home`
/// (so that the shipped certificates are checked once, not by every command) and a default
/// store that does not exist (so that reading commands read the shipped table, never a store
/// of the developer's).
fn run(args: &[String], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", home.join("cache.json"))
        .env("MAGICHUNT_STORE", home.join("none.json"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// The words of `cmd` after `magichunt` (or `cargo run --release --`), when it is one.
fn magichunt_args(cmd: &[String]) -> Option<Vec<String>> {
    let words: Vec<&str> = cmd
        .iter()
        .map(String::as_str)
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .skip_while(|w| *w == "nice")
        .collect();
    let args = match words.as_slice() {
        ["magichunt", rest @ ..] => rest,
        ["cargo", "run", "--release", "--", rest @ ..] => rest,
        _ => return None,
    };
    Some(args.iter().map(|s| s.to_string()).collect())
}

/// The files of the repository a command names: words under `results/`, `docs/`, `scripts/`
/// or `bench/` that are not what it writes (after `--out` or `--svg`).
fn named_files(cmd: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut prev = "";
    for w in cmd {
        let w2 = w.rsplit('=').next().unwrap();
        if !matches!(prev, "--out" | "--svg" | "--log")
            && ["results/", "docs/", "scripts/", "bench/"]
                .iter()
                .any(|d| w2.starts_with(d))
        {
            out.push(w2.to_string());
        }
        prev = w;
    }
    out
}

/// A command cheap enough to run in a test, and that writes nothing.
fn cheap(args: &[String]) -> bool {
    let writes = args.iter().any(|a| matches!(a.as_str(), "--out" | "--svg"));
    match args.first().map(String::as_str) {
        Some("verify" | "show") => true,
        Some("compare") => !writes,
        Some("--version" | "help") => true,
        _ => false,
    }
}

#[test]
fn the_readme_and_results_commands_run_or_name_files_that_exist() {
    let home = tempfile::tempdir().unwrap();
    let (mut ran, mut files) = (0, 0);
    for doc in DOCS {
        for (line, cmd) in all_commands(doc) {
            for f in named_files(&cmd) {
                assert!(
                    Path::new(&f).exists(),
                    "{doc}: `{line}` names {f}: no such file"
                );
                files += 1;
            }
            let Some(args) = magichunt_args(&cmd) else {
                continue;
            };
            let argv = std::iter::once("magichunt").chain(args.iter().map(String::as_str));
            if let Err(e) = magichunt::cli::Opts::try_parse_from(argv) {
                if !matches!(e.kind(), ErrorKind::DisplayVersion | ErrorKind::DisplayHelp) {
                    panic!("{doc}: `{line}` does not parse:\n{e}");
                }
            }
            if !cheap(&args) {
                continue;
            }
            let o = run(&args, home.path());
            assert_eq!(
                o.status.code(),
                Some(0),
                "{doc}: `{line}` failed:\n{}\n{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(!o.stdout.is_empty(), "{doc}: `{line}` printed nothing");
            ran += 1;
        }
    }
    assert!(ran >= 8, "only {ran} commands run");
    assert!(files >= 10, "only {files} files named");
}

/// The rows of the results page's question tables, as cells.
fn rows() -> Vec<Vec<String>> {
    std::fs::read_to_string("docs/results.md")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(" at ") && !l.starts_with("| question"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// Seconds of a CPU cell (`376 s`, `2.3 s`, `19.4 h`).
fn seconds(cell: &str) -> Option<f64> {
    let (v, unit) = cell.rsplit_once(' ')?;
    let v: f64 = v.replace(',', "").parse().ok()?;
    match unit {
        "s" => Some(v),
        "h" => Some(v * 3600.0),
        _ => None,
    }
}

/// The row whose method starts with `method` and that took the least CPU, and its reproduce
/// command.
fn cheapest(method: &str) -> (Vec<String>, Vec<String>) {
    let row = rows()
        .into_iter()
        .filter(|c| c[2].starts_with(method) && c[1] == "**none**")
        .filter_map(|c| seconds(&c[4]).map(|s| (s, c)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap()
        .1;
    let reproduce = row[7].trim_matches('`').to_string();
    let cmd = commands(&reproduce).remove(0);
    (row, magichunt_args(&cmd).unwrap())
}

/// The cheapest exhaustive search of the page, reproduced from a new store as its row says:
/// none exists, and the node count is the row's.
#[test]
fn the_cheapest_exhaustive_search_of_the_results_page_reproduces() {
    let (row, args) = cheapest("`exhaust`");
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .current_dir(dir.path())
        .args(&args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {out}{err}");
    assert!(
        format!("{out}{err}").contains("none exists"),
        "{args:?}: {out}{err}"
    );
    let store = args[args.iter().position(|a| a == "--store").unwrap() + 1].clone();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(store)).unwrap()).unwrap();
    let nodes: u64 = doc["exhaust"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["nodes"].as_u64().unwrap())
        .sum();
    assert_eq!(nodes.to_string(), row[3].replace(',', ""), "{}", row[0]);
}

/// The cheapest SAT proof of the page, reproduced from a new store: none exists, its
/// certificate checked and kept beside the store.
#[test]
fn the_cheapest_sat_proof_of_the_results_page_reproduces() {
    let (row, args) = cheapest("`prove`");
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .current_dir(dir.path())
        .args(&args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0), "{args:?}: {text}");
    assert!(text.contains("none exists"), "{args:?}: {text}");
    let q: Vec<&str> = row[0].split_whitespace().collect();
    let cert = dir
        .path()
        .join(format!("proofs/{}-{}-{}.lrat.gz", q[0], q[1], q[3]));
    assert!(cert.exists(), "{}: {text}", cert.display());
}

/// The release: the README installs the version the binary has, the CHANGELOG's first release
/// is it, with a date, below an Unreleased section, and `--version` says it.
#[test]
fn the_version_is_one_everywhere() {
    let v = env!("CARGO_PKG_VERSION");
    let readme = std::fs::read_to_string("README.md").unwrap();
    let install = readme
        .lines()
        .find(|l| l.starts_with("cargo install "))
        .expect("an install line");
    assert!(install.contains(&format!("magichunt {v}")), "{install}");
    let changelog = std::fs::read_to_string("CHANGELOG.md").unwrap();
    let releases: Vec<&str> = changelog.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(releases[0], "## [Unreleased]");
    let first = releases[1]
        .strip_prefix(&format!("## [{v}] - "))
        .unwrap_or_else(|| panic!("CHANGELOG's first release is `{}`, not {v}", releases[1]));
    let date: Vec<&str> = first.split('-').collect();
    assert!(
        date.len() == 3 && date.iter().all(|d| d.chars().all(|c| c.is_ascii_digit())),
        "{first} is not a date"
    );
    let home = tempfile::tempdir().unwrap();
    let o = run(&["--version".to_string()], home.path());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!("magichunt {v}")
    );
}
