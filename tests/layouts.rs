//! Runs the binary on layouts and formulas: `verify` of packed tables and black magics,
//! `pack`, `compare`'s sizes by layout, `hunt --formula black` and `--objective tight`, and
//! `exhaust --formula black` refused.

use std::path::Path;

use magichunt::layout::PackedTable;
use magichunt::store::Store;
use magichunt::table::Table;
use magichunt::Formula;

use crate::common;
use common::{magichunt, text};

/// The sizes of the table, from the binary.
#[test]
fn verify_checks_the_published_packed_tables_as_a_whole() {
    for (name, size, used) in [
        ("annuss-fixed-shift-2008", "97264", "82501"),
        ("annuss-fixed-shift-2016", "89524", "73999"),
        ("annuss-fixed-shift-2017", "88772", "73195"),
        ("black-magics-annuss-fiekas-2017", "87988", "72118"),
    ] {
        let path = format!("results/published/{name}.json");
        let o = magichunt(&["verify", "--file", &path]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}");
        assert!(out.contains("128 entries, 128 valid, 0 invalid"), "{out}");
        assert!(
            out.contains(&format!("shared size       {size} entries")),
            "{out}"
        );
        assert!(out.contains(&format!("slots used        {used} ")), "{out}");
        assert!(out.contains("rooks 12 bits, bishops 9 bits"), "{out}");
    }
}

#[test]
fn verify_refuses_a_packed_table_that_overlaps_or_misstates_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string("results/published/annuss-fixed-shift-2017.json").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&src).unwrap();
    let write = |v: &serde_json::Value, name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
        p.display().to_string()
    };
    let mut wrong = v.clone();
    wrong["packed_table"]["declared_size_entries"] = 88_771.into();
    let o = magichunt(&["verify", "--file", &write(&wrong, "size.json")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("declares 88771 entries, but its offsets need 88772"));
    let first = v["entries"][0]["offset"].clone();
    v["entries"][1]["offset"] = first;
    let o = magichunt(&["verify", "--file", &write(&v, "overlap.json")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("INVALID: slot"), "{}", text(&o));
    v["entries"][1]["offset"] = "far".into();
    let o = magichunt(&["verify", "--file", &write(&v, "bad.json")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
}

#[test]
fn verify_takes_a_formula() {
    let args = [
        "verify",
        "--piece",
        "rook",
        "--square",
        "b1",
        "--bits",
        "12",
        "--magic",
        "0x5ffbfefdfef67fff",
    ];
    let plain = magichunt(&args);
    assert_eq!(plain.status.code(), Some(1), "{}", text(&plain));
    let mut black = args.to_vec();
    black.extend(["--formula", "black"]);
    let o = magichunt(&black);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("index range       513 to 3152 (tight table: 2640 entries)"),
        "{}",
        text(&o)
    );
    let last = black.len() - 1;
    black[last] = "white";
    assert_eq!(magichunt(&black).status.code(), Some(2));
}

/// `pack` on the shipped store: smaller than its fancy size, written as a packed table that
/// loads, checks as a whole, and resumes.
#[test]
fn pack_writes_a_checked_packed_table_and_resumes_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("packed.json");
    let out_s = out.to_str().unwrap();
    let o = magichunt(&["pack", "--steps", "300", "--out", out_s]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("first-fit decreasing"), "{}", text(&o));
    let t = PackedTable::from_table(&Table::read(&out).unwrap()).unwrap();
    let f = t.check().unwrap();
    assert_eq!(t.entries.len(), 128);
    assert!(f.size < 89_280 && f.used <= f.size, "{f:?}");
    let v = magichunt(&["verify", "--file", out_s]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    // Resumed from the file: never larger.
    let again = dir.path().join("again.json");
    let o = magichunt(&[
        "pack",
        "--from",
        out_s,
        "--steps",
        "100",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let t2 = PackedTable::from_table(&Table::read(&again).unwrap()).unwrap();
    assert!(t2.check().unwrap().size <= f.size);
    // Bad input: one line, exit 2.
    for bad in [
        &["pack", "--formula", "white"][..],
        &["pack", "--hunt", "10m"],
        &["pack", "--from", "no-such-file.json"],
        &["pack", "--from", "results/published/records.json"],
        &["pack", "--time", "0s"],
    ] {
        let o = magichunt(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).lines().count(),
            1,
            "{bad:?}: {}",
            text(&o)
        );
    }
}

#[test]
fn compare_shows_sizes_by_layout() {
    let o = magichunt(&["compare", "--store", "results/best.json"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    for want in [
        "sizes by layout",
        // Entries, and bytes as the C export's data: 8 bytes an entry and 24 a magic.
        "fancy, plain                88256 (689.5 KiB), 709120 B RECORD",
        "89258 (697.3 KiB), 717136 B, best published bits per square (per-square shifts)",
        "88772 (693.5 KiB), 713248 B, annuss-fixed-shift-2017 (fixed shift)",
        "87988 (687.4 KiB), 706976 B, black-magics-annuss-fiekas-2017 (fixed shift)",
        "ours packed, plain: first-fit decreasing of the store (per-square shifts)",
        // The shipped store holds a black magic for every square, so black rows have ours.
        "ours packed, black: first-fit decreasing of the store (per-square shifts)",
        "indexed, plain",
        "none published",
        // The fixed-shift records are their own rows; ours has no fixed-shift table here.
        "packed, plain, fixed shift  -",
    ] {
        assert!(out.contains(want), "{want:?} in\n{out}");
    }
    let md = text(&magichunt(&[
        "compare",
        "--store",
        "results/best.json",
        "--format",
        "markdown",
    ]));
    assert!(md.contains("| packed, black | "), "{md}");
    assert!(!md.contains("| packed, black | - |"), "{md}");
}

/// A table's category comes from the table itself: given a packed table whose rooks are all at
/// 12 bits and bishops at 9 (here the white record itself, as if it were ours), `compare` fills
/// the fixed-shift row with it, and our indexed table fills the indexed row, in bytes.
#[test]
fn compare_names_each_tables_category_and_its_bytes() {
    let o = magichunt(&[
        "compare",
        "--store",
        "results/best.json",
        "--packed",
        "results/published/annuss-fixed-shift-2017.json",
        "--packed",
        "results/packed-indexed.json",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{name:<28}")))
            .unwrap_or_else(|| panic!("no row {name:?} in\n{out}"))
            .to_string()
    };
    let fixed = row("packed, plain, fixed shift");
    assert!(fixed.contains("88772 (693.5 KiB), 713248 B  "), "{fixed}");
    assert!(!fixed.contains("RECORD"), "{fixed}");
    let indexed = row("indexed, plain");
    let bytes: u64 = indexed
        .split(" ids, ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("{indexed}"));
    assert!(bytes <= 131_072, "{indexed}");
    for want in [
        "ours packed, plain, fixed shift: results/published/annuss-fixed-shift-2017.json (fixed shift)",
        "ours indexed, plain: results/packed-indexed.json (per-square shifts)",
        "ours, results/packed-indexed.json (indexed, per-square shifts)",
    ] {
        assert!(out.contains(want), "{want:?} in\n{out}");
    }
    let json: serde_json::Value = serde_json::from_slice(
        &magichunt(&[
            "compare",
            "--store",
            "results/best.json",
            "--packed",
            "results/packed-indexed.json",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    let rows = json["layouts"].as_array().unwrap();
    let ix = rows
        .iter()
        .find(|r| r["layout"] == "indexed" && r["formula"] == "plain")
        .unwrap();
    assert_eq!(ix["shift"], "per-square");
    assert_eq!(ix["theirs"], serde_json::Value::Null);
    assert_eq!(ix["ours"]["bytes"].as_u64(), Some(bytes));
    assert_eq!(ix["ours"]["shift"], "per-square");
    let packed = rows
        .iter()
        .find(|r| r["layout"] == "packed" && r["formula"] == "plain" && r["shift"] == "per-square")
        .unwrap();
    assert_eq!(packed["theirs"]["shift"], "fixed");
    assert_eq!(packed["theirs"]["bytes"], 713_248);
}

/// A black hunt stores black entries beside the plain ones; a tight hunt only ever makes a
/// square's table smaller; both survive a reload (every entry verified under its formula).
#[test]
fn hunt_black_and_tight() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let s = store.to_str().unwrap();
    let base = [
        "hunt", "--store", s, "--piece", "bishop", "--square", "b1,g2,e4", "--quiet",
    ];
    let run = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        let o = magichunt(&a);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        Store::load(&store).unwrap()
    };
    let plain = run(&["--bits", "9", "--seed", "3"]);
    assert_eq!(plain.entries_with(Formula::Plain).count(), 3);
    let black = run(&["--formula", "black", "--bits", "9", "--seed", "3"]);
    assert_eq!(black.entries_with(Formula::Black).count(), 3);
    assert_eq!(black.entries_with(Formula::Plain).count(), 3);
    let json = std::fs::read_to_string(&store).unwrap();
    assert!(json.contains("\"formula\": \"black\""), "{json}");
    let before: Vec<(u32, u32)> = black.entries().map(|e| (e.bits, e.span())).collect();
    let tight = run(&["--objective", "tight", "--tries", "400000", "--seed", "4"]);
    let after: Vec<(u32, u32)> = tight.entries().map(|e| (e.bits, e.span())).collect();
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert!(a.0 == b.0 && a.1 <= b.1, "{b:?} -> {a:?}");
    }
    assert!(
        after.iter().zip(&before).any(|(a, b)| a.1 < b.1),
        "9-bit bishops have room to shrink: {before:?} -> {after:?}"
    );
    let v = magichunt(&["verify", "--file", s]);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

#[test]
fn exhaust_refuses_black_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let o = magichunt(&[
        "exhaust",
        "--piece",
        "bishop",
        "--square",
        "d8",
        "--bits",
        "4",
        "--formula",
        "black",
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("prove --formula black"), "{err}");
    assert!(!Path::new(&store).exists());
}

/// An indexed table given to `pack --from` without `--layout indexed` is named for what it is,
/// with the flag that resumes it, and nothing is written.
#[test]
fn pack_from_an_indexed_table_names_the_flag_that_resumes_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let o = magichunt(&[
        "pack",
        "--from",
        "results/packed-indexed.json",
        "--steps",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--layout indexed"),
        "{}",
        text(&o)
    );
    assert!(!out.exists());
}
