//! Helpers of the tests of issue 23 (`trust.rs`, `output_guard.rs`): a folder with its own
//! cache of checks to run the binary in, and reading what it said.

#![allow(dead_code)] // each test binary uses a part

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A folder to work in, with its own cache of checks.
pub struct Env {
    /// The folder.
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs magichunt in the folder, with the folder's cache.
    pub fn mh(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_magichunt"))
            .env("MAGICHUNT_CACHE", self.path("cache.json"))
            .current_dir(self.dir.path())
            .args(args)
            .output()
            .expect("runs")
    }

    /// A copy of the shipped store and its certificates: `best.json`.
    pub fn shipped(&self) -> PathBuf {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let store = self.path("best.json");
        fs::copy(root.join("results/best.json"), &store).unwrap();
        fs::create_dir_all(self.path("proofs")).unwrap();
        for f in fs::read_dir(root.join("results/proofs")).unwrap() {
            let f = f.unwrap();
            fs::copy(f.path(), self.path("proofs").join(f.file_name())).unwrap();
        }
        store
    }

    /// `summary:` line of `compare --store store`.
    pub fn summary(&self, store: &Path, extra: &[&str]) -> String {
        let mut args = vec!["compare", "--store", store.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = self.mh(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        stdout(&o)
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or_default()
            .to_string()
    }
}

pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit 2 with one line on stderr containing every one of `want`.
pub fn refused(o: &Output, want: &[&str]) {
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{}", text(o));
    for w in want {
        assert!(err.contains(w), "wanted {w:?}: {}", text(o));
    }
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The number of proven-optimal squares in a summary line.
pub fn proven(summary: &str) -> usize {
    let before = summary.split(" proven optimal").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

pub fn write_json(p: &Path, v: &Value) {
    fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// The squares listed under the C or Rust export header's line starting with `title`
/// (`rook a3`, ...).
pub fn header_squares(header: &str, title: &str) -> Vec<String> {
    let mut piece = "";
    let mut out = Vec::new();
    let lines = header
        .lines()
        .map(|l| {
            l.strip_prefix(" * ")
                .or_else(|| l.strip_prefix("// "))
                .unwrap_or(l)
        })
        .skip_while(|l| !l.starts_with(title))
        .skip(1)
        .take_while(|l| l.starts_with(' '));
    for line in lines {
        for word in line.split_whitespace() {
            match word.trim_end_matches([';', ',']) {
                "rook" => piece = "rook",
                "bishop" => piece = "bishop",
                sq => out.push(format!("{piece} {sq}")),
            }
        }
    }
    out
}
