//! Issue 24, point 1: the installed binary works anywhere. It is copied into a temporary
//! install root (as `cargo install --path . --root ROOT` would put it) and run from an empty
//! folder with HOME pointing to an empty temporary home: export, compare and a short hunt use
//! the table built into it and the user's store in the data folder, and write nothing else.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use magichunt::compare::{Report, Theirs};
use magichunt::shipped;
use magichunt::store::Store;

/// An install root, an empty home and an empty working folder.
struct World {
    _keep: [tempfile::TempDir; 3],
    bin: PathBuf,
    home: PathBuf,
    work: PathBuf,
}

impl World {
    fn new() -> World {
        let (root, home, work) = (tmp(), tmp(), tmp());
        let bin = root.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let bin = bin.join("magichunt");
        std::fs::copy(env!("CARGO_BIN_EXE_magichunt"), &bin).unwrap();
        World {
            bin,
            home: home.path().to_path_buf(),
            work: work.path().to_path_buf(),
            _keep: [root, home, work],
        }
    }

    /// Runs the installed binary in the working folder, with only HOME saying where the user
    /// is (no MAGICHUNT_STORE, no XDG_DATA_HOME).
    ///
    /// A binary just copied can be briefly busy ("Text file busy"): while it was written,
    /// another test thread may have forked a child that still held the write descriptor until
    /// its exec. Such a spawn is tried again.
    fn run(&self, args: &[&str]) -> Output {
        let mut tries = 0;
        loop {
            let o = Command::new(&self.bin)
                .args(args)
                .current_dir(&self.work)
                .env("HOME", &self.home)
                .env_remove("XDG_DATA_HOME")
                .env_remove("MAGICHUNT_STORE")
                .output();
            match o {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                o => return o.unwrap(),
            }
        }
    }

    /// The user's own store.
    fn mine(&self) -> PathBuf {
        self.home.join(".local/share/magichunt/mine.json")
    }

    fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.work)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}{}", out(o), err(o));
}

/// The line a reading command prints when it reads the built-in table.
const BUILT_IN: &str = "magichunt: reading the table built into magichunt";

#[test]
fn export_compare_and_a_short_hunt_from_an_empty_folder() {
    if !cfg!(unix) {
        return; // HOME is how a Unix user's data folder is found
    }
    let w = World::new();

    // Export into the engine's folder: the built-in table, said in one line.
    let o = w.run(&["export", "--format", "c", "--out", "magics.h"]);
    ok(&o);
    let stderr = err(&o);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with(BUILT_IN))
        .collect::<Vec<_>>();
    assert_eq!(said.len(), 1, "{}", err(&o));
    assert!(said[0].contains(w.mine().to_str().unwrap()), "{}", said[0]);
    let header = std::fs::read_to_string(w.work.join("magics.h")).unwrap();
    assert!(header.contains(shipped::NAME), "{}", &header[..600]);
    assert!(
        header.contains("Filled on the spot: none; all 128 squares come from the store."),
        "{}",
        &header[..2000]
    );
    assert_eq!(w.files(), ["magics.h"]);
    assert!(
        !w.mine().exists(),
        "a reading command wrote the user's store"
    );

    // Compare: the built-in table against the published records, as the library sees it.
    let o = w.run(&["compare"]);
    ok(&o);
    assert_eq!(
        err(&o).lines().filter(|l| l.starts_with(BUILT_IN)).count(),
        1
    );
    let report = Report::new(shipped::store(), shipped::NAME, &Theirs::published());
    // The built-in table's own proofs cannot be checked here (their certificates are not
    // built in): they show as claimed, beside the published ones that count.
    assert!(
        report.optimal() + report.claimed() > 100,
        "{} + {}",
        report.optimal(),
        report.claimed()
    );
    let summary = format!("{} proven optimal", report.optimal());
    assert!(out(&o).contains(&summary), "{summary}\n{}", out(&o));
    assert!(out(&o).contains(shipped::NAME));

    // A two-second hunt starts the user's store from the built-in table and writes there.
    let o = w.run(&["hunt", "--time", "2s", "--threads", "1", "--quiet"]);
    ok(&o);
    assert!(
        err(&o).contains(&format!(
            "magichunt: started {} from the table built into magichunt",
            w.mine().display()
        )),
        "{}",
        err(&o)
    );
    let mine = Store::load(&w.mine()).expect("the user's store loads");
    for e in shipped::store().entries() {
        let m = mine.best_with(e.target, e.formula).expect("kept");
        assert!(m.rank() <= e.rank(), "{}", e.target);
    }
    assert_eq!(
        mine.proofs().count(),
        shipped::store().proofs().count(),
        "every built-in proof kept"
    );
    assert!(mine
        .proofs()
        .all(|p| shipped::provenance_of(p) == Some(shipped::PROVENANCE)));
    assert_eq!(
        w.files(),
        ["magics.h"],
        "the hunt wrote into the engine's folder"
    );

    // From now on the reading commands read the user's store, and say nothing of the built-in
    // table. Its SAT proofs' certificates stayed in the checkout: one line says so, and
    // nothing calls them failing.
    let o = w.run(&["compare"]);
    ok(&o);
    assert!(!err(&o).contains(BUILT_IN), "{}", err(&o));
    let stderr = err(&o);
    let said: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(said.len(), 1, "{}", err(&o));
    assert!(
        said[0]
            .contains("SAT proofs have no certificate beside the store, so they count as claimed"),
        "{}",
        said[0]
    );
    assert!(!err(&o).contains("does not hold"), "{}", err(&o));
    assert!(out(&o).contains(w.mine().to_str().unwrap()));

    // --store is used as it is: a missing one is an error, never the built-in table.
    let o = w.run(&["export", "--format", "c", "--store", "typo.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("typo.json: no such store"), "{}", err(&o));
}

#[test]
fn show_verify_and_pack_read_the_built_in_table_and_the_environment_names_a_store() {
    if !cfg!(unix) {
        return;
    }
    let w = World::new();
    let o = w.run(&["show", "--piece", "bishop", "--square", "c1"]);
    ok(&o);
    assert!(
        out(&o).contains("proven optimal      claimed: the store records no magic at 4 bits"),
        "{}",
        out(&o)
    );
    assert_eq!(
        err(&o).lines().filter(|l| l.starts_with(BUILT_IN)).count(),
        1
    );

    let o = w.run(&["verify"]);
    ok(&o);
    assert!(
        out(&o).contains(&format!(
            "{}: 256 entries, 256 valid, 0 invalid",
            shipped::NAME
        )),
        "{}",
        out(&o)
    );

    let o = w.run(&["pack", "--steps", "0", "--out", "packed.json"]);
    ok(&o);
    assert!(
        err(&o).contains(&format!("128 squares from {}", shipped::NAME)),
        "{}",
        err(&o)
    );
    assert_eq!(w.files(), ["packed.json"]);

    // MAGICHUNT_STORE names the default store: started there by a writing command.
    let named = w.work.join("elsewhere.json");
    let o = Command::new(&w.bin)
        .args([
            "hunt",
            "--time",
            "1s",
            "--threads",
            "1",
            "--quiet",
            "--piece",
            "bishop",
        ])
        .current_dir(&w.work)
        .env("HOME", &w.home)
        .env("MAGICHUNT_STORE", &named)
        .output()
        .unwrap();
    ok(&o);
    assert!(named.is_file(), "{}", err(&o));
    assert!(!w.mine().exists());
    assert!(!Path::new(&w.home).join(".local").exists());
}

#[test]
fn a_store_started_by_an_older_magichunt_is_told_what_this_one_ships_and_merges_it() {
    if !cfg!(unix) {
        return;
    }
    let w = World::new();
    // The user's store as an older build would have started it: the built-in table without
    // rook b1's plain magic and proof (the 2026-11-28 records).
    let mut json: serde_json::Value = serde_json::from_str(&shipped::store().to_json()).unwrap();
    let rook_b1 = |v: &serde_json::Value| v["piece"] == "rook" && v["square"] == "b1";
    for list in ["entries", "proofs"] {
        json[list]
            .as_array_mut()
            .unwrap()
            .retain(|v| !(rook_b1(v) && v.get("formula").is_none_or(|f| f == "plain")));
    }
    std::fs::create_dir_all(w.mine().parent().unwrap()).unwrap();
    std::fs::write(w.mine(), serde_json::to_string_pretty(&json).unwrap()).unwrap();
    let before = std::fs::read(w.mine()).unwrap();

    // Reading it says what it lacks and how to bring it in, and changes nothing.
    let o = w.run(&["compare"]);
    ok(&o);
    let merge = format!("`magichunt merge --shipped --out {}`", w.mine().display());
    let stderr = err(&o);
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains(" lacks ")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains("rook b1: a 10-bit magic, against none; rook b1: none exists at 9 bits"),
        "{}",
        said[0]
    );
    assert!(
        said[0].ends_with(&format!("{merge} brings them in")),
        "{}",
        said[0]
    );
    assert_eq!(std::fs::read(w.mine()).unwrap(), before);
    // So does a hunt on it.
    let o = w.run(&["hunt", "--time", "1s", "--threads", "1", "--quiet"]);
    ok(&o);
    assert!(err(&o).contains(&merge), "{}", err(&o));

    // The merge it names brings them in; then nothing is said.
    let o = w.run(&["merge", "--shipped", "--out", w.mine().to_str().unwrap()]);
    ok(&o);
    let mine = Store::load(&w.mine()).unwrap();
    let b1 = magichunt::Target::new(magichunt::Piece::Rook, "b1".parse().unwrap());
    assert_eq!(mine.best(b1).map(|e| e.bits), Some(10));
    assert_eq!(mine.claimed_none(b1), Some(9));
    assert!(shipped::store().leads_over(&mine).is_empty());
    let o = w.run(&["compare"]);
    ok(&o);
    assert!(!err(&o).contains(" lacks "), "{}", err(&o));

    // A store named by --store is the user's to curate: no note.
    std::fs::write(w.work.join("own.json"), &before).unwrap();
    let o = w.run(&["compare", "--store", "own.json"]);
    ok(&o);
    assert!(!err(&o).contains(" lacks "), "{}", err(&o));

    // merge needs an input or --shipped.
    let o = w.run(&["merge", "--out", "x.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}
