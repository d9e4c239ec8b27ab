//! `bench/yardstick`, the plain C finder `scripts/bench.sh` measures magichunt against, lives
//! in the repo so the script works from a clone: it builds warning-free with `cc`, prints the
//! lines the script parses, and a magic it reports finding is a real one.

use std::path::Path;
use std::process::{Command, Output};

use magichunt::magic::{parse_magic, verify};
use magichunt::{Piece, Square, Target};

/// Builds `bench/yardstick/yardstick.c` into `dir` with the flags the README promises are
/// warning-free (warnings are errors here); the binary's path.
fn build(dir: &Path) -> std::path::PathBuf {
    let bin = dir.join("baseline");
    let out = Command::new("cc")
        .args(["-O2", "-Wall", "-Wextra", "-Werror", "-std=c99", "-o"])
        .arg(&bin)
        .arg("bench/yardstick/yardstick.c")
        .output()
        .expect("cc runs");
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    bin
}

/// The number at the end of the line starting with `key` and a space, as scripts/bench.sh's
/// `field` reads it.
fn field(stdout: &str, key: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{stdout}"));
    line.split_whitespace()
        .last()
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("`{line}`: {e}"))
}

fn run(bin: &Path, args: &[&str]) -> (Output, String) {
    let out = Command::new(bin)
        .args(args)
        .output()
        .expect("yardstick runs");
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    (out, stdout)
}

#[test]
fn the_yardstick_builds_prints_what_bench_sh_parses_and_finds_real_magics() {
    let dir = tempfile::tempdir().unwrap();
    let bin = build(dir.path());

    // Rook a1 at its popcount (12 bits): a magic exists and 5 M draws find one (deterministic:
    // seed 1). A fraction of a second.
    let started = std::time::Instant::now();
    let (out, stdout) = run(&bin, &["rook", "0", "12", "5000000", "1"]);
    assert!(
        started.elapsed().as_secs_f64() < 2.0,
        "too slow for a quick test"
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for key in [
        "tested per second",
        "drawn per second",
        "checks per tested candidate",
    ] {
        assert!(field(&stdout, key) > 0.0, "`{key}` not positive:\n{stdout}");
    }
    let line = stdout
        .lines()
        .find(|l| l.starts_with("magic "))
        .unwrap_or_else(|| panic!("no magic line:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[2..], ["verified", "ok"], "{line}");
    let magic = parse_magic(words[1]).unwrap();
    let a1 = Target::new(Piece::Rook, Square::new(0).unwrap());
    let verified = verify(a1, 12, magic)
        .unwrap_or_else(|c| panic!("the yardstick's magic {} collides: {c:?}", words[1]));
    assert!(verified.max_index < 4096);

    // Bishop d4 at 8 bits has no magic: exit 1, `magic none`, the counters still printed.
    let (out, stdout) = run(&bin, &["bishop", "27", "8", "200000", "1"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.lines().any(|l| l == "magic none"), "{stdout}");
    assert!(field(&stdout, "tested per second") > 0.0, "{stdout}");

    // A usage error is exit 2.
    let (out, _) = run(&bin, &["rook", "64", "12", "1", "1"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `baseline all SEED`: every one of the 128 popcount magics is checked here too, and the last
/// line carries `elapsed seconds <s>`, which bench.sh reads two fields after `elapsed`.
#[test]
fn the_yardstick_all_run_finds_128_real_magics_and_reports_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let bin = build(dir.path());
    let (out, stdout) = run(&bin, &["all", "1"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 129, "{stdout}");
    let targets: Vec<Target> = Target::all().collect();
    for (line, target) in lines.iter().zip(&targets) {
        let w: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(format!("{} {}", w[0], w[1]), target.to_string(), "{line}");
        assert_eq!(w.last(), Some(&"ok"), "{line}");
        let bits: u32 = w[3].parse().unwrap();
        let magic = parse_magic(w[5]).unwrap();
        verify(*target, bits, magic).unwrap_or_else(|c| panic!("{line}: {c:?}"));
    }
    let last: Vec<&str> = lines[128].split_whitespace().collect();
    let at = last.iter().position(|w| *w == "elapsed").expect("elapsed");
    let seconds: f64 = last[at + 2].parse().unwrap();
    assert!(seconds > 0.0, "{}", lines[128]);
}
