//! The hostile cases of issue 14 ("nothing lost, nothing injected"), each run through the
//! binary: every one of them lost data, ran two writers or panicked before its fix.

use std::fs::{self, File};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use magichunt::store::Store;
use serde_json::{json, Value};

use crate::common;
use common::report;

const FIXTURE: &str = "tests/golden/store.json";

fn mh(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .args(args)
        .output()
        .expect("runs")
}

fn hunt(store: &Path, args: &[&str]) -> Output {
    let mut v = vec!["hunt", "--quiet", "--threads", "1", "--store"];
    v.push(store.to_str().unwrap());
    v.extend_from_slice(args);
    mh(&v)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with exactly one line on stderr containing `want`.
fn refused(o: &Output, want: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", report(o));
    let err = stderr(o);
    assert_eq!(err.trim_end().lines().count(), 1, "{}", report(o));
    assert!(err.contains(want), "wanted {want:?}: {}", report(o));
}

fn fixture_in(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    fs::copy(FIXTURE, &p).unwrap();
    p
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

fn write_json(p: &Path, v: &Value) {
    fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// The entry of `piece` `square` in a store's JSON.
fn entry<'a>(store: &'a Value, piece: &str, square: &str) -> &'a Value {
    store["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["piece"] == piece && e["square"] == square)
        .unwrap_or_else(|| panic!("no {piece} {square} in {store}"))
}

fn lock_of(store: &Path) -> PathBuf {
    let mut s = store.as_os_str().to_os_string();
    s.push(".lock");
    PathBuf::from(s)
}

/// Holds the store's lock as another process would, with nothing written in the file.
fn hold_lock(store: &Path) -> File {
    let f = File::create(lock_of(store)).unwrap();
    f.try_lock().unwrap();
    f
}

// 1. merge --out onto an existing store that is not an input.

#[test]
fn merge_into_an_existing_store_merges_it_in() {
    let dir = tempfile::tempdir().unwrap();
    let out = fixture_in(dir.path(), "best.json");
    let before = Store::load(&out).unwrap();
    let input = dir.path().join("part.json");
    fs::write(&input, r#"{"version": 1, "entries": []}"#).unwrap();
    let o = mh(&[
        "merge",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(stderr(&o).contains("merging it in"), "{}", report(&o));
    let after = Store::load(&out).unwrap();
    assert_eq!(after.entries().count(), before.entries().count());
    assert!(after.entries().eq(before.entries()));
}

#[test]
fn merge_never_overwrites_a_store_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture_in(dir.path(), "part.json");
    let out = dir.path().join("best.json");
    for content in [r#"{"version": 2, "entries": []}"#, "{ not json"] {
        fs::write(&out, content).unwrap();
        let o = mh(&[
            "merge",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        refused(&o, "best.json");
        assert_eq!(fs::read_to_string(&out).unwrap(), content);
    }
}

// 2. The lock: an OS lock on an open file, not a pid guessed at.

#[test]
fn a_held_lock_refuses_even_before_its_pid_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("best.json");
    let held = hold_lock(&store);
    let o = hunt(&store, &["--piece", "bishop", "--time", "1s"]);
    refused(&o, "in use by another process");
    assert!(!store.exists(), "nothing written");
    assert!(lock_of(&store).exists(), "the refused run deletes no lock");
    drop(held);
    // The holder is gone: the lock is free, whatever the file says.
    fs::write(lock_of(&store), "1\n").unwrap();
    let o = hunt(
        &store,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(
        !lock_of(&store).exists(),
        "its holder removes it at the end"
    );
}

#[test]
fn hunts_started_together_run_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("best.json");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_magichunt"))
            .env("MAGICHUNT_CACHE", "off")
            .args(["hunt", "--quiet", "--threads", "1", "--piece", "bishop"])
            .arg("--store")
            .arg(&store)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut children: Vec<Child> = (0..4).map(|_| spawn()).collect();
    // Open-ended hunts: exactly one keeps running, the others are refused.
    let t0 = Instant::now();
    let mut refusals = Vec::new();
    while refusals.len() < 3 && t0.elapsed() < Duration::from_secs(60) {
        let mut i = 0;
        while i < children.len() {
            if children[i].try_wait().unwrap().is_some() {
                refusals.push(children.remove(i).wait_with_output().unwrap());
            } else {
                i += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for o in &refusals {
        refused(o, "in use by");
    }
    assert_eq!(children.len(), 1, "one writer runs");
    let runner = children.pop().unwrap();
    let kill = Command::new("kill")
        .args(["-INT", &runner.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = runner.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", report(&o));
    assert!(Store::load(&store).is_ok());
}

// 3. A symlinked store.

#[test]
fn a_symlinked_store_stays_a_link_and_shares_its_targets_lock() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real").join("best.json");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real/best.json", &link).unwrap();
    // A dangling link: the store is created where it points.
    let o = hunt(
        &link,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(Store::load(&real).unwrap().entries().count(), 1);
    // A second run through the link saves into the real file again.
    let o = hunt(
        &link,
        &["--piece", "bishop", "--square", "b1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(Store::load(&real).unwrap().entries().count(), 2);
    // The link and its target are one store, with one lock.
    let held = hold_lock(&real);
    let o = hunt(&link, &["--piece", "bishop", "--time", "1s"]);
    refused(&o, "in use by");
    drop(held);
}

// 5. Validation of found_at on load.

/// An export written through a symlink replaces the file the link names; the link stays a
/// link, and a link to the store itself is refused.
#[test]
fn an_export_through_a_symlink_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "s.json");
    let real = dir.path().join("real.h");
    fs::write(&real, "old").unwrap();
    let link = dir.path().join("link.h");
    std::os::unix::fs::symlink("real.h", &link).unwrap();
    let args = |out: &Path| {
        mh(&[
            "export",
            "--format",
            "c",
            "--store",
            store.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = args(&link);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real).unwrap().contains("ROOK_MAGICS"));
    let to_store = dir.path().join("store-link.json");
    std::os::unix::fs::symlink("s.json", &to_store).unwrap();
    let before = fs::read(&store).unwrap();
    refused(&args(&to_store), "store");
    assert_eq!(fs::read(&store).unwrap(), before);
}

#[test]
fn a_found_at_that_is_not_a_time_is_refused_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    for bad in [
        "2026-11-20T21:04:11Z\ncompile_error!(\"injected\");",
        "2026-11-20T21:04:11Z */ #error injected /*",
    ] {
        let mut v = read_json(&store);
        v["entries"][1]["found_at"] = json!(bad);
        write_json(&store, &v);
        let before = fs::read(&store).unwrap();
        for args in [
            vec!["compare", "--store", store.to_str().unwrap()],
            vec!["hunt", "--time", "1s", "--store", store.to_str().unwrap()],
        ] {
            let o = mh(&args);
            refused(&o, "entry 1 (rook h8): found_at");
            assert!(
                stderr(&o).contains("not an RFC 3339 time"),
                "{}",
                report(&o)
            );
        }
        assert_eq!(fs::read(&store).unwrap(), before);
    }
}

// 6. Durations and counters past what the clock and the integers hold.

#[test]
fn durations_past_a_century_are_refused_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let s = store.to_str().unwrap();
    let long = "106751991167301d";
    let exhaust = [
        "--piece", "bishop", "--square", "d8", "--bits", "4", "--store", s, "--time", long,
    ];
    let mut prove = exhaust.to_vec();
    prove.extend(["--method", "sat"]);
    refused(
        &mh(&["hunt", "--store", s, "--time", long]),
        "at most 100 years",
    );
    // exhaust and prove parse it in clap, whose message may run on (see --help).
    for args in [
        [&["exhaust"][..], &exhaust].concat(),
        [&["prove"][..], &prove].concat(),
    ] {
        let o = mh(&args);
        assert_eq!(o.status.code(), Some(2), "{}", report(&o));
        assert!(stderr(&o).contains("at most 100 years"), "{}", report(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", report(&o));
    }
    assert!(!store.exists());
}

#[test]
fn absurd_counters_are_refused_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    let record = |tried: Value, seconds: Value| json!({"piece": "rook", "square": "a8", "bits": 11, "run": "r", "tried": tried, "seconds": seconds});
    for (effort, want) in [
        // Two records whose seconds add up past what a Duration holds.
        (
            vec![record(json!(1), json!(1e19)), {
                let mut r = record(json!(1), json!(1e19));
                r["run"] = json!("r2");
                r
            }],
            "seconds 10000000000000000000 is beyond any real run",
        ),
        (
            vec![record(json!(u64::MAX), json!(1.0))],
            "tried 18446744073709551615 is beyond any real run",
        ),
    ] {
        let mut v = read_json(&store);
        v["effort"] = json!(effort);
        write_json(&store, &v);
        let before = fs::read(&store).unwrap();
        let o = hunt(
            &store,
            &["--piece", "bishop", "--square", "a1", "--time", "1s"],
        );
        refused(&o, want);
        assert_eq!(fs::read(&store).unwrap(), before);
    }
}

#[test]
fn counters_at_their_bound_add_up_without_wrapping() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    let mut v = read_json(&store);
    // Twenty runs at the largest count a record may hold: 2e19 in all, past u64::MAX.
    v["effort"] = (0..20)
        .map(|i| {
            json!({"piece": "rook", "square": "a8", "bits": 11, "run": format!("r{i}"),
                   "tried": 1_000_000_000_000_000_000u64, "seconds": 1e12})
        })
        .collect();
    write_json(&store, &v);
    let o = hunt(
        &store,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!("{} candidates", u64::MAX)),
        "{}",
        report(&o)
    );
    let after = read_json(&store);
    let a8 = entry(&after, "rook", "a8");
    assert_eq!(a8["tried"], json!(u64::MAX));
}

// 7. Unknown fields everywhere; duplicates said.

#[test]
fn unknown_fields_survive_a_hunt_an_improvement_and_an_exhaust() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("best.json");
    // Bishop a1 at 9 bits (a 6-bit magic is valid at 9): the hunt surely improves it.
    let v = json!({
        "version": 1,
        "about": "kept",
        "entries": [{"piece": "bishop", "square": "a1", "bits": 9, "magic": "0x0010040084040020",
                     "found_at": "2026-01-02T03:04:05Z", "note": "kept", "found_by": "someone",
                     "method": {"family": "sparse", "seed": 1, "host": "kept"}},
                    {"piece": "rook", "square": "a8", "bits": 11, "magic": "0x58ffff49ff3dc666",
                     "method": {"family": "sparse", "host": "kept"}}],
        "effort": [{"piece": "bishop", "square": "a1", "bits": 9, "run": "old", "tried": 5,
                    "seconds": 1.0, "host": "kept"}],
        "exhaust": [{"piece": "bishop", "square": "d8", "bits": 4, "shards": 2, "host": "kept",
                     "parts": [{"shard": 1, "done": false, "magics": 0, "nodes": 0,
                                "seconds": 0.0, "host": "kept"}]}]
    });
    write_json(&store, &v);
    let o = hunt(
        &store,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let o = mh(&[
        "exhaust",
        "--piece",
        "bishop",
        "--square",
        "d8",
        "--bits",
        "4",
        "--shard",
        "1/2",
        "--threads",
        "1",
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let after = read_json(&store);
    assert_eq!(after["about"], "kept");
    let a1 = entry(&after, "bishop", "a1");
    assert!(a1["bits"].as_u64().unwrap() < 9, "improved: {a1}");
    assert_eq!(a1["note"], "kept", "{a1}");
    assert!(
        a1.get("found_by").is_none(),
        "the old finder goes with the old magic: {a1}"
    );
    assert_eq!(entry(&after, "rook", "a8")["method"]["host"], "kept");
    let old_run = after["effort"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["run"] == "old")
        .unwrap();
    assert_eq!(old_run["host"], "kept");
    let x = &after["exhaust"][0];
    assert_eq!(x["host"], "kept");
    assert_eq!(x["parts"][0]["done"], true, "{x}");
    assert_eq!(x["parts"][0]["host"], "kept", "{x}");
}

#[test]
fn duplicate_records_are_said_when_collapsed() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    let mut v = read_json(&store);
    let first = v["entries"][0].clone();
    v["entries"].as_array_mut().unwrap().push(first);
    write_json(&store, &v);
    let o = mh(&["compare", "--store", store.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(
        stderr(&o).contains("2 entries for rook a8 (plain): collapsed into one"),
        "{}",
        report(&o)
    );
}

#[test]
fn a_plain_and_a_black_magic_of_one_square_are_not_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    let mut v = read_json(&store);
    // Annuss and Fiekas's black magic for rook a8 at 12 bits, beside the plain one of the fixture.
    v["entries"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "piece": "rook", "square": "a8", "bits": 12, "magic": "0xfffff37eefefdfbe",
            "formula": "black"
        }));
    write_json(&store, &v);
    let o = mh(&["compare", "--store", store.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(!stderr(&o).contains("collapsed"), "{}", report(&o));
}

#[test]
fn a_closed_stderr_ends_no_run_with_a_panic() {
    // `magichunt hunt 2>&1 | head -1` closes stderr after the first line; the progress lines
    // that follow must not panic (exit 101) before the run saves.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .args([
            "hunt",
            "--threads",
            "1",
            "--time",
            "3s",
            "--piece",
            "bishop",
            "--store",
        ])
        .arg(&store)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(Store::load(&store).unwrap().entries().count() > 0);
}

/// Item 10: the README's first command (`hunt` with no `--store`) never writes the shipped
/// store: it starts `results/mine.json` from it, and reading commands then read that one.
#[test]
fn the_default_store_is_the_users_own_started_from_the_shipped_one() {
    // A checkout: the shipped store and a Cargo.toml naming the package (see src/locate.rs).
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("results")).unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"magichunt\"\n",
    )
    .unwrap();
    let shipped = fixture_in(&dir.path().join("results"), "best.json");
    let before = fs::read(&shipped).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_magichunt"))
            .env("MAGICHUNT_CACHE", "off")
            .args(args)
            .current_dir(dir.path())
            .env_remove("MAGICHUNT_STORE")
            .output()
            .unwrap()
    };
    // Nothing of the user's yet: reading commands read the shipped store.
    let o = run(&["compare"]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("results/best.json"),
        "{}",
        report(&o)
    );
    let o = run(&[
        "hunt",
        "--quiet",
        "--threads",
        "1",
        "--piece",
        "bishop",
        "--time",
        "2s",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(
        stderr(&o).contains("started results/mine.json from the shipped results/best.json"),
        "{}",
        report(&o)
    );
    assert_eq!(
        fs::read(&shipped).unwrap(),
        before,
        "the shipped store was rewritten"
    );
    let mine = Store::load(&dir.path().join("results/mine.json")).unwrap();
    let shipped_store = Store::load(&shipped).unwrap();
    for e in shipped_store.entries() {
        let m = mine
            .best_with(e.target, e.formula)
            .expect("every shipped magic kept");
        assert!(m.rank() <= e.rank(), "{}", e.target);
    }
    let o = run(&["compare"]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("results/mine.json"),
        "{}",
        report(&o)
    );
    // A second run resumes the user's store and says nothing about starting one.
    let o = run(&[
        "hunt",
        "--quiet",
        "--threads",
        "1",
        "--piece",
        "bishop",
        "--time",
        "1s",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(!stderr(&o).contains("started"), "{}", report(&o));
    assert_eq!(fs::read(&shipped).unwrap(), before);
}

// 8. A mistyped --store.

#[test]
fn a_missing_store_is_an_error_for_compare_and_announced_by_hunt() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("typo.json");
    let s = store.to_str().unwrap();
    refused(&mh(&["compare", "--store", s]), "no store at");
    refused(&mh(&["pack", "--store", s]), "no store at");
    assert!(!store.exists(), "pack wrote nothing");
    let o = mh(&["compare", "--store", s, "--allow-missing"]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let o = hunt(
        &store,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let first = stderr(&o).lines().next().unwrap_or("").to_string();
    assert!(
        first.contains("no store at") && first.contains("starting a new one"),
        "{}",
        report(&o)
    );
    // Not on a store that exists.
    let o = hunt(
        &store,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert!(!stderr(&o).contains("starting a new one"), "{}", report(&o));
}

// 9. Interruptions, leftovers, modes.

#[test]
fn sigint_delivered_twice_at_once_still_saves() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("best.json");
    let child = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .args([
            "hunt",
            "--quiet",
            "--threads",
            "1",
            "--piece",
            "bishop",
            "--store",
        ])
        .arg(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !store.exists() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // What `timeout -s INT` does: the process, then its group, a moment apart (apart enough
    // that the kernel does not merge them into one pending signal).
    let kill = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "kill -INT {0}; sleep 0.01; kill -INT {0}",
            child.id()
        ))
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", report(&o));
    assert!(!stderr(&o).contains("exiting now"), "{}", report(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("interrupted"),
        "{}",
        report(&o)
    );
    assert!(Store::load(&store).unwrap().entries().count() > 0);
}

#[test]
fn temporaries_of_dead_saves_are_removed_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    // A pid that was alive a moment ago and is not any more.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let leftover = dir.path().join(format!(".best.json.{dead}.tmp"));
    let live = dir
        .path()
        .join(format!(".best.json.{}.tmp", std::process::id()));
    let others = [
        "notes.txt",
        ".best.json.tmp",
        ".other.json.123.tmp",
        ".best.json.12x.tmp",
    ];
    for f in [&leftover, &live] {
        fs::write(f, "{ half a store").unwrap();
    }
    for f in others {
        fs::write(dir.path().join(f), "mine").unwrap();
    }
    let o = hunt(
        &store,
        &["--piece", "bishop", "--square", "a1", "--time", "1s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(!leftover.exists(), "{}", report(&o));
    assert!(
        stderr(&o).contains(&format!("removed {}", leftover.display())),
        "{}",
        report(&o)
    );
    assert!(live.exists(), "a live process's file stays");
    for f in others {
        assert_eq!(fs::read_to_string(dir.path().join(f)).unwrap(), "mine");
    }
}

#[test]
fn a_read_only_or_group_shared_store_keeps_its_mode_and_group() {
    let dir = tempfile::tempdir().unwrap();
    let store = fixture_in(dir.path(), "best.json");
    // Another group this process may give the file: any as root, else a supplementary one.
    let gid = fs::metadata(&store).unwrap().gid();
    let groups = Command::new("id").arg("-G").output().unwrap();
    let other = String::from_utf8_lossy(&groups.stdout)
        .split_whitespace()
        .filter_map(|g| g.parse::<u32>().ok())
        .chain([4242])
        .find(|&g| g != gid && std::os::unix::fs::chown(&store, None, Some(g)).is_ok());
    for mode in [0o444, 0o660] {
        fs::set_permissions(&store, fs::Permissions::from_mode(mode)).unwrap();
        let before = fs::read(&store).unwrap();
        let o = hunt(
            &store,
            &["--piece", "bishop", "--square", "a1", "--time", "1s"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", report(&o));
        assert_ne!(fs::read(&store).unwrap(), before, "saved");
        let m = fs::metadata(&store).unwrap();
        assert_eq!(m.permissions().mode() & 0o7777, mode);
        match other {
            Some(g) => assert_eq!(m.gid(), g),
            None => eprintln!("note: no second group to give the store; group not checked"),
        }
    }
}

#[test]
fn overnight_retries_a_failed_save_with_a_back_off() {
    let dir = tempfile::tempdir().unwrap();
    // A stand-in for the binary: the first run fails to save (a full disk), the second ends.
    let stub = dir.path().join("magichunt");
    let count = dir.path().join("runs");
    fs::write(
        &stub,
        format!(
            "#!/bin/sh\nn=$(cat {c} 2>/dev/null || echo 0); echo $((n + 1)) > {c}\n\
             if [ \"$n\" = 0 ]; then echo 'magichunt: cannot save {s}: No space left on device (os error 28)' >&2; exit 2; fi\n\
             exit 0\n",
            c = count.display(),
            s = dir.path().join("best.json").display()
        ),
    )
    .unwrap();
    fs::set_permissions(&stub, fs::Permissions::from_mode(0o755)).unwrap();
    let o = Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/overnight.sh"))
        .arg("--store")
        .arg(dir.path().join("best.json"))
        .env("MAGICHUNT", &stub)
        .env("SAVE_RETRY_DELAY", "0.1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(stderr(&o).contains("could not save"), "{}", report(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        report(&o)
    );
    assert_eq!(fs::read_to_string(&count).unwrap().trim(), "2");
}
