//! `magichunt export`: golden files from a fixture store, and the generated Rust and C compiled,
//! filled and checked on every blocker subset of every square against the slow reference.
//!
//! Regenerate the golden files with `MAGICHUNT_BLESS=1 cargo test --test export` (then read
//! the diff: a change there changes every engine that pastes the output).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use magichunt::attacks::Occupancies;
use magichunt::export::{render, Format, Layout, Options, Source};
use magichunt::store::Store;
use magichunt::table::Table;
use magichunt::{Piece, Target};

const FIXTURE: &str = "tests/golden/store.json";

fn fixture() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| Store::load(Path::new(FIXTURE)).expect("fixture loads"))
}

/// The fixture's layouts, built once (the fill is the slow part): 2^bits and tight.
fn layout(tight: bool) -> &'static Layout {
    static LAYOUTS: [OnceLock<Layout>; 2] = [OnceLock::new(), OnceLock::new()];
    LAYOUTS[usize::from(tight)].get_or_init(|| Layout::build(fixture(), tight).expect("builds"))
}

fn export(format: Format, tight: bool, with_lookup: bool) -> String {
    render(
        format,
        layout(tight),
        &Source::of(fixture(), FIXTURE),
        Options { with_lookup },
    )
}

/// The version in the header changes with every release; the golden files say VERSION.
fn normalize(text: &str) -> String {
    text.replace(
        &format!("magichunt {}", env!("CARGO_PKG_VERSION")),
        "magichunt VERSION",
    )
}

fn check_golden(name: &str, actual: &str) {
    let path = PathBuf::from("tests/golden").join(name);
    if std::env::var_os("MAGICHUNT_BLESS").is_some() {
        std::fs::write(&path, normalize(actual)).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (MAGICHUNT_BLESS=1 writes it)", path.display()));
    let actual = normalize(actual);
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .map_or_else(|| "length".to_string(), |i| format!("line {}", i + 1));
        panic!(
            "{} differs from the export at {line}; MAGICHUNT_BLESS=1 rewrites it (filled squares \
             change when find_magic's candidate stream changes: check the diff is only there)",
            path.display()
        );
    }
}

#[test]
fn golden_rust_c_and_json() {
    check_golden("magics.rs", &export(Format::Rust, false, true));
    check_golden("magics.h", &export(Format::C, false, true));
    check_golden("magics.json", &export(Format::Json, false, false));
    check_golden("magics-tight.json", &export(Format::Json, true, false));
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
    assert_eq!(&Layout::build(fixture(), false).unwrap(), l);
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

fn magichunt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .args(args)
        .output()
        .expect("binary runs")
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

// ---- Compile, fill and check the generated code. ----

/// Every subset of every square, with bits outside the mask added (they must not matter):
/// records of (piece << 6 | square, occupancy, expected attacks), little-endian u64s.
fn reference_data(dir: &Path) -> (PathBuf, usize) {
    let mut bytes = Vec::new();
    let mut noise = 0x9e37_79b9_7f4a_7c15u64;
    let mut n = 0;
    for t in Target::all() {
        let occ = Occupancies::new(t);
        let key = (t.piece as u64) << 6 | t.square.index() as u64;
        for &(sub, att) in &occ.pairs {
            noise ^= noise << 13;
            noise ^= noise >> 7;
            noise ^= noise << 17;
            let outside = noise & !occ.mask.0 & !t.square.bb().0;
            for (o, a) in [(sub.0, att.0), (sub.0 | outside, att.0)] {
                bytes.extend_from_slice(&key.to_le_bytes());
                bytes.extend_from_slice(&o.to_le_bytes());
                bytes.extend_from_slice(&a.to_le_bytes());
                n += 1;
            }
        }
    }
    let path = dir.join("reference.bin");
    std::fs::write(&path, bytes).unwrap();
    (path, n)
}

fn tool(var: &str, default: &str) -> Option<String> {
    let name = std::env::var(var).unwrap_or_else(|_| default.to_string());
    let found = Command::new(&name).arg("--version").output().is_ok();
    if !found {
        println!("skipped: {name} not found (set {var})");
    }
    found.then_some(name)
}

fn run_ok(cmd: &mut Command) -> Output {
    let o = cmd.output().expect("runs");
    assert!(
        o.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

const RUST_HARNESS: &str = r#"
mod magics;
fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    magics::init_attack_tables();
    let mut n = 0u64;
    for rec in bytes.chunks_exact(24) {
        let w = |i: usize| u64::from_le_bytes(rec[i * 8..i * 8 + 8].try_into().unwrap());
        let (key, occ, want) = (w(0), w(1), w(2));
        let sq = (key & 63) as usize;
        let got = if key >> 6 == 0 { magics::rook_attacks(sq, occ) } else { magics::bishop_attacks(sq, occ) };
        if got != want {
            eprintln!("piece {} square {sq} occ {occ:#x}: got {got:#x}, want {want:#x}", key >> 6);
            std::process::exit(1);
        }
        n += 1;
    }
    println!("{n} {} {}", magics::ROOK_TABLE_SIZE, magics::BISHOP_TABLE_SIZE);
}
"#;

const C_HARNESS: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include "magics.h"
int main(int argc, char **argv)
{
    FILE *f;
    uint64_t rec[3];
    unsigned long n = 0;
    if (argc < 2 || !(f = fopen(argv[1], "rb")))
        return 2;
    init_attack_tables();
    while (fread(rec, sizeof rec, 1, f) == 1) {
        int sq = (int)(rec[0] & 63);
        uint64_t got = (rec[0] >> 6) == 0 ? rook_attacks(sq, rec[1]) : bishop_attacks(sq, rec[1]);
        if (got != rec[2]) {
            fprintf(stderr, "square %d occ %llx: got %llx\n", sq,
                    (unsigned long long)rec[1], (unsigned long long)got);
            return 1;
        }
        n++;
    }
    fclose(f);
    printf("%lu %lu %lu\n", n, (unsigned long)ROOK_TABLE_SIZE, (unsigned long)BISHOP_TABLE_SIZE);
    return 0;
}
"#;

/// The harness prints `records rook_size bishop_size`; check them against the layout.
fn check_run(o: &Output, records: usize, tight: bool) {
    let out = String::from_utf8_lossy(&o.stdout);
    let l = layout(tight);
    assert_eq!(
        out.trim(),
        format!(
            "{records} {} {}",
            l.size(Piece::Rook),
            l.size(Piece::Bishop)
        )
    );
}

#[test]
fn generated_rust_compiles_without_warnings_and_matches_the_reference() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (data, records) = reference_data(dir.path());
    for (tight, lookup) in [(false, false), (false, true), (true, true)] {
        let src = dir.path().join("magics.rs");
        std::fs::write(&src, export(Format::Rust, tight, lookup)).unwrap();
        let o = run_ok(
            Command::new(&rustc)
                .args(["--edition", "2021", "--crate-type", "lib", "--out-dir"])
                .arg(dir.path())
                .arg(&src),
        );
        assert!(
            o.stderr.is_empty(),
            "tight {tight} lookup {lookup}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if !lookup {
            continue;
        }
        std::fs::write(dir.path().join("main.rs"), RUST_HARNESS).unwrap();
        let exe = dir.path().join("harness");
        run_ok(
            Command::new(&rustc)
                .args([
                    "--edition",
                    "2021",
                    "-C",
                    "opt-level=1",
                    "-A",
                    "warnings",
                    "-o",
                ])
                .arg(&exe)
                .arg(dir.path().join("main.rs")),
        );
        check_run(&run_ok(Command::new(&exe).arg(&data)), records, tight);
    }
}

#[test]
fn generated_c_compiles_with_werror_and_matches_the_reference() {
    let Some(cc) = tool("CC", "cc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (data, records) = reference_data(dir.path());
    let strict = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    for (tight, lookup) in [(false, false), (false, true), (true, true)] {
        std::fs::write(
            dir.path().join("magics.h"),
            export(Format::C, tight, lookup),
        )
        .unwrap();
        // The header alone, included by a unit that uses nothing of it.
        std::fs::write(
            dir.path().join("only.c"),
            "#include \"magics.h\"\nint main(void) { return 0; }\n",
        )
        .unwrap();
        run_ok(
            Command::new(&cc)
                .args(strict)
                .arg("-o")
                .arg(dir.path().join("only"))
                .arg(dir.path().join("only.c")),
        );
        if !lookup {
            continue;
        }
        std::fs::write(dir.path().join("main.c"), C_HARNESS).unwrap();
        let exe = dir.path().join("harness");
        run_ok(
            Command::new(&cc)
                .args(strict)
                .arg("-O1")
                .arg("-o")
                .arg(&exe)
                .arg(dir.path().join("main.c")),
        );
        check_run(&run_ok(Command::new(&exe).arg(&data)), records, tight);
    }
}

#[test]
fn a_missing_store_exports_a_complete_popcount_table() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.json");
    let o = magichunt(&[
        "export",
        "--format",
        "json",
        "--store",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no such store"), "{err}");
    assert!(
        err.contains("total 107648 entries (841 KiB) at 8 bytes per entry"),
        "{err}"
    );
    let table = Table::parse(&o.stdout, Path::new("stdout")).unwrap();
    assert_eq!(table.entries.len(), 128);
    assert!(!missing.exists(), "export never creates the store");
}
