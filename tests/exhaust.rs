//! Runs the binary: `exhaust` proofs, magics, shards, resume, and `merge`.

use std::path::Path;
use std::process::{Command, Output};

use magichunt::exhaust::campaign::shard::Shard;
use magichunt::exhaust::{Plan, Searcher, Tally};
use magichunt::store::Store;
use magichunt::{magic, Piece, Square, Target};

use crate::common;
use common::{magichunt, text};

fn exhaust(store: &Path, piece: &str, square: &str, bits: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "exhaust",
        "--piece",
        piece,
        "--square",
        square,
        "--bits",
        bits,
        "--store",
        store.to_str().unwrap(),
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    magichunt(&args)
}

/// `magichunt merge A B --out OUT`.
fn merge(a: &Path, b: &Path, out: &Path) -> Output {
    merge_with(a, b, out, &[])
}

/// `magichunt merge A B --out OUT EXTRA...`.
fn merge_with(a: &Path, b: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    magichunt(&args)
}

fn target(p: Piece, s: &str) -> Target {
    Target::new(p, s.parse::<Square>().unwrap())
}

#[test]
fn bishop_d8_has_no_4_bit_magic() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    // A published proof alone does not stop the search: it is reproduced, with a note.
    let o = exhaust(&store, "bishop", "d8", "4", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("proven impossible by"), "{}", text(&o));
    assert!(
        text(&o).contains("none exists (proof recorded)"),
        "{}",
        text(&o)
    );
    let s = Store::load(&store).unwrap();
    let p: Vec<_> = s.proofs().collect();
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].target, p[0].bits), (target(Piece::Bishop, "d8"), 4));
    let json = std::fs::read_to_string(&store).unwrap();
    assert!(json.contains("\"none\": true"), "{json}");

    // Without a cache of checks, nothing remembers that the part was searched here: the
    // store's proof is only claimed and settles nothing, so two blocks of the done part are
    // re-run first (issue 32); they match, so it stands and nothing is written.
    let before = std::fs::read(&store).unwrap();
    let o = exhaust(&store, "bishop", "d8", "4", &[]);
    assert_eq!(o.status.code(), Some(0));
    for want in ["only claimed", "re-running 2 of its blocks", "already done"] {
        assert!(text(&o).contains(want), "{want}: {}", text(&o));
    }
    assert_eq!(std::fs::read(&store).unwrap(), before);
    // With a cache, the search run here is remembered: the store's own proof settles it,
    // and nothing is searched or written again.
    let cache = dir.path().join("cache.json");
    let with_cache = |extra: &[&str]| {
        let mut args = vec![
            "exhaust",
            "--piece",
            "bishop",
            "--square",
            "d8",
            "--bits",
            "4",
            "--store",
            store.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_magichunt"))
            .env("MAGICHUNT_CACHE", &cache)
            .args(&args)
            .output()
            .unwrap()
    };
    let o = with_cache(&["--recheck"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let before = std::fs::read(&store).unwrap();
    let o = with_cache(&[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o).contains("already proven in"), "{}", text(&o));
    assert_eq!(
        std::fs::read(&store).unwrap(),
        before,
        "a settled question leaves the store as it was"
    );
    // With --recheck, the done part is searched again, to the same residue.
    let residue = |s: &Store| {
        s.exhaust(target(Piece::Bishop, "d8"), 4, 1).unwrap().parts[&1]
            .residue
            .clone()
            .expect("a residue")
    };
    let first = residue(&Store::load(&store).unwrap());
    let o = exhaust(&store, "bishop", "d8", "4", &["--recheck"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("none exists"), "{}", text(&o));
    assert_eq!(residue(&Store::load(&store).unwrap()), first);
}

#[test]
fn bishop_h2_has_4_bit_magics_in_the_part_of_the_published_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let t = target(Piece::Bishop, "h2");
    let plan = Plan::new(t, 4);
    let published = 0x0000_0041_0509_fff0u64;
    let count = 1u64 << 16;
    let k = (published & (plan.tasks() - 1)) % count + 1;
    let shard = format!("{k}/{count}");
    let o = exhaust(&store, "bishop", "h2", "4", &["--shard", &shard]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("part {shard} done")),
        "{}",
        text(&o)
    );
    let s = Store::load(&store).unwrap();
    let e = s.best(t).expect("an entry");
    assert_eq!(e.bits, 4);
    let method = e.method.as_ref().unwrap();
    assert_eq!(method.family, "exhaustive");
    let run = method.run.as_deref().expect("the finishing run is named");
    assert!(run.ends_with(&format!("-exhaust-{k}of{count}")), "{run}");
    assert!(magic::verify(t, 4, e.magic).is_ok());
    let x = s.exhaust(t, 4, count as u32).unwrap();
    let part = &x.parts[&(k as u32)];
    assert!(part.done && part.magics > 0);
    assert!(s.proofs().next().is_none());
}

#[test]
fn four_shards_merged_prove_none_only_when_all_are_done() {
    let dir = tempfile::tempdir().unwrap();
    let stores: Vec<_> = (1..=4)
        .map(|k| dir.path().join(format!("p{k}.json")))
        .collect();
    for (k, s) in stores.iter().enumerate() {
        let shard = format!("{}/4", k + 1);
        let o = exhaust(s, "bishop", "d8", "4", &["--shard", &shard]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(
            text(&o).contains(&format!("part {shard} done")),
            "{}",
            text(&o)
        );
        assert!(Store::load(s).unwrap().proofs().next().is_none());
    }
    let out = dir.path().join("all.json");
    let names: Vec<&str> = stores.iter().map(|p| p.to_str().unwrap()).collect();
    let three = [&["merge"], &names[..3], &["--out", out.to_str().unwrap()]].concat();
    let o = magichunt(&three);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("3/4 parts done"), "{}", text(&o));
    assert!(Store::load(&out).unwrap().proofs().next().is_none());

    let four = [
        &["merge", out.to_str().unwrap(), names[3]][..],
        &["--out", out.to_str().unwrap()],
    ]
    .concat();
    let o = magichunt(&four);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = Store::load(&out).unwrap();
    let p: Vec<_> = s.proofs().collect();
    assert_eq!(p.len(), 1, "{}", text(&o));
    assert_eq!((p[0].target, p[0].bits), (target(Piece::Bishop, "d8"), 4));
}

/// The magics of one part counted by the library, without interruption.
fn part_tally(plan: &Plan, shard: Shard) -> Tally {
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut s = Searcher::new(plan);
    let mut total = Tally::default();
    for j in 0..shard.len(plan.tasks()) {
        total.add(&s.run_task(shard.task(j), &stop).unwrap());
    }
    total
}

#[test]
fn a_run_cut_by_the_time_limit_resumes_to_the_same_count() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let t = target(Piece::Bishop, "h2");
    let shard = Shard {
        index: 7,
        count: 128,
    };
    let mut runs = 0;
    loop {
        runs += 1;
        let o = exhaust(
            &store,
            "bishop",
            "h2",
            "4",
            &["--shard", "7/128", "--time", "1"],
        );
        match o.status.code() {
            Some(0) => break,
            Some(1) => assert!(text(&o).contains("checkpoint saved"), "{}", text(&o)),
            c => panic!("exit {c:?}: {}", text(&o)),
        }
        assert!(runs < 100, "no progress");
    }
    let s = Store::load(&store).unwrap();
    let part = &s.exhaust(t, 4, 128).unwrap().parts[&7];
    let want = part_tally(&Plan::new(t, 4), shard);
    assert!(part.done);
    assert_eq!((part.magics, part.nodes), (want.magics, want.nodes));
}

/// A search stopped before its part is done puts the magic it found into the store's table
/// (verified) all the same, and says so: bishop h2 has magics at 4 bits all over its period.
#[test]
fn a_magic_found_by_a_stopped_search_is_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let t = target(Piece::Bishop, "h2");
    let o = exhaust(
        &store,
        "bishop",
        "h2",
        "4",
        &["--shard", "1/2", "--time", "1"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("magics found so far"), "{}", text(&o));
    let s = Store::load(&store).unwrap();
    let part = &s.exhaust(t, 4, 2).unwrap().parts[&1];
    assert!(
        !part.done && part.magics > 0,
        "stopped after finding magics"
    );
    let e = s.best(t).expect("the magic found is in the table");
    assert_eq!(e.bits, 4);
    assert_eq!(e.method.as_ref().unwrap().family, "exhaustive");
    assert!(magic::verify(t, 4, e.magic).is_ok());
    assert_eq!(
        part.best.as_deref(),
        Some(format!("{:#018x}", e.magic).as_str())
    );
    assert!(
        text(&o).contains(&format!("{:#018x}", e.magic)),
        "{}",
        text(&o)
    );
}

#[test]
fn bad_shards_and_bits_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    for shard in ["0/4", "5/4", "x/y"] {
        let o = exhaust(&store, "bishop", "h2", "4", &["--shard", shard]);
        assert_eq!(o.status.code(), Some(2), "{shard}: {}", text(&o));
    }
    let o = exhaust(&store, "bishop", "h2", "10", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    std::fs::write(&store, "{not json").unwrap();
    let o = exhaust(&store, "bishop", "h2", "4", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&store).unwrap(), "{not json");
}

#[test]
fn merge_conflict_names_both_files_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(Piece::Bishop, "d8");
    let m = magichunt::exhaust::search_all(&Plan::new(t, 5))
        .best
        .unwrap()
        .magic;
    let v = magic::verify(t, 5, m).unwrap();
    let a = dir.path().join("proof.json");
    let b = dir.path().join("magic.json");
    std::fs::write(
        &a,
        r#"{"version": 1, "entries": [], "proofs": [{"piece": "bishop", "square": "d8", "bits": 5, "none": true}]}"#,
    )
    .unwrap();
    std::fs::write(
        &b,
        format!(
            r#"{{"version": 1, "entries": [{{"piece": "bishop", "square": "d8", "bits": 5, "magic": "{}", "max_index": {}}}]}}"#,
            magic::format_magic(m),
            v.max_index
        ),
    )
    .unwrap();
    let out = dir.path().join("out.json");
    // A proof with no evidence does not get in at all...
    let o = merge(&a, &b, &out);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no evidence"), "{}", text(&o));
    assert!(!out.exists());
    // ...and as a claim it still contradicts the magic: both files named.
    let o = merge_with(&a, &b, &out, &["--accept-claimed"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let msg = text(&o);
    assert!(
        msg.contains("proof.json") && msg.contains("magic.json"),
        "{msg}"
    );
    assert!(!out.exists());
    let missing = dir.path().join("missing.json");
    let o = merge(&a, &missing, &out);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!out.exists());
}

#[test]
fn a_store_in_use_by_a_live_process_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    // This test process holds the lock, as a running exhaust would.
    let lock = std::fs::File::create(dir.path().join("s.json.lock")).unwrap();
    lock.try_lock().unwrap();
    let o = exhaust(
        &store,
        "bishop",
        "d8",
        "4",
        &["--recheck", "--shard", "1/4"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("in use"), "{}", text(&o));
    assert!(!store.exists(), "nothing written");

    let other = dir.path().join("o.json");
    Store::new().save(&other).unwrap();
    let o = magichunt(&[
        "merge",
        other.to_str().unwrap(),
        "--out",
        store.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!store.exists(), "nothing written");
}

/// A store's exhaust record, as JSON, of bishop d8 at 9 bits in `shards` parts.
fn d8_record(task_bits: Option<u32>, shards: u32, parts: &str) -> String {
    let split = task_bits.map_or(String::new(), |t| format!(r#""task_bits": {t}, "#));
    format!(
        r#"{{"version": 1, "entries": [], "exhaust": [{{"piece": "bishop", "square": "d8", "bits": 9, "shards": {shards}, {split}"parts": [{parts}]}}]}}"#
    )
}

#[test]
fn a_search_keeps_the_task_split_it_was_begun_with() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(Piece::Bishop, "d8");
    let whole = magichunt::exhaust::search_all(&Plan::new(t, 9));
    assert_eq!(whole.magics, 46_971_044);

    // A new search of a short period cuts it into fewer tasks, and says so in the record.
    let fresh = dir.path().join("fresh.json");
    let o = exhaust(&fresh, "bishop", "d8", "9", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = Store::load(&fresh).unwrap();
    let x = s.exhaust(t, 9, 1).unwrap();
    assert_eq!((x.task_bits, x.magics()), (12, whole.magics));
    assert!(std::fs::read_to_string(&fresh)
        .unwrap()
        .contains(r#""task_bits": 12"#));

    // A search begun by an earlier build (no task_bits: 2^18 tasks) resumes with its split.
    let old = Plan::new(t, 9).with_task_bits(18);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut searcher = Searcher::new(&old);
    let mut begun = Tally::default();
    let done = 100_000;
    for j in 0..done {
        let task = Shard::WHOLE.task_at(j, old.tasks());
        begun.add(&searcher.run_task(task, &stop).unwrap());
    }
    let legacy = dir.path().join("legacy.json");
    let part = format!(
        r#"{{"shard": 1, "done": false, "cursor": "t18:{done}", "magics": {}, "nodes": {}, "seconds": 1.0}}"#,
        begun.magics, begun.nodes
    );
    std::fs::write(&legacy, d8_record(None, 1, &part)).unwrap();
    let o = exhaust(&legacy, "bishop", "d8", "9", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = Store::load(&legacy).unwrap();
    let x = s.exhaust(t, 9, 1).unwrap();
    assert_eq!((x.task_bits, x.magics()), (18, whole.magics));
    assert!(!std::fs::read_to_string(&legacy)
        .unwrap()
        .contains("task_bits"));
}

#[test]
fn parts_of_different_task_splits_are_not_merged() {
    let dir = tempfile::tempdir().unwrap();
    // Parts of earlier builds (no residue), let in as claims.
    let part = |k: u32| {
        format!(
            r#"{{"shard": {k}, "done": true, "magics": 5, "nodes": 900000000, "seconds": 1.0}}"#
        )
    };
    let a = dir.path().join("new-split.json");
    let b = dir.path().join("old-split.json");
    std::fs::write(&a, d8_record(Some(12), 2, &part(1))).unwrap();
    std::fs::write(&b, d8_record(None, 2, &part(2))).unwrap();
    let out = dir.path().join("out.json");
    let o = merge_with(&a, &b, &out, &["--accept-claimed"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let msg = text(&o);
    assert!(msg.contains("different tasks"), "{msg}");
    assert!(
        msg.contains("new-split.json") && msg.contains("old-split.json"),
        "{msg}"
    );
    assert!(!out.exists());

    // A record that names more task bits than any build uses is refused on load.
    std::fs::write(&a, d8_record(Some(40), 2, &part(1))).unwrap();
    let o = exhaust(&a, "bishop", "d8", "9", &["--shard", "2/2"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("task_bits 40"), "{}", text(&o));
}

#[test]
fn task_bits_choose_the_split_of_a_new_search_and_must_match_a_begun_one() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(Piece::Bishop, "d8");
    let store = dir.path().join("s.json");

    // A finer split than the default (12 task bits on this period) settles the same question
    // in two parts, and the record says how it was cut.
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let o = exhaust(
            &store,
            "bishop",
            "d8",
            "4",
            &["--shard", &shard, "--task-bits", "16"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    let s = Store::load(&store).unwrap();
    let x = s.exhaust(t, 4, 2).unwrap();
    assert_eq!(x.task_bits, 16);
    assert_eq!(x.magics(), 0);
    let p: Vec<_> = s.proofs().collect();
    assert_eq!(p.len(), 1, "the store's own proof of none");
    assert_eq!((p[0].target, p[0].bits), (t, 4));

    // A begun search keeps its split: another --task-bits is refused, naming both.
    let before = std::fs::read(&store).unwrap();
    let o = exhaust(
        &store,
        "bishop",
        "d8",
        "4",
        &["--shard", "1/2", "--recheck", "--task-bits", "14"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let msg = text(&o);
    assert!(msg.contains("16 task bits, not 14"), "{msg}");
    assert_eq!(std::fs::read(&store).unwrap(), before, "nothing written");

    // Out of range.
    for bad in ["0", "33", "x"] {
        let o = exhaust(&store, "bishop", "d8", "4", &["--task-bits", bad]);
        assert_eq!(o.status.code(), Some(2), "--task-bits {bad}: {}", text(&o));
    }
}

/// `--order high` runs end to end: the proof says how it was obtained, the store keeps the
/// order, and a second run in the other order is refused with one line, the store untouched.
#[test]
fn the_high_order_proves_and_keeps_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let o = exhaust(&store, "bishop", "d8", "4", &["--order", "high"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("none exists"), "{}", text(&o));
    let before = std::fs::read_to_string(&store).unwrap();
    assert!(before.contains(r#""order":"high""#) || before.contains(r#""order": "high""#));
    assert!(
        before.contains("high bits first"),
        "the proof's method names the order"
    );
    assert!(before.contains("--order high"), "and its command");
    let o = exhaust(
        &store,
        "bishop",
        "d8",
        "4",
        &["--order", "low", "--recheck"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    let errors: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("magichunt:"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", text(&o));
    assert!(
        errors[0].contains("in the high order, not low"),
        "{}",
        errors[0]
    );
    assert_eq!(std::fs::read_to_string(&store).unwrap(), before);
    let o = exhaust(&store, "bishop", "d8", "4", &["--order", "sideways"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// `--order trim` likewise: the proof names its method and command, and the store its order.
#[test]
fn the_trim_order_proves_and_keeps_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let o = exhaust(&store, "bishop", "d8", "4", &["--order", "trim"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("none exists"), "{}", text(&o));
    let before = std::fs::read_to_string(&store).unwrap();
    assert!(before.contains(r#""order":"trim""#) || before.contains(r#""order": "trim""#));
    assert!(
        before.contains("windows trimmed"),
        "the proof's method names the order"
    );
    assert!(before.contains("--order trim"), "and its command");
    let o = exhaust(
        &store,
        "bishop",
        "d8",
        "4",
        &["--order", "high", "--recheck"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("in the trim order, not high"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(&store).unwrap(), before);
}
