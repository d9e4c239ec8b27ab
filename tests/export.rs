//! `magichunt export`: golden files from a fixture store; the generated Rust compiled with
//! `-D warnings`, filled and checked on every blocker subset of every square against the slow
//! reference; what `--out` may replace; a missing store; and hostile text from a store, which
//! must never reach the generated code as code. The C header has its own file, `export_c.rs`.
//!
//! Regenerate the golden files with
//! `MAGICHUNT_BLESS=1 cargo test --release --test integration export::` (then read the diff:
//! a change there changes every engine that pastes the output).

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{
    check_golden, check_run, export, export_with, fixture, layout, magichunt, reference_data,
    run_ok, rustc_bin, rustc_lib, tool, FIXTURE,
};
use magichunt::attacks::Occupancies;
use magichunt::export::{render, Format, Layout, Options, Prefix, Source, Tables};
use magichunt::question::Formula;
use magichunt::table::Table;
use magichunt::Piece;

/// What a golden file's mismatch tells the reader to look for.
const HINT: &str = "filled squares change when find_magic's candidate stream changes: check the diff is only there";

#[test]
fn golden_rust_c_and_json() {
    check_golden("magics.rs", &export(Format::Rust, false, true), HINT);
    check_golden("magics.h", &export(Format::C, false, true), HINT);
    check_golden("magics.json", &export(Format::Json, false, false), HINT);
    check_golden(
        "magics-tight.json",
        &export(Format::Json, true, false),
        HINT,
    );
    let mh = Options {
        with_lookup: true,
        prefix: Prefix::new("mh_").unwrap(),
        ..Options::default()
    };
    check_golden("magics-mh.h", &export_with(Format::C, false, &mh), HINT);
    check_golden("magics-mh.rs", &export_with(Format::Rust, false, &mh), HINT);
}

#[test]
fn layout_is_complete_and_keeps_the_store() {
    let l = layout(false);
    assert_eq!(l.rook.len(), 64);
    assert_eq!(l.bishop.len(), 64);
    let store = fixture();
    let mut kept = 0;
    for s in l.rook.iter().chain(&l.bishop) {
        let t = s.entry.target;
        assert_eq!(
            s.proven,
            magichunt::store::proven_optimal(fixture(), t, s.entry.bits),
            "{t}"
        );
        assert!(magichunt::magic::verify(t, s.entry.bits, s.entry.magic).is_ok());
        match store.best(t) {
            Some(e) => {
                assert_eq!(e.magic, s.entry.magic);
                assert!(!s.filled);
                kept += 1;
            }
            None => {
                assert!(s.filled);
                assert_eq!(s.entry.bits, Occupancies::new(t).mask.count(), "{t}");
            }
        }
    }
    assert_eq!(kept, store.entries().count());
    // Offsets follow each other; tight is never larger.
    for piece in Piece::ALL {
        let slots = l.slots(piece);
        for w in slots.windows(2) {
            assert_eq!(w[1].offset, w[0].offset + (1 << w[0].entry.bits));
        }
        assert!(layout(true).size(piece) <= l.size(piece));
        assert_eq!(
            layout(true).size(piece),
            slots
                .iter()
                .map(|s| u64::from(s.entry.max_index) + 1)
                .sum::<u64>()
        );
    }
    // The fill is deterministic: a second build gives the same layout.
    assert_eq!(
        &Tables::build(fixture(), Layout::Fancy, Formula::Plain).unwrap(),
        l
    );
}

#[test]
fn json_export_loads_as_a_table_with_mask_shift_offset() {
    let text = export(Format::Json, true, false);
    let table = Table::parse(text.as_bytes(), Path::new("export.json")).expect("loads back");
    assert_eq!(table.entries.len(), 128);
    let l = layout(true);
    for (e, s) in table.entries.iter().zip(l.rook.iter().chain(&l.bishop)) {
        assert_eq!(e.target, s.entry.target);
        assert_eq!(e.extra["offset"], s.offset);
        assert_eq!(e.extra["shift"], 64 - e.bits);
        let mask = Occupancies::new(e.target).mask.0;
        assert_eq!(e.extra["mask"], format!("{mask:#018x}"));
    }
    assert!(text.starts_with("{\n  \"version\": 1,\n  \"comment\": ["));
}

#[test]
fn cli_writes_the_same_bytes_atomically_and_reports_fill_and_totals() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("magics.rs");
    let out_s = out.to_str().unwrap();
    let args = [
        "export",
        "--format",
        "rust",
        "--store",
        FIXTURE,
        "--with-lookup",
        "--out",
        out_s,
    ];
    let o = magichunt(&args);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("rook a1: not in the store; filled"), "{err}");
    assert!(
        err.contains("total ") && err.contains("KiB) at 8 bytes per entry"),
        "{err}"
    );
    let first = std::fs::read_to_string(&out).unwrap();
    assert_eq!(first, export(Format::Rust, false, true));
    // Stdout, twice: the same bytes (deterministic for a given store).
    let o = magichunt(&[
        "export",
        "--format",
        "rust",
        "--store",
        FIXTURE,
        "--with-lookup",
    ]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), first);
    assert!(o.stdout.starts_with(b"// Generated by magichunt"));
}

#[test]
fn a_store_that_fails_to_load_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"version\": 1, \"entries\": [{\"piece\": \"rook\"}]}",
    )
    .unwrap();
    let out = dir.path().join("out.h");
    let o = magichunt(&[
        "export",
        "--format",
        "c",
        "--store",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bad.json"), "{err}");
    assert!(!out.exists());
    assert!(o.stdout.is_empty());
    let o = magichunt(&["export", "--format", "yaml", "--store", FIXTURE]);
    assert_eq!(o.status.code(), Some(2));
}

// ---- Compile, fill and check the generated Rust. ----

/// An engine's own items under the unprefixed names, glob-imported beside the export: a
/// name both globs bring in is an error where it is used, so this builds only if the
/// prefix reaches every public item.
const RUST_GLOB: &str = r"
mod magics;
mod engine {
    pub struct MagicEntry;
    pub const ROOK_MAGICS: [MagicEntry; 0] = [];
    pub const BISHOP_TABLE_SIZE: usize = 1;
    pub fn init_attack_tables() {}
    pub fn rook_attacks(_: usize, _: u64) -> u64 { 1 }
    pub fn bishop_attacks(_: usize, _: u64) -> u64 { 2 }
}
use engine::*;
use magics::*;
fn main() {
    init_attack_tables();
    mh_init_attack_tables();
    let _: [MagicEntry; 0] = ROOK_MAGICS;
    let _: [MhMagicEntry; 64] = MH_ROOK_MAGICS;
    assert_eq!(rook_attacks(0, 0) + bishop_attacks(0, 0) + BISHOP_TABLE_SIZE as u64, 4);
    assert_eq!(mh_rook_attacks(0, 0), 0x0101_0101_0101_01fe);
    assert!(MH_ROOK_TABLE_SIZE > 0 && MH_BISHOP_TABLE_SIZE > 0);
    assert_eq!(mh_bishop_attacks(0, 0), 0x8040_2010_0804_0200);
}
";

#[test]
fn generated_rust_compiles_without_warnings_and_matches_the_reference() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (data, records) = reference_data(dir.path());
    let none = Prefix::none();
    let mh = Prefix::new("mh_").unwrap();
    for (tight, with_lookup, prefix) in [
        (false, false, &none),
        (false, true, &none),
        (true, true, &none),
        (true, true, &mh),
    ] {
        let options = Options {
            with_lookup,
            prefix: prefix.clone(),
            ..Options::default()
        };
        let src = dir.path().join("magics.rs");
        std::fs::write(&src, export_with(Format::Rust, tight, &options)).unwrap();
        // With the lookup, the harness builds this file as its module with `-D warnings`,
        // stricter than a library build (unused items warn there); without it, the file is
        // built as a library.
        if with_lookup {
            let exe = rustc_bin(&rustc, dir.path(), &prefix.apply(common::RUST_HARNESS));
            check_run(&run_ok(Command::new(&exe).arg(&data)), records, tight);
        } else {
            rustc_lib(&rustc, dir.path(), &src);
        }
    }
}

#[test]
fn a_prefixed_rust_module_glob_imports_beside_an_engines_own_names() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mh = Options {
        with_lookup: true,
        prefix: Prefix::new("mh_").unwrap(),
        ..Options::default()
    };
    std::fs::write(
        dir.path().join("magics.rs"),
        export_with(Format::Rust, false, &mh),
    )
    .unwrap();
    let exe = rustc_bin(&rustc, dir.path(), RUST_GLOB);
    run_ok(&mut Command::new(&exe));
    // Without the prefix the engine's half alone must not build: the test can fail.
    std::fs::write(
        dir.path().join("magics.rs"),
        export(Format::Rust, false, true),
    )
    .unwrap();
    let engine_only: String = RUST_GLOB
        .lines()
        .filter(|l| !(l.contains("mh_") || l.contains("MH_") || l.contains("Mh")))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.path().join("main.rs"), engine_only).unwrap();
    let o = Command::new(&rustc)
        .args(["--edition", "2021", "-o"])
        .arg(dir.path().join("clash"))
        .arg(dir.path().join("main.rs"))
        .output()
        .unwrap();
    assert!(!o.status.success(), "unprefixed names did not clash");
}

#[test]
fn an_invalid_prefix_exits_2_with_one_line() {
    for bad in ["9x", "_mh", "mh-", "a*/", "x__y", ""] {
        let o = magichunt(&[
            "export", "--format", "c", "--store", FIXTURE, "--prefix", bad,
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("prefix"), "{err}");
        assert!(o.stdout.is_empty());
    }
}

// ---- A missing store, and what --out may replace. ----

#[test]
fn a_missing_store_exits_2_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.json");
    let out = dir.path().join("magics.h");
    let (m, o) = (missing.to_str().unwrap(), out.to_str().unwrap());
    let r = magichunt(&["export", "--format", "c", "--store", m, "--out", o]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("none.json: no such store") && err.contains("--allow-missing"),
        "{err}"
    );
    assert!(!out.exists() && !missing.exists() && r.stdout.is_empty());

    let r = magichunt(&[
        "export",
        "--format",
        "json",
        "--store",
        m,
        "--allow-missing",
    ]);
    assert_eq!(r.status.code(), Some(0));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("no such store; every square is filled"),
        "{err}"
    );
    assert!(err.contains("bishop h8: not in the store; filled"), "{err}");
    assert!(
        err.contains("total 107648 entries (841 KiB) at 8 bytes per entry"),
        "{err}"
    );
    let table = Table::parse(&r.stdout, Path::new("stdout")).unwrap();
    assert_eq!(table.entries.len(), 128);
    assert!(!missing.exists(), "export never creates the store");
}

/// Runs an export of `store` onto `out` and asserts it is refused: exit 2, one line naming
/// `out`, the file's bytes (if any) untouched.
fn assert_refused(store: &Path, out: &Path, extra: &[&str]) {
    let before = std::fs::read(out).ok();
    let mut args = vec![
        "export",
        "--format",
        "json",
        "--store",
        store.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let r = magichunt(&args);
    assert_eq!(r.status.code(), Some(2), "{out:?}: {r:?}");
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("refusing"), "{err}");
    assert_eq!(std::fs::read(out).ok(), before, "{out:?} changed");
}

#[test]
fn out_never_replaces_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("best.json");
    std::fs::copy(FIXTURE, &store).unwrap();
    // The store itself, by its path, another spelling and a symlink.
    assert_refused(&store, &store, &[]);
    assert_refused(&store, &d.join(".").join("best.json"), &[]);
    let link = d.join("link.json");
    std::os::unix::fs::symlink(&store, &link).unwrap();
    assert_refused(&store, &link, &[]);
    assert_refused(&link, &store, &[]);
    // Another store, a published table, a store of a newer version this build cannot read.
    let other = d.join("other.json");
    std::fs::copy(FIXTURE, &other).unwrap();
    assert_refused(&store, &other, &[]);
    let published = d.join("records.json");
    std::fs::copy("results/published/records.json", &published).unwrap();
    assert_refused(&store, &published, &[]);
    let newer = d.join("v9.json");
    std::fs::write(&newer, "{\"version\": 9, \"entries\": [], \"effort\": []}").unwrap();
    assert_refused(&store, &newer, &[]);
    // A store that does not exist yet is still the store.
    let fresh = d.join("fresh.json");
    assert_refused(&fresh, &fresh, &["--allow-missing"]);
    assert!(!fresh.exists());
    // An earlier export, a header, a new file: replaced.
    let json = d.join("magics.json");
    for _ in 0..2 {
        let r = magichunt(&[
            "export",
            "--format",
            "json",
            "--store",
            store.to_str().unwrap(),
            "--out",
            json.to_str().unwrap(),
        ]);
        assert_eq!(r.status.code(), Some(0), "{r:?}");
    }
    let header = d.join("magics.h");
    std::fs::write(&header, "/* old */\n").unwrap();
    let r = magichunt(&[
        "export",
        "--format",
        "c",
        "--store",
        store.to_str().unwrap(),
        "--out",
        header.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{r:?}");
    assert!(std::fs::read_to_string(&header)
        .unwrap()
        .starts_with("/*\n * Generated by magichunt"));
    assert_eq!(
        std::fs::read(&store).unwrap(),
        std::fs::read(FIXTURE).unwrap()
    );
}

// ---- Hostile text from a store. ----

/// What a hostile store may carry into the header comment.
const HOSTILE_FOUND_AT: [&str; 3] = [
    "2026-01-01T00:00:00Z\ncompile_error!(\"x\");",
    "2026-01-01T00:00:00Z */ #error x /*",
    "2026-01-01T00:00:00Z\r\n#error y\n// ??/\n\u{202e}",
];

/// Asserts that the Rust and C exports in `dir` (`magics.rs`, `magics.h`) compile cleanly:
/// Rust with `-D warnings`, C as C99 and C++17 with the strict warnings.
fn assert_exports_compile(dir: &Path) {
    if let Some(rustc) = tool("RUSTC", "rustc") {
        rustc_lib(&rustc, dir, &dir.join("magics.rs"));
    }
    if let Some([c99, _, cxx17]) = common::langs() {
        let unit = dir.join("unit.c");
        std::fs::write(
            &unit,
            "#define MAGICHUNT_IMPLEMENTATION\n#include \"magics.h\"\nint main(void) { init_attack_tables(); return rook_attacks(0, 0) == 0; }\n",
        )
        .unwrap();
        for lang in [&c99, &cxx17] {
            common::compile(lang, &unit);
        }
    }
}

/// No line of `text` may start code that came from a store: every line of the comment
/// block (before the first blank line in Rust, up to `*/` in C) stays a comment line.
fn assert_header_is_comment(text: &str, format: Format) {
    match format {
        Format::Rust => {
            for l in text.lines().take_while(|l| !l.is_empty()) {
                assert!(l.starts_with("//"), "{l:?}");
            }
        }
        _ => {
            let end = text.find("*/").unwrap();
            let block = &text[..end];
            assert!(!block[2..].contains("/*"), "{block}");
            assert!(
                text[end..].starts_with("*/\n\n#ifndef"),
                "{}",
                &text[end..end + 40]
            );
        }
    }
    assert!(!text.contains("??/") && !text.contains('\u{202e}') && !text.contains('\r'));
}

#[test]
fn hostile_found_at_and_store_path_stay_inside_the_comment() {
    let dir = tempfile::tempdir().unwrap();
    let base = fixture().best(magichunt::Target::new(Piece::Rook, "e4".parse().unwrap()));
    for hostile in HOSTILE_FOUND_AT {
        // Built in memory: whatever the loader accepts, the back ends must hold.
        let mut store = magichunt::store::Store::new();
        let mut entry = base.unwrap().clone();
        entry.found_at = Some(hostile.to_string());
        store.offer(entry);
        let layout = Tables::build(&store, Layout::Fancy, Formula::Plain).unwrap();
        let source = Source::of(
            &store,
            "results/*/\n#error path\ncompile_error!(\"p\");/*.json",
        );
        assert_eq!(source.latest.as_deref(), Some(hostile));
        let options = Options {
            with_lookup: true,
            ..Options::default()
        };
        for (format, name) in [(Format::Rust, "magics.rs"), (Format::C, "magics.h")] {
            let text = render(format, &layout, &source, &options);
            assert_header_is_comment(&text, format);
            assert!(text.contains("compile_error!(\"x\");") || !hostile.contains("compile_error"));
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        assert_exports_compile(dir.path());
    }
}

#[test]
fn the_binary_escapes_a_hostile_store_path_and_found_at() {
    let dir = tempfile::tempdir().unwrap();
    // A path with */, /*, newlines and a compile_error!: folders may be named so, and the
    // file name too, but for the slash. The header names the file only.
    let evil = dir
        .path()
        .join("x*")
        .join("\ncompile_error!(\"p\");\n#error p /*")
        .join("y*\ncompile_error!(\"q\");\n#error q ??=.json");
    std::fs::create_dir_all(evil.parent().unwrap()).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    json["entries"][0]["found_at"] = HOSTILE_FOUND_AT[0].into();
    json["entries"][1]["found_at"] = HOSTILE_FOUND_AT[1].into();
    std::fs::write(&evil, serde_json::to_string(&json).unwrap()).unwrap();
    for (format, name) in [("rust", "magics.rs"), ("c", "magics.h")] {
        let out = dir.path().join(name);
        let r = magichunt(&[
            "export",
            "--format",
            format,
            "--with-lookup",
            "--store",
            evil.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        match r.status.code() {
            // The loader may refuse a found_at that is not RFC 3339: one line, nothing written.
            Some(2) => {
                assert_eq!(
                    String::from_utf8_lossy(&r.stderr).lines().count(),
                    1,
                    "{r:?}"
                );
                assert!(!out.exists());
                // The path alone is hostile enough: export a store without found_at there.
                for e in json["entries"].as_array_mut().unwrap() {
                    e.as_object_mut().unwrap().remove("found_at");
                }
                std::fs::write(&evil, serde_json::to_string(&json).unwrap()).unwrap();
                let r = magichunt(&[
                    "export",
                    "--format",
                    format,
                    "--with-lookup",
                    "--store",
                    evil.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ]);
                assert_eq!(r.status.code(), Some(0), "{r:?}");
            }
            code => assert_eq!(code, Some(0), "{r:?}"),
        }
        let text = std::fs::read_to_string(&out).unwrap();
        let f = if format == "rust" {
            Format::Rust
        } else {
            Format::C
        };
        assert_header_is_comment(&text, f);
        assert!(
            text.contains("y*\\u{a}compile_error!(\"q\");\\u{a}#error q ?\\?=.json"),
            "{}",
            &text[..300]
        );
        assert!(!text.contains("compile_error!(\"p\")"), "{}", &text[..300]);
    }
    assert_exports_compile(dir.path());
}
