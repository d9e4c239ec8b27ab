//! Helpers of the tests of issues 23 and 32 (`trust.rs`, `output_guard.rs`,
//! `trust_inputs.rs`): a folder with its own cache of checks to run the binary in, a watchdog
//! that kills a run that hangs (and measures its peak memory), and reading what it said.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

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

    /// [`Env::mh`] under a watchdog: killed after `limit` (the test then fails, naming the
    /// command, instead of hanging CI); also its peak memory (see [`Watched`]).
    pub fn mh_watched(&self, args: &[&str], limit: Duration) -> Watched {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_magichunt"));
        cmd.env("MAGICHUNT_CACHE", self.path("cache.json"))
            .current_dir(self.dir.path())
            .args(args);
        watched(cmd, limit)
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

/// A run under a watchdog: what it wrote, and the most memory it held.
pub struct Watched {
    /// Its exit status and output.
    pub output: Output,
    /// Its peak resident memory in KiB (`VmHWM`, read while it ran), `None` where `/proc`
    /// does not tell.
    pub peak_kib: Option<u64>,
}

/// Runs `cmd` (stdin closed, stdout and stderr to files) and kills it after `limit`: a
/// command that hangs fails the test, naming it. Its peak memory is read from
/// `/proc/PID/status` while it runs.
pub fn watched(mut cmd: Command, limit: Duration) -> Watched {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(&err).unwrap())
        .spawn()
        .expect("runs");
    let status_file = PathBuf::from(format!("/proc/{}/status", child.id()));
    let start = Instant::now();
    let mut peak: Option<u64> = None;
    let status = loop {
        if let Ok(text) = fs::read_to_string(&status_file) {
            if let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = Some(peak.map_or(kib, |p| p.max(kib)));
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "hung: {cmd:?} still running after {limit:?}; stderr so far:\n{}",
                fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Watched {
        output: Output {
            status,
            stdout: fs::read(&out).unwrap(),
            stderr: fs::read(&err).unwrap(),
        },
        peak_kib: peak,
    }
}

/// Makes a FIFO at `path` with `mkfifo`; `false` (and a note on stderr) where there is no
/// `mkfifo`, so that the test can skip that case.
pub fn mkfifo(path: &Path) -> bool {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIP: no mkfifo: the FIFO case of this test is not run");
    }
    ok
}
