//! What an engine's CI relies on when it regenerates an export and compares: the same table
//! exported by the same magichunt from any folder gives the same bytes (the header names the
//! source by its file name and its content hash, never the path as typed), and the names an
//! engine uses are the same in every layout, so one engine file builds against `--layout
//! fancy`, `tight`, `packed` and `--packed FILE` unchanged (`tests/examples/layouts/`, quoted
//! in docs/export.md) and its lookups equal the slow reference.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{compile, langs, link, run_ok, tool, FIXTURE, OUR_PACKED};
use magichunt::attacks::relevant_mask;
use magichunt::export::{content_sha256, Layout};
use magichunt::store::Store;
use magichunt::Target;

/// Runs the binary in `dir` (which need not be a checkout), with no cache of checks.
fn magichunt_in(dir: &Path, args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .current_dir(dir)
        .env("MAGICHUNT_CACHE", "off")
        .env_remove("MAGICHUNT_STORE")
        .args(args)
        .output()
        .expect("binary runs");
    assert_eq!(o.status.code(), Some(0), "{args:?}: {o:?}");
    o
}

/// `file` copied to `dir/sub` (created), and the copy's path.
fn copy_into(file: &str, dir: &Path, sub: &str) -> PathBuf {
    let to = dir.join(sub);
    std::fs::create_dir_all(&to).unwrap();
    let to = to.join(Path::new(file).file_name().unwrap());
    std::fs::copy(file, &to).unwrap();
    to
}

#[test]
fn the_same_table_from_two_folders_gives_the_same_bytes() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // One copy deep under `a`, named relatively from there; one at the top of `b`, named by
    // its absolute path from the checkout.
    let deep = copy_into(FIXTURE, a.path(), "engine/third_party/magics");
    let top = copy_into(FIXTURE, b.path(), ".");
    let relative = deep.strip_prefix(a.path()).unwrap().to_str().unwrap();
    let store_hash = content_sha256(&Store::load(Path::new(FIXTURE)).unwrap().to_json());
    for (format, layout) in [("c", "fancy"), ("rust", "tight"), ("json", "fancy")] {
        let args = [
            "export",
            "--format",
            format,
            "--with-lookup",
            "--layout",
            layout,
        ];
        let mut one = args.to_vec();
        one.extend(["--store", relative]);
        let mut two = args.to_vec();
        two.extend(["--store", top.to_str().unwrap()]);
        let x = magichunt_in(a.path(), &one).stdout;
        let y = magichunt_in(Path::new("."), &two).stdout;
        let text = String::from_utf8(x.clone()).unwrap();
        assert!(
            x == y,
            "{format} {layout}: the two folders give different bytes"
        );
        let head: String = text.lines().take(5).collect();
        assert!(
            head.contains(&format!(
                "from the store store.json (content SHA-256 {store_hash})"
            )),
            "{head}"
        );
        for folder in ["engine", "third_party", "tmp"] {
            assert!(!head.contains(folder), "{format}: {head}");
        }
    }
    // A packed table written by `magichunt pack`: named by its file name and by the hash
    // `sha256sum` gives for it (magichunt writes it in the form it hashes).
    let deep = copy_into(OUR_PACKED, a.path(), "x/y");
    let top = copy_into(OUR_PACKED, b.path(), ".");
    let args =
        |p: &Path| ["export", "--format", "c", "--packed", p.to_str().unwrap()].map(String::from);
    let one = args(deep.strip_prefix(a.path()).unwrap());
    let two = args(&top);
    let x = magichunt_in(a.path(), &one.each_ref().map(String::as_str)).stdout;
    let y = magichunt_in(b.path(), &two.each_ref().map(String::as_str)).stdout;
    assert!(x == y, "--packed: the two folders give different bytes");
    let file_hash = content_sha256(&std::fs::read_to_string(OUR_PACKED).unwrap());
    let text = String::from_utf8(x).unwrap();
    assert!(
        text.contains(&format!(
            "from the packed table packed-pool.json (content SHA-256 {file_hash})"
        )),
        "{}",
        &text[..300]
    );
    assert!(!text.contains("x/y") && !text.contains("results/"));
}

/// Lookups the engine examples make: every blocker subset of every square.
fn subsets() -> u64 {
    Target::all()
        .map(|t| 1u64 << relevant_mask(t.piece, t.square).count())
        .sum()
}

/// The engine examples beside an export made with `args` (written as `out`).
fn engine_dir(out: &str, args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["engine.c", "main.rs"] {
        copy_into(&format!("tests/examples/layouts/{f}"), dir.path(), ".");
    }
    let target = dir.path().join(out);
    let mut all = vec!["export", "--with-lookup", "--out", target.to_str().unwrap()];
    all.extend(args);
    magichunt_in(Path::new("."), &all);
    dir
}

/// The exports the engines are built against: the fixture in each layout (packed and
/// indexed by the library's packer, read by `--packed`: the same lines as `--layout packed`
/// but for the header), and our shipped packed table.
fn variants() -> Vec<Vec<&'static str>> {
    Layout::ALL
        .into_iter()
        .map(|l| {
            if l.shared() {
                vec!["--packed", common::fixture_table_file(l)]
            } else {
                vec!["--store", FIXTURE, "--layout", l.name()]
            }
        })
        .chain([vec!["--packed", OUR_PACKED]])
        .collect()
}

/// What an engine example prints: every lookup, none wrong, and the size of the table it
/// allocated by `ATTACK_TABLE_SIZE`, which must be the one the export's header states.
fn check_engine(o: &Output, export: &Path, args: &[&str]) {
    let text = std::fs::read_to_string(export).unwrap();
    let size = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("#define ATTACK_TABLE_SIZE ")
                .or_else(|| l.strip_prefix("pub const ATTACK_TABLE_SIZE: usize = "))
        })
        .map(|v| v.trim_end_matches(';'))
        .expect("the export defines ATTACK_TABLE_SIZE");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{} lookups, 0 wrong; table of {size} entries\n", subsets()),
        "{args:?}"
    );
}

#[test]
fn one_c_engine_builds_against_every_layout() {
    let Some([c99, _, cxx17]) = langs() else {
        return;
    };
    for args in variants() {
        let mut all = vec!["--format", "c"];
        all.extend(&args);
        let dir = engine_dir("magics.h", &all);
        for lang in [&c99, &cxx17] {
            let exe = dir.path().join("engine");
            link(
                &lang.compiler,
                &[compile(lang, &dir.path().join("engine.c"))],
                &exe,
            );
            let o = run_ok(&mut Command::new(&exe));
            check_engine(&o, &dir.path().join("magics.h"), &args);
        }
    }
}

#[test]
fn one_rust_engine_builds_against_every_layout_and_black_magics() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    // Every layout of plain magics, and black magics packed: the published black table (the
    // other black layouts are built by tests/export_layouts.rs).
    let mut runs = variants();
    runs.push(vec!["--packed", common::BLACK_PACKED]);
    for args in runs {
        let mut all = vec!["--format", "rust"];
        all.extend(&args);
        let dir = engine_dir("magics.rs", &all);
        let exe = dir.path().join("engine");
        let o = run_ok(
            Command::new(&rustc)
                .args([
                    "--edition",
                    "2021",
                    "-D",
                    "warnings",
                    "-C",
                    "opt-level=1",
                    "-o",
                ])
                .arg(&exe)
                .arg(dir.path().join("main.rs")),
        );
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let o = run_ok(&mut Command::new(&exe));
        check_engine(&o, &dir.path().join("magics.rs"), &args);
    }
}
