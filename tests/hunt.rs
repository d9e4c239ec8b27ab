//! `magichunt hunt` end to end: the store it leaves, resume, SIGINT, refusals, and
//! reproducibility. Runs are short (seconds) and on bishops.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use magichunt::attacks::Occupancies;
use magichunt::magic;
use magichunt::store::Store;

use crate::common;
use common::report;

fn hunt(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .arg("hunt")
        .arg("--store")
        .arg(store)
        .args(["--quiet", "--threads", "2"])
        .args(args)
        .output()
        .expect("runs")
}

/// Every entry verifies and stays at or below its popcount; returns the store.
fn check_store(path: &Path) -> Store {
    let store = Store::load(path).expect("the store loads and verifies");
    for e in store.entries() {
        assert!(magic::verify(e.target, e.bits, e.magic).is_ok(), "{e:?}");
        assert!(e.bits <= Occupancies::new(e.target).mask.count(), "{e:?}");
        assert!(e.found_at.is_some() && e.method.is_some(), "{e:?}");
    }
    store
}

#[test]
fn bishops_for_a_few_seconds_then_resume_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    let out = hunt(&path, &["--piece", "bishop", "--time", "3s", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", report(&out));
    let first = check_store(&path);
    assert_eq!(first.entries().count(), 64, "{}", report(&out));
    assert!(!path.with_extension("json.lock").exists());
    let tried1: u64 = first.effort().map(|e| e.tried).sum();
    assert!(tried1 > 0);

    let out = hunt(&path, &["--piece", "bishop", "--time", "2s", "--seed", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", report(&out));
    let second = check_store(&path);
    for e in first.entries() {
        let now = second.best(e.target).expect("kept");
        assert!(now.rank() <= e.rank(), "{e:?} became {now:?}");
        // Counters add up: the second run only adds work.
        assert!(second.work(e.target).0 >= first.work(e.target).0);
    }
    let tried2: u64 = second.effort().map(|e| e.tried).sum();
    assert!(tried2 > tried1, "{tried2} <= {tried1}");
    let runs: std::collections::BTreeSet<&str> = second.effort().map(|e| e.run.as_str()).collect();
    assert_eq!(runs.len(), 2);
}

/// Starts an open-ended bishop hunt on `path` and returns once its store exists, plus a
/// moment so that it is mid-run (output piped, for the caller to read).
fn bishop_hunt_past_its_first_checkpoint(path: &Path) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .args(["hunt", "--quiet", "--piece", "bishop", "--store"])
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !path.exists() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    child
}

#[test]
fn sigint_mid_run_exits_130_with_a_valid_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    // Interrupt it once it has stored something.
    let child = bishop_hunt_past_its_first_checkpoint(&path);
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", report(&out));
    let store = check_store(&path);
    assert!(store.entries().count() > 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("interrupted"));
}

#[test]
fn corrupt_or_newer_store_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    let bad_magic = r#"{"version": 1, "entries": [{"piece": "rook", "square": "a1", "bits": 11, "magic": "0x0a8002c000108020"}]}"#;
    for content in ["{ not json", bad_magic, r#"{"version": 99, "entries": []}"#] {
        std::fs::write(&path, content).unwrap();
        let out = hunt(&path, &["--piece", "bishop", "--time", "2s"]);
        assert_eq!(out.status.code(), Some(2), "{}", report(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("best.json"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

#[test]
fn bad_input_exits_2_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub").join("best.json");
    for args in [
        &["--square", "z9"][..],
        &["--piece", "bishop", "--bits", "10"],
        &["--time", "soon"],
        &["--threads", "0"],
        // Proven impossible by the published proofs.
        &["--piece", "rook", "--square", "a3", "--bits", "10"],
    ] {
        let out = hunt(&path, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", report(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim().lines().count(),
            1
        );
        assert!(!dir.path().join("sub").exists());
    }
}

#[test]
fn a_live_lock_refuses_a_second_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    // Held the way a running hunt holds it: an OS lock on the open file, its pid inside.
    let mut lock = std::fs::File::create(dir.path().join("best.json.lock")).unwrap();
    lock.try_lock().unwrap();
    std::io::Write::write_all(&mut lock, b"4242\n").unwrap();
    let out = hunt(&path, &["--piece", "bishop", "--time", "1s"]);
    assert_eq!(out.status.code(), Some(2), "{}", report(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in use by pid 4242"));
    assert!(!path.exists());
}

#[test]
fn seeded_runs_bounded_by_tries_find_the_same_magics() {
    let dir = tempfile::tempdir().unwrap();
    let mut found = Vec::new();
    for (i, threads) in ["1", "2"].iter().enumerate() {
        let path = dir.path().join(format!("s{i}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_magichunt"))
            .env("MAGICHUNT_CACHE", "off")
            .args([
                "hunt",
                "--quiet",
                "--piece",
                "bishop",
                "--square",
                "a1,b2,e4,h8",
            ])
            .args(["--tries", "2000000", "--seed", "42", "--threads", threads])
            .arg("--store")
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", report(&out));
        let store = check_store(&path);
        let magics: Vec<(String, u32, u64, u32)> = store
            .entries()
            .map(|e| (e.target.to_string(), e.bits, e.magic, e.max_index))
            .collect();
        assert_eq!(magics.len(), 4);
        let tried: Vec<(String, u32, u64)> = store
            .effort()
            .map(|e| (e.target.to_string(), e.bits, e.tried))
            .collect();
        assert!(tried.iter().all(|t| t.2 <= 2_000_000), "{tried:?}");
        found.push((magics, tried));
    }
    assert_eq!(found[0], found[1]);
}

#[test]
fn kill_9_leaves_a_valid_checkpoint_and_a_lock_file_the_next_run_takes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    let mut child = bishop_hunt_past_its_first_checkpoint(&path);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // The file stays (nobody removed it), but the dead process's lock went with it.
    assert!(dir.path().join("best.json.lock").exists());
    let before = check_store(&path);
    let out = hunt(&path, &["--piece", "bishop", "--time", "1s"]);
    assert_eq!(out.status.code(), Some(0), "{}", report(&out));
    let after = check_store(&path);
    for e in before.entries() {
        assert!(after.best(e.target).unwrap().rank() <= e.rank());
    }
}

/// `--preset records` on a store level with the records everywhere (the shipped one) says so
/// in two lines and leaves the store byte for byte as it was.
#[test]
fn records_preset_on_a_level_store_has_nothing_to_hunt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/best.json");
    std::fs::copy(&shipped, &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = hunt(&path, &["--preset", "records"]);
    assert_eq!(out.status.code(), Some(0), "{}", report(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing to hunt"), "{}", report(&out));
    assert!(err.contains("and 120 more"), "{}", report(&out));
    assert_eq!(err.lines().count(), 2, "{}", report(&out));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
