//! Imports run one way: `scripts/module-cycles.py` finds no circle between the modules of
//! `src/` one level down (export::tables, layout::pack, ...), and at the top level none but
//! the one known below.

use std::process::Command;

/// Runs the script with `args`; `None` when python3 is missing (the test then says so).
fn cycles(args: &[&str]) -> Option<(bool, String)> {
    let out = Command::new("python3")
        .arg("scripts/module-cycles.py")
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.success(), text))
}

#[test]
fn no_circles_between_submodules() {
    let Some((ok, text)) = cycles(&["--depth", "2", "--no-tests"]) else {
        eprintln!("SKIP: python3 not found");
        return;
    };
    assert!(ok, "{text}");
    assert_eq!(text.trim(), "no cycles");
}

/// The one circle left at the top level: `layout::pack` reads a store, the store reads the
/// published proofs, and `published` builds its packed tables with `layout::packed`. It goes
/// when the packed-table format moves below `published` (the packer rewrite, issue 22).
const KNOWN: &str = "cycle among: layout, published, store";

#[test]
fn no_new_circles_between_top_level_modules() {
    let Some((_, text)) = cycles(&["--no-tests"]) else {
        eprintln!("SKIP: python3 not found");
        return;
    };
    for line in text.lines().filter(|l| l.starts_with("cycle among:")) {
        assert_eq!(line, KNOWN, "a new circle:\n{text}");
    }
}

#[test]
fn the_script_sees_a_circle() {
    // The checker itself: a two-module circle in a scratch crate is reported.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "pub struct B(crate::a::A);\n").unwrap();
    let script = std::fs::canonicalize("scripts/module-cycles.py").unwrap();
    let Ok(out) = Command::new("python3")
        .arg(script)
        .current_dir(dir.path())
        .output()
    else {
        eprintln!("SKIP: python3 not found");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("cycle among: a, b"), "{text}");
}

/// The calls that open, create, lock or replace a file: only `src/fs/` makes them, so that
/// its rules (regular files read within bounds, temporary files created exclusively, lock
/// files never followed, outputs guarded) hold for every file the project touches.
const FILE_CALLS: [&str; 13] = [
    "File::open(",
    "File::create(",
    "File::create_new(",
    "OpenOptions",
    "fs::write(",
    "fs::read(",
    "fs::read_to_string(",
    "fs::rename(",
    "fs::remove_file(",
    "fs::copy(",
    "fs::hard_link(",
    "create_dir_all(",
    ".try_lock(",
];

#[test]
fn only_the_fs_room_opens_creates_locks_or_replaces_a_file() {
    let mut found = Vec::new();
    let mut stack = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                if path != std::path::Path::new("src/fs") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs")
                || path.file_name().is_some_and(|n| n == "tests.rs")
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Unit tests make their own fixtures.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (k, line) in code.lines().enumerate() {
                let line = line.split("//").next().unwrap_or("");
                // The kernel's own figures (`/proc/self/stat`) are no file of the project's.
                if line.contains("\"/proc/") {
                    continue;
                }
                for call in FILE_CALLS {
                    if line.contains(call) {
                        found.push(format!("{}:{}: {call}", path.display(), k + 1));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "file calls outside src/fs/ (go through magichunt::fs):\n{}",
        found.join("\n")
    );
}
