//! Pools and the packer that chooses among them, end to end through the binary: a pool
//! hunted, verified whole, merged without loss, packed with the store's magics into a table
//! that `verify --file` accepts; `compare` reports slots used, spans and arrays.

use std::path::Path;
use std::process::{Command, Output};

fn magichunt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .args(args)
        .env("MAGICHUNT_STORE", "results/best.json")
        .output()
        .expect("binary runs")
}

fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_pool_is_hunted_verified_merged_and_packed_into_a_checked_table() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json.gz"), dir.path().join("b.json"));
    for (pool, seed) in [(&a, "1"), (&b, "2")] {
        ok(&magichunt(&[
            "hunt",
            "--objective",
            "slots",
            "--piece",
            "bishop",
            "--square",
            "a1,b2,c3",
            "--pool",
            s(pool),
            "--time",
            "2s",
            "--seed",
            seed,
            "--threads",
            "1",
        ]));
    }
    let verified = ok(&magichunt(&["verify", "--file", s(&a), "--per-square"]));
    assert!(verified.contains(" 0 invalid"), "{verified}");
    assert!(
        verified.contains("pool ") && verified.contains("questions"),
        "{verified}"
    );
    let count = |p: &Path| -> usize {
        let out = ok(&magichunt(&["verify", "--file", s(p)]));
        out.split(": ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (na, nb) = (count(&a), count(&b));
    let merged = dir.path().join("m.json.gz");
    let out = ok(&magichunt(&["merge", s(&a), s(&b), "--out", s(&merged)]));
    assert!(out.contains("merged 2 pools"), "{out}");
    // Two seeds rarely find one pattern twice: the union is at least the larger side.
    let nm = count(&merged);
    assert!(nm >= na.max(nb) && nm <= na + nb, "{na} + {nb} -> {nm}");
    // A store and a pool do not merge; the pool is left as it was.
    let before = std::fs::read(&merged).unwrap();
    let o = magichunt(&[
        "merge",
        s(&merged),
        "results/best.json",
        "--out",
        s(&merged),
    ]);
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a pool"));
    assert_eq!(std::fs::read(&merged).unwrap(), before);

    let table = dir.path().join("packed.json");
    ok(&magichunt(&[
        "pack",
        "--store",
        "results/best.json",
        "--pool",
        s(&merged),
        "--gap",
        "512",
        "--choices",
        "2",
        "--steps",
        "300",
        "--out",
        s(&table),
    ]));
    let checked = ok(&magichunt(&["verify", "--file", s(&table)]));
    assert!(
        checked.contains("packed layout, 128 squares") && checked.contains(": valid"),
        "{checked}"
    );
    let text = std::fs::read_to_string(&table).unwrap();
    for key in ["\"algorithm\"", "\"command\"", "\"cpu_seconds\"", "pool"] {
        assert!(text.contains(key), "{key} missing from the table's meta");
    }
}

#[test]
fn pool_flags_go_with_the_slots_objective_only() {
    for args in [
        &["hunt", "--gap", "64", "--time", "1s"][..],
        &["hunt", "--pool", "p.json", "--time", "1s"],
        &[
            "hunt",
            "--objective",
            "slots",
            "--gap",
            "5000",
            "--pool",
            "p.json",
            "--time",
            "1s",
        ],
    ] {
        let o = magichunt(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!Path::new("p.json").exists());
    }
}

#[test]
fn compare_reports_slots_spans_and_arrays_of_the_records_and_the_floor() {
    let out = ok(&magichunt(&[
        "compare",
        "--store",
        "results/best.json",
        "--packed",
        "results/packed.json",
    ]));
    for row in [
        "annuss-fixed-shift-2017 (plain, fixed shift)",
        "73195 (68839 + 4356)",
        "230676",
        "88772",
        "72118 (68404 + 3714)",
        "123500",
        "87988",
        "6328 (4900 + 1428)",
    ] {
        assert!(out.contains(row), "{row} missing:\n{out}");
    }
}

#[test]
fn the_shipped_smallest_table_verifies_whole_and_says_how_it_was_made() {
    let out = ok(&magichunt(&[
        "verify",
        "--file",
        "results/packed-pool.json",
    ]));
    assert!(out.contains("128 entries, 128 valid, 0 invalid"), "{out}");
    let size: u64 = out
        .split("shared size")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a shared size line");
    assert!(size < 80_000, "{size} entries");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("results/packed-pool.json").unwrap())
            .unwrap();
    for key in ["algorithm", "command", "cpu_seconds"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    assert!(
        v["formula"] == "plain" || out.contains("formula plain"),
        "{out}"
    );
    // The pool it came from verifies whole too.
    let pool = ok(&magichunt(&[
        "verify",
        "--file",
        "results/pool-plain.json.gz",
    ]));
    assert!(
        pool.contains(" 0 invalid") && pool.contains("gap 512"),
        "{pool}"
    );
}

/// A pool hunt given its own pool as `--starts` refuses (exit 2) and leaves the file as it was:
/// the starts are an input the saved pool may not replace.
#[test]
fn a_pool_hunt_never_replaces_its_starts() {
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("pool.json");
    let hunt = |extra: &[&str]| {
        let mut args = vec![
            "hunt",
            "--objective",
            "slots",
            "--piece",
            "bishop",
            "--square",
            "a1",
            "--pool",
            s(&pool),
            "--time",
            "1s",
            "--threads",
            "1",
        ];
        args.extend_from_slice(extra);
        magichunt(&args)
    };
    ok(&hunt(&[]));
    let before = std::fs::read(&pool).unwrap();
    let o = hunt(&["--starts", s(&pool)]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(&pool).unwrap(), before, "the pool changed");
}

#[test]
fn a_pool_hunt_never_replaces_a_store_or_a_packed_table() {
    let dir = tempfile::tempdir().unwrap();
    for (name, source) in [
        ("store.json", "results/best.json"),
        ("packed.json", "results/packed-pool.json"),
    ] {
        let path = dir.path().join(name);
        std::fs::copy(source, &path).unwrap();
        let before = std::fs::read(&path).unwrap();
        let o = magichunt(&[
            "hunt",
            "--objective",
            "slots",
            "--piece",
            "bishop",
            "--square",
            "a1",
            "--pool",
            s(&path),
            "--time",
            "1s",
            "--threads",
            "1",
        ]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "{name} changed");
        if name == "store.json" {
            continue; // merging a store into itself is a store merge, not a pool's
        }
        let merged = magichunt(&["merge", s(&path), "--out", s(&path)]);
        assert_ne!(merged.status.code(), Some(0));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{name} changed by merge"
        );
    }
}

/// `--starts`: descents start from a published table's magics, and what the pool takes is
/// new: never a start's magic, never its slot pattern; the descents' magics say so.
#[test]
fn descents_from_published_starts_never_take_a_start_or_its_pattern() {
    use magichunt::layout::Pattern;
    use magichunt::table::Table;
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("p.json");
    let starts = "results/published/annuss-fixed-shift-2017.json";
    let out = ok(&magichunt(&[
        "hunt",
        "--objective",
        "slots",
        "--piece",
        "bishop",
        "--square",
        "b2,c1",
        "--pool",
        s(&pool),
        "--starts",
        starts,
        "--tries",
        "6000000",
        "--seed",
        "3",
        "--threads",
        "1",
    ]));
    assert!(out.contains("bishop b2 at 9 bits"), "{out}");
    let published = Table::read(Path::new(starts)).unwrap();
    let taken = Table::read(&pool).unwrap();
    let shape = |e: &magichunt::table::Entry| Pattern::of(e).shape().collect::<Vec<u32>>();
    let mut descended = 0;
    for e in &taken.entries {
        let start = published
            .entries
            .iter()
            .find(|p| p.target == e.target)
            .unwrap();
        assert_ne!(e.magic, start.magic, "{}", e.target);
        assert_ne!(shape(e), shape(start), "{}: a start's pattern", e.target);
        if e.method.as_ref().is_some_and(|m| m.family == "descend") {
            descended += 1;
        }
    }
    assert!(descended > 0, "no magic from a descent");
    // A start table is read like any table: a missing one is a clear error.
    let o = magichunt(&[
        "hunt",
        "--objective",
        "slots",
        "--piece",
        "bishop",
        "--square",
        "b2",
        "--pool",
        s(&pool),
        "--starts",
        "no/such.json",
        "--tries",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// `pack --fixed-shift`: every rook at 12 bits and every bishop at 9 (the store's reduced-bit
/// magics taken at those bits, each saying from which), checked whole; a starting table that
/// is not fixed shift is refused (exit 2) and nothing is written.
#[test]
fn pack_fixed_shift_puts_every_rook_at_12_bits_and_every_bishop_at_9() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fixed.json");
    ok(&magichunt(&[
        "pack",
        "--store",
        "results/best.json",
        "--fixed-shift",
        "--steps",
        "0",
        "--out",
        s(&out),
    ]));
    let verified = ok(&magichunt(&["verify", "--file", s(&out)]));
    assert!(
        verified.contains("rooks 12 bits, bishops 9 bits: valid"),
        "{verified}"
    );
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(
        t["algorithm"].as_str().unwrap().contains("fixed shift"),
        "{}",
        t["algorithm"]
    );
    let entries = t["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 128);
    for e in entries {
        let top = if e["piece"] == "rook" { 12 } else { 9 };
        assert_eq!(e["bits"], top, "{e}");
    }
    assert!(
        entries.iter().any(|e| e["from_bits"].as_u64() < Some(12)),
        "no reduced-bit magic of the store taken at the piece's bits"
    );

    // Resumed, the table keeps the command that made its start.
    let resumed = dir.path().join("resumed.json");
    ok(&magichunt(&[
        "pack",
        "--from",
        s(&out),
        "--fixed-shift",
        "--steps",
        "0",
        "--out",
        s(&resumed),
    ]));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&resumed).unwrap()).unwrap();
    assert_eq!(
        r["commands_before"],
        serde_json::json!([t["command"]]),
        "{r}"
    );
    assert!(r["command"].as_str().unwrap().contains("--from"), "{r}");

    let refused = dir.path().join("refused.json");
    let o = magichunt(&[
        "pack",
        "--from",
        "results/packed-pool.json",
        "--fixed-shift",
        "--steps",
        "0",
        "--out",
        s(&refused),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--fixed-shift") && err.contains("at 10 bits, not 12"),
        "{err}"
    );
    assert!(!refused.exists());
}

/// The shipped fixed-shift table: every rook at 12 bits and every bishop at 9, smaller than
/// Annuss's 88,772 (the smallest plain fixed-shift table published), verified whole, made by
/// a command on files of the repository, and exported like the other packed tables.
#[test]
fn the_shipped_fixed_shift_table_is_below_annuss_2017_and_verifies_whole() {
    let out = ok(&magichunt(&[
        "verify",
        "--file",
        "results/packed-fixed.json",
    ]));
    assert!(
        out.contains("128 entries, 128 valid, 0 invalid")
            && out.contains("rooks 12 bits, bishops 9 bits: valid"),
        "{out}"
    );
    let size: u64 = out
        .split("shared size")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a shared size line");
    assert!(size < 88_772, "{size} entries");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("results/packed-fixed.json").unwrap())
            .unwrap();
    let command = v["command"].as_str().expect("a command");
    assert!(
        command.starts_with("magichunt pack --from results/") && !command.contains("/work"),
        "{command}"
    );
    for key in ["algorithm", "cpu_seconds"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    let header = ok(&magichunt(&[
        "export",
        "--format",
        "c",
        "--with-lookup",
        "--packed",
        "results/packed-fixed.json",
    ]));
    assert!(
        header.contains(&format!("#define ATTACK_TABLE_SIZE {size}")),
        "the header's table is not the verified size"
    );
}
