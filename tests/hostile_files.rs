//! Issue 72, classes 1 to 3, each run through the binary: the files magichunt makes beside a
//! store (its lock, the temporary file of a save) never follow a link; the single writer
//! holds when the lock file is removed or replaced; merge decides the output's table-level
//! fields, and every kind of save loads again. Each of these lost or cut a file before.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use magichunt::layout::PackedTable;
use magichunt::pool::Pool;
use magichunt::store::Store;
use magichunt::table::Table;
use serde_json::{json, Value};

use crate::common::report;

const FIXTURE: &str = "tests/golden/store.json";

fn mh_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs")
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

/// Exit 2 after running (its notes before), the last line on stderr containing `want`.
fn ended_refused(o: &Output, want: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", report(o));
    let err = stderr(o);
    assert!(
        err.trim_end()
            .lines()
            .last()
            .is_some_and(|l| l.contains(want)),
        "wanted {want:?} last: {}",
        report(o)
    );
    assert!(!err.contains("panicked"), "{}", report(o));
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", report(o));
}

fn fixture_in(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    fs::copy(FIXTURE, &p).unwrap();
    p
}

fn lock_of(store: &Path) -> PathBuf {
    let mut s = store.as_os_str().to_os_string();
    s.push(".lock");
    PathBuf::from(s)
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

/// A store holding one entry the fixture lacks: rook a1, from the shipped store.
fn other_store(dir: &Path) -> PathBuf {
    let shipped = read_json(Path::new("results/best.json"));
    let a1 = shipped["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["piece"] == "rook" && e["square"] == "a1")
        .unwrap()
        .clone();
    let p = dir.join("other.json");
    fs::write(&p, json!({"version": 1, "entries": [a1]}).to_string()).unwrap();
    p
}

// 1. The files beside a store follow no link.

#[test]
fn a_lock_file_that_is_a_link_or_another_file_is_refused_and_nothing_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = fixture_in(d, "s.json");
    let victim = d.join("victim.txt");
    fs::write(&victim, "a file of someone else's").unwrap();
    let lock = lock_of(&store);
    let other = other_store(d);
    for plant in [
        "symlink to the store",
        "hard link to the store",
        "symlink to another file",
        "hard link to another file",
        "dangling symlink",
        "a file that is no lock",
    ] {
        let _ = fs::remove_file(&lock);
        match plant {
            "symlink to the store" => std::os::unix::fs::symlink("s.json", &lock).unwrap(),
            "hard link to the store" => fs::hard_link(&store, &lock).unwrap(),
            "symlink to another file" => std::os::unix::fs::symlink(&victim, &lock).unwrap(),
            "hard link to another file" => fs::hard_link(&victim, &lock).unwrap(),
            "dangling symlink" => std::os::unix::fs::symlink(d.join("new"), &lock).unwrap(),
            _ => fs::write(&lock, "notes, not a pid\n").unwrap(),
        }
        let before = (fs::read(&store).unwrap(), fs::read(&victim).unwrap());
        for args in [
            vec![
                "hunt", "--quiet", "--piece", "bishop", "--time", "1s", "--store", "s.json",
            ],
            vec!["merge", other.to_str().unwrap(), "--out", "s.json"],
            vec![
                "exhaust", "--piece", "bishop", "--square", "d8", "--bits", "4", "--store",
                "s.json",
            ],
        ] {
            let o = mh_in(d, &args);
            // `exhaust` may say first that the question is settled by a published proof.
            ended_refused(&o, "lock file");
            let after = (fs::read(&store).unwrap(), fs::read(&victim).unwrap());
            assert!(
                after == before,
                "{plant}: {args:?} changed a file: {}",
                report(&o)
            );
        }
        assert!(!d.join("new").exists(), "{plant}: a link was followed");
        let m = fs::symlink_metadata(&lock).unwrap();
        assert_eq!(
            m.file_type().is_symlink(),
            plant.contains("symlink"),
            "{plant}: the plant was replaced"
        );
    }
    let _ = fs::remove_file(&lock);
    ok(&mh_in(
        d,
        &["merge", other.to_str().unwrap(), "--out", "s.json"],
    ));
    assert!(!lock.exists(), "its writer removes its own lock");
}

#[test]
fn the_temporary_file_of_a_save_is_made_exclusively_never_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = fixture_in(d, "s.json");
    let victim = d.join("victim.txt");
    fs::write(&victim, "victim").unwrap();
    // The names a save used before (`.NAME.PID.tmp`), planted for this very process as a
    // symlink and a hard link to the victim: a save receives nothing through them.
    let pid = std::process::id();
    std::os::unix::fs::symlink(&victim, d.join(format!(".s.json.{pid}.tmp"))).unwrap();
    fs::hard_link(&victim, d.join(format!(".s.json.{pid}.0.tmp"))).unwrap();
    let s = Store::load(&store).unwrap();
    s.save(&store).unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "victim");
    let (m, v) = (
        fs::metadata(&store).unwrap(),
        fs::metadata(&victim).unwrap(),
    );
    assert_ne!(m.ino(), v.ino(), "the store is not the victim's inode");
    assert_eq!(m.nlink(), 1);
    assert!(Store::load(&store).is_ok());
    // A save's temporary file has a name nobody can plant beforehand: none is left, and
    // none of the plants was touched.
    let names: Vec<String> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
}

#[test]
fn a_certificate_is_written_where_a_link_was_never_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture_in(d, "s.json");
    let victim = d.join("victim.txt");
    fs::write(&victim, "victim").unwrap();
    fs::create_dir(d.join("proofs")).unwrap();
    let cert = d.join("proofs/bishop-b8-3.lrat.gz");
    for target in [victim.clone(), d.join("nowhere")] {
        let _ = fs::remove_file(&cert);
        std::os::unix::fs::symlink(&target, &cert).unwrap();
        let o = mh_in(
            d,
            &[
                "prove",
                "--piece",
                "bishop",
                "--square",
                "b8",
                "--bits",
                "3",
                "--recheck",
                "--store",
                "s.json",
            ],
        );
        ok(&o);
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            "victim",
            "{}",
            report(&o)
        );
        assert!(!d.join("nowhere").exists(), "a dangling link was followed");
        let m = fs::symlink_metadata(&cert).unwrap();
        assert!(m.is_file() && m.nlink() == 1, "the link stayed: {m:?}");
    }
    let o = mh_in(
        d,
        &[
            "prove",
            "--piece",
            "bishop",
            "--square",
            "b8",
            "--bits",
            "3",
            "--store",
            "s.json",
            "--check-certificates",
        ],
    );
    ok(&o);
}

// 2. The single writer holds when its lock file is removed.

/// A hunt of the rooks of a copy of the shipped store (`s.json`), whose records it does not
/// beat in seconds: its one save is the last, after `secs`.
fn spawn_hunt(d: &Path, secs: &str) -> Child {
    fs::copy("results/best.json", d.join("s.json")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .current_dir(d)
        .args(["hunt", "--quiet", "--threads", "1", "--piece", "rook"])
        .args(["--time", secs, "--store", "s.json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, sig: &str) {
    let s = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(s.success());
}

fn wait_for(p: &Path) {
    let t0 = Instant::now();
    while !p.exists() && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(p.exists(), "{} never appeared", p.display());
}

#[test]
fn a_hunt_whose_lock_was_removed_never_drops_what_another_writer_saved() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("s.json");
    fixture_in(d, "other.json");
    let other = d.join("other.json");
    let hunt = spawn_hunt(d, "3s");
    wait_for(&lock_of(&store));
    // Stopped, so that the steps below happen between two of its saves.
    signal(&hunt, "-STOP");
    // A lock file is an input of every output: no export replaces it.
    let o = mh_in(
        d,
        &[
            "export",
            "--format",
            "c",
            "--store",
            "s.json",
            "--out",
            "s.json.lock",
        ],
    );
    refused(&o, "lock file");
    // Removed as one removes a "stale" lock; a merge then takes the store and saves.
    fs::remove_file(lock_of(&store)).unwrap();
    let o = mh_in(d, &["merge", other.to_str().unwrap(), "--out", "s.json"]);
    ok(&o);
    let merged = fs::read(&store).unwrap();
    signal(&hunt, "-CONT");
    let o = hunt.wait_with_output().unwrap();
    ended_refused(&o, "no longer holds the store");
    assert!(
        stderr(&o).contains("written by another process"),
        "{}",
        report(&o)
    );
    assert_eq!(
        fs::read(&store).unwrap(),
        merged,
        "the merge's save was dropped"
    );
    assert!(Store::load(&store).is_ok());
}

#[test]
fn a_lock_file_only_removed_is_taken_again_and_the_hunt_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("s.json");
    let hunt = spawn_hunt(d, "2s");
    wait_for(&lock_of(&store));
    signal(&hunt, "-STOP");
    fs::remove_file(lock_of(&store)).unwrap();
    signal(&hunt, "-CONT");
    let o = hunt.wait_with_output().unwrap();
    ok(&o);
    assert!(stderr(&o).contains("lock is taken again"), "{}", report(&o));
    assert!(Store::load(&store).is_ok());
    assert!(
        !lock_of(&store).exists(),
        "the lock taken again is released"
    );
}

#[test]
fn a_lock_file_is_never_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture_in(d, "s.json");
    for args in [
        vec![
            "export",
            "--format",
            "c",
            "--store",
            "s.json",
            "--out",
            "s.json.lock",
        ],
        vec!["compare", "--store", "s.json", "--svg", "s.json.lock"],
        vec!["merge", "s.json", "--out", "s.json.lock"],
        vec![
            "hunt",
            "--piece",
            "bishop",
            "--time",
            "1s",
            "--store",
            "s.json.lock",
        ],
    ] {
        let o = mh_in(d, &args);
        refused(&o, "lock file");
        assert!(!d.join("s.json.lock").exists(), "{args:?}");
    }
}

// 3. Merge decides the output's table-level fields; every save loads again.

/// The top-level keys of a store as saved.
fn top_keys(p: &Path) -> Vec<String> {
    read_json(p).as_object().unwrap().keys().cloned().collect()
}

#[test]
fn a_merged_published_table_leaves_a_store_that_every_command_takes() {
    for (table, formula) in [
        ("black-magics-annuss-fiekas-2017.json", "black"),
        ("annuss-fixed-shift-2008.json", "plain"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let store = fixture_in(d, "s.json");
        let published = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("results/published")
            .join(table);
        ok(&mh_in(
            d,
            &["merge", published.to_str().unwrap(), "--out", "s.json"],
        ));
        for key in top_keys(&store) {
            assert!(
                ["version", "about", "entries", "effort"].contains(&key.as_str()),
                "{table}: the merged store carries {key}"
            );
        }
        let s = Store::load(&store).unwrap();
        assert_eq!(
            s.entries()
                .filter(|e| e.formula.name() == formula && e.target.to_string() == "rook a1")
                .count(),
            1,
            "{table}"
        );
        ok(&mh_in(d, &["compare", "--store", "s.json"]));
        ok(&mh_in(d, &["verify", "--store", "s.json"]));
        let o = mh_in(
            d,
            &[
                "hunt",
                "--quiet",
                "--threads",
                "1",
                "--piece",
                "bishop",
                "--time",
                "1s",
                "--store",
                "s.json",
            ],
        );
        ok(&o);
        assert!(Store::load(&store).is_ok(), "{table}: {}", report(&o));
        ok(&mh_in(d, &["verify", "--store", "s.json"]));
    }
}

#[test]
fn a_store_that_says_formula_black_at_its_top_saves_as_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("s.json");
    // Annuss and Fiekas's black magic for rook a8 at 12 bits, read as black by the top level.
    fs::write(
        &store,
        json!({"version": 1, "formula": "black", "entries": [
            {"piece": "rook", "square": "a8", "bits": 12, "magic": "0xfffff37eefefdfbe"}]})
        .to_string(),
    )
    .unwrap();
    let o = mh_in(
        d,
        &[
            "hunt",
            "--quiet",
            "--threads",
            "1",
            "--piece",
            "bishop",
            "--square",
            "a1",
            "--time",
            "1s",
            "--store",
            "s.json",
        ],
    );
    ok(&o);
    assert!(!top_keys(&store).contains(&"formula".to_string()));
    let s = Store::load(&store).unwrap();
    let a8 = s
        .entries()
        .find(|e| e.target.to_string() == "rook a8")
        .unwrap();
    assert_eq!(
        a8.formula.name(),
        "black",
        "the entry keeps the formula it was read with"
    );
    assert!(s
        .entries()
        .any(|e| e.target.to_string() == "bishop a1" && e.formula.name() == "plain"));
    ok(&mh_in(d, &["compare", "--store", "s.json"]));
}

#[test]
fn every_kind_of_save_loads_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = fixture_in(d, "s.json");
    let other = other_store(d);
    let run = |args: &[&str]| {
        let o = mh_in(d, args);
        ok(&o);
        o
    };
    run(&[
        "hunt",
        "--quiet",
        "--threads",
        "1",
        "--piece",
        "bishop",
        "--time",
        "1s",
        "--store",
        "s.json",
    ]);
    Store::load(&store).expect("a hunt's save");
    run(&[
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
        "s.json",
    ]);
    Store::load(&store).expect("an exhaust's save");
    run(&[
        "prove", "--piece", "bishop", "--square", "b8", "--bits", "3", "--store", "s.json",
    ]);
    Store::load(&store).expect("a prove's save");
    run(&[
        "merge",
        "s.json",
        other.to_str().unwrap(),
        "--out",
        "m.json",
    ]);
    Store::load(&d.join("m.json")).expect("a merge's save");
    run(&[
        "hunt",
        "--quiet",
        "--objective",
        "slots",
        "--piece",
        "bishop",
        "--square",
        "a1",
        "--pool",
        "p.json",
        "--time",
        "1s",
        "--threads",
        "1",
    ]);
    Pool::read(&d.join("p.json")).expect("a pool's save");
    run(&[
        "pack",
        "--store",
        "m.json",
        "--steps",
        "0",
        "--out",
        "packed.json",
    ]);
    let t = Table::read(&d.join("packed.json")).expect("a packed table");
    PackedTable::from_table(&t)
        .unwrap()
        .check()
        .expect("a packed table that holds");
    run(&["verify", "--file", "packed.json"]);
    for layout in ["fancy", "tight", "packed"] {
        run(&[
            "export", "--format", "json", "--layout", layout, "--store", "m.json", "--out",
            "e.json",
        ]);
        let o = run(&["verify", "--file", "e.json"]);
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("offsets and table_sizes hold"),
            "{layout}: {}",
            report(&o)
        );
        assert!(Table::read(&d.join("e.json")).is_ok());
    }
}
