//! `magichunt export --layout packed`, `--formula black` and `--packed FILE`: golden files
//! (the fixture packed on the spot, the black fixture tight, the published black magics as
//! `--packed` reads them), the generated Rust compiled with `-D warnings` and checked on every
//! blocker subset of every square against the slow reference, the JSON export of a packed
//! table verified as a whole by `verify --file`, and a tampered packed table refused. The C
//! headers of the same tables are compiled and checked in `export_c.rs`.
//!
//! Regenerate the golden files with
//! `MAGICHUNT_BLESS=1 cargo test --release --test integration export_layouts::`.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{
    black_packed, check_golden, check_run_tables, magichunt, our_indexed, our_packed,
    reference_data, render_tables, run_ok, rustc_bin, rustc_lib, tables, tool, BLACK_PACKED,
    FIXTURE, FIXTURE_BLACK,
};
use magichunt::export::{Format, Layout, Options, Prefix, Tables};
use magichunt::layout::PackedTable;
use magichunt::question::Formula;
use magichunt::table::Table;

fn lookup() -> Options {
    Options {
        with_lookup: true,
        ..Options::default()
    }
}

fn packed_plain() -> &'static Tables {
    tables(Layout::Packed, Formula::Plain)
}

/// What a golden file's mismatch tells the reader to look for.
const HINT: &str = "check the diff: every engine that pastes the output changes with it";

#[test]
fn golden_packed_and_black() {
    check_golden(
        "magics-packed.h",
        &render_tables(Format::C, packed_plain(), &lookup()),
        HINT,
    );
    check_golden(
        "magics-packed.json",
        &render_tables(Format::Json, packed_plain(), &Options::default()),
        HINT,
    );
    check_golden(
        "magics-black-tight.rs",
        &render_tables(
            Format::Rust,
            tables(Layout::Tight, Formula::Black),
            &lookup(),
        ),
        HINT,
    );
    check_golden(
        "magics-black-packed.h",
        &render_tables(Format::C, black_packed(), &lookup()),
        HINT,
    );
}

/// `text` with each run of data lines (numbers and commas only, or longer than 200
/// characters: the ids and lists of an indexed export) replaced by one line that names how
/// many lines it held and their SHA-256, so a golden file of an indexed export shows all of
/// its code and still changes when one byte of its data does.
fn data_elided(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let is_data = |l: &str| {
        let t = l.trim();
        l.len() > 200
            || t.starts_with("\\x")
            || (t.starts_with(|c: char| c.is_ascii_digit())
                && t.chars()
                    .all(|c| c.is_ascii_hexdigit() || ", x".contains(c)))
    };
    let mut out = String::new();
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, out: &mut String| {
        if !run.is_empty() {
            let mut h = Sha256::new();
            for l in run.iter() {
                h.update(l.as_bytes());
                h.update(b"\n");
            }
            let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
            out.push_str(&format!("<{} lines of data, sha256 {hex}>\n", run.len()));
            run.clear();
        }
    };
    // A Rust byte string (`*b"\` up to `";`) is data through and through.
    let mut in_bytes = false;
    for l in text.lines() {
        if in_bytes && l.trim_start().starts_with('"') {
            in_bytes = false;
        }
        if in_bytes || is_data(l) {
            run.push(l);
        } else {
            flush(&mut run, &mut out);
            out.push_str(l);
            out.push('\n');
            in_bytes = l.ends_with("*b\"\\");
        }
    }
    flush(&mut run, &mut out);
    out
}

#[test]
fn golden_indexed() {
    let t = tables(Layout::Indexed, Formula::Plain);
    for (name, format) in [
        ("magics-indexed.h", Format::C),
        ("magics-indexed.rs", Format::Rust),
    ] {
        let text = render_tables(format, t, &lookup());
        check_golden(name, &data_elided(&text), HINT);
    }
}

#[test]
fn packed_offsets_share_one_array_and_black_tight_offsets_start_at_min_index() {
    let p = packed_plain();
    let fill = p.packed.as_ref().unwrap().fill;
    assert_eq!(p.total(), fill.size);
    assert!(fill.used <= fill.size);
    // Black tight: each square's slots start where the previous square's end (the first
    // square of a piece at its own min_index when that is above 0).
    let t = tables(Layout::Tight, Formula::Black);
    for piece in magichunt::Piece::ALL {
        let mut end = 0u64;
        for s in t.slots(piece) {
            assert_eq!(s.entry.formula, Formula::Black);
            let start = u64::from(s.offset) + u64::from(s.entry.min_index);
            assert_eq!(
                start,
                end.max(u64::from(s.entry.min_index)),
                "{}",
                s.entry.target
            );
            end = u64::from(s.offset) + u64::from(s.entry.max_index) + 1;
        }
    }
    let a1 = &t.rook[0];
    assert!(
        !a1.filled && a1.entry.min_index > 0,
        "the fixture's rook a1"
    );
    // The published black magics keep their offsets.
    let b = black_packed();
    let file = PackedTable::from_table(&Table::read(Path::new(BLACK_PACKED)).unwrap()).unwrap();
    for p in &file.entries {
        let s = &b.slots(p.entry.target.piece)[p.entry.target.square.index()];
        assert_eq!((s.entry.magic, s.offset), (p.entry.magic, p.offset));
    }
}

// ---- The Rust export, compiled and checked. ----

#[test]
fn generated_rust_of_packed_and_black_tables_matches_the_reference() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (data, records) = reference_data(dir.path());
    let none = Prefix::none();
    let mh = Prefix::new("mh_").unwrap();
    let runs: [(&Tables, &Prefix); 10] = [
        (tables(Layout::Indexed, Formula::Plain), &none),
        (tables(Layout::Indexed, Formula::Black), &mh),
        (our_indexed(), &none),
        (packed_plain(), &none),
        (packed_plain(), &mh),
        (tables(Layout::Fancy, Formula::Black), &none),
        (tables(Layout::Tight, Formula::Black), &none),
        (tables(Layout::Packed, Formula::Black), &mh),
        (black_packed(), &none),
        (our_packed(), &mh),
    ];
    for (t, prefix) in runs {
        println!("{} {} prefix '{}'", t.layout, t.formula, prefix.as_str());
        let src = dir.path().join("magics.rs");
        let without = Options {
            prefix: prefix.clone(),
            ..Options::default()
        };
        std::fs::write(&src, render_tables(Format::Rust, t, &without)).unwrap();
        rustc_lib(&rustc, dir.path(), &src);
        let options = Options {
            with_lookup: true,
            prefix: prefix.clone(),
            ..Options::default()
        };
        // The harness builds this very file as its module with `-D warnings`, which is
        // stricter than a library build (unused items warn there), so it is not built as a
        // library again: each build costs the tables' compile-time evaluation.
        std::fs::write(&src, render_tables(Format::Rust, t, &options)).unwrap();
        let main = prefix.apply(common::RUST_HARNESS);
        let exe = rustc_bin(&rustc, dir.path(), &main);
        check_run_tables(&run_ok(Command::new(&exe).arg(&data)), records, t);
    }
}

/// The Rust export of every layout builds inside a `#![no_std]` crate (no std, no allocator,
/// no init call): `tests/examples/nostd/lib.rs`, the crate export.md quotes, beside each.
#[test]
fn the_rust_export_of_every_layout_builds_without_std() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.rs");
    std::fs::copy("tests/examples/nostd/lib.rs", &lib).unwrap();
    let out = dir.path().join("magics.rs");
    let out = out.to_str().unwrap();
    let common = ["export", "--format", "rust", "--with-lookup", "--out", out];
    for layout in [
        vec!["--store", FIXTURE],
        vec!["--store", FIXTURE, "--layout", "tight"],
        vec!["--packed", common::fixture_table_file(Layout::Packed)],
        vec!["--packed", common::fixture_table_file(Layout::Indexed)],
        vec!["--packed", "results/packed-pool.json"],
        vec!["--packed", "results/packed-indexed.json"],
    ] {
        let args: Vec<&str> = common.iter().chain(&layout).copied().collect();
        run(&args);
        let text = std::fs::read_to_string(out).unwrap();
        assert!(!text.contains("std::"), "{layout:?} names std");
        rustc_lib(&rustc, dir.path(), &lib);
    }
}

// ---- The command line. ----

fn run(args: &[&str]) -> std::process::Output {
    let o = magichunt(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

#[test]
fn cli_layout_formula_and_packed_give_the_librarys_bytes() {
    let o = run(&[
        "export",
        "--format",
        "c",
        "--store",
        FIXTURE,
        "--layout",
        "packed",
        "--with-lookup",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        render_tables(Format::C, packed_plain(), &lookup())
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("packed by the packer: first-fit decreasing"),
        "{err}"
    );
    let o = run(&[
        "export",
        "--format",
        "rust",
        "--store",
        FIXTURE_BLACK,
        "--formula",
        "black",
        "--tight",
        "--with-lookup",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        render_tables(
            Format::Rust,
            tables(Layout::Tight, Formula::Black),
            &lookup()
        )
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("rook b1: not in the store as a black magic; filled"),
        "{err}"
    );
    let alias = run(&[
        "export",
        "--format",
        "rust",
        "--store",
        FIXTURE_BLACK,
        "--formula",
        "black",
        "--layout",
        "tight",
        "--with-lookup",
    ]);
    assert_eq!(alias.stdout, o.stdout, "--tight is --layout tight");
    let o = run(&[
        "export",
        "--format",
        "c",
        "--packed",
        BLACK_PACKED,
        "--with-lookup",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        render_tables(Format::C, black_packed(), &lookup())
    );
    // --packed is a packed table as it is: no other layout, no store.
    for extra in [
        &["--layout", "tight"][..],
        &["--store", FIXTURE],
        &["--tight"],
    ] {
        let mut args = vec!["export", "--format", "c", "--packed", BLACK_PACKED];
        args.extend(extra);
        let o = magichunt(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

/// A packed export in JSON is a packed table: `verify --file` checks it as a whole, and
/// `export --packed` takes it back.
#[test]
fn packed_json_exports_verify_as_a_whole_and_export_again() {
    let dir = tempfile::tempdir().unwrap();
    for (name, t) in [("plain", packed_plain()), ("black", black_packed())] {
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, render_tables(Format::Json, t, &Options::default())).unwrap();
        let p = path.to_str().unwrap();
        let o = run(&["verify", "--file", p]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("formula {}", t.formula)) && out.contains(": valid"),
            "{out}"
        );
        assert!(
            out.contains(&format!("shared size       {} entries", t.total())),
            "{out}"
        );
        let o = run(&["export", "--format", "c", "--packed", p]);
        let again = String::from_utf8_lossy(&o.stdout);
        let first = render_tables(Format::C, t, &Options::default());
        // The same declarations and magics; only the source lines differ.
        let body = |s: &str| s[s.find("#ifndef").unwrap()..].to_string();
        assert_eq!(body(&again), body(&first), "{name}");
    }
}

/// A packed table whose offsets make two squares write different attack sets to one slot,
/// or whose declared size is wrong, is refused: exit 2, one line, nothing written.
#[test]
fn a_tampered_packed_table_exits_2_with_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(BLACK_PACKED).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries = json["entries"].as_array_mut().unwrap();
    let second = entries[1]["offset"].clone();
    entries[0]["offset"] = second;
    let overlap = dir.path().join("overlap.json");
    std::fs::write(&overlap, serde_json::to_string(&json).unwrap()).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["packed_table"]["declared_size_entries"] = 87_987.into();
    let size = dir.path().join("size.json");
    std::fs::write(&size, serde_json::to_string(&json).unwrap()).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["entries"].as_array_mut().unwrap().pop();
    json["packed_table"]
        .as_object_mut()
        .unwrap()
        .remove("slots_actually_used");
    let short = dir.path().join("short.json");
    std::fs::write(&short, serde_json::to_string(&json).unwrap()).unwrap();
    for (bad, says) in [
        (&overlap, "two different attack sets"),
        (&size, "declares 87987 entries"),
        (&short, "lacks bishop h8"),
    ] {
        let out = dir.path().join("magics.h");
        let o = magichunt(&[
            "export",
            "--format",
            "c",
            "--packed",
            bad.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(o.stdout.is_empty());
        assert!(!out.exists(), "{}", bad.display());
    }
}
