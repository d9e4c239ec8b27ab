//! What the README promises an engine author and a shell user: the "Using it in an engine"
//! examples are the files in `tests/examples/`, quoted exactly, and they build and run against
//! a real export; `completions` and `man` produce what their names say.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{compile, langs, link, magichunt, run_ok, tool, FIXTURE};

/// The code blocks of README.md that follow a `<!-- tests/examples/... -->` line, by path.
fn quoted_examples() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let mut out = Vec::new();
    let mut lines = readme.lines();
    while let Some(l) = lines.next() {
        let Some(path) = l
            .strip_prefix("<!-- ")
            .and_then(|r| r.strip_suffix(" -->"))
            .filter(|p| p.starts_with("tests/examples/"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "{path}: no code block after the marker"
        );
        let body: String = lines
            .by_ref()
            .take_while(|l| *l != "```")
            .map(|l| format!("{l}\n"))
            .collect();
        out.push((path.to_string(), body));
    }
    out
}

/// Every file under `tests/examples/`.
fn example_files() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.to_str().unwrap().to_string());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(Path::new("tests/examples"), &mut out);
    out
}

#[test]
fn the_readme_quotes_every_example_exactly() {
    let quoted = quoted_examples();
    let paths: BTreeSet<String> = quoted.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(paths, example_files(), "README markers vs tests/examples/");
    assert_eq!(paths.len(), quoted.len(), "an example quoted twice");
    for (path, body) in quoted {
        let file = std::fs::read_to_string(&path).unwrap();
        assert_eq!(body, file, "README's copy of {path} differs from the file");
    }
}

/// Copies the example folder `name` into a temporary folder beside an export made by the
/// binary with `args` (written as `out`).
fn example_dir(name: &str, out: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(Path::new("tests/examples").join(name)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    let target = dir.path().join(out);
    let mut all = vec![
        "export",
        "--store",
        FIXTURE,
        "--out",
        target.to_str().unwrap(),
    ];
    all.extend(args);
    let o = magichunt(&all);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let root = dir.path().to_path_buf();
    (dir, root)
}

#[test]
fn the_c_examples_build_and_run_as_c_and_cxx() {
    let Some(langs) = langs() else {
        return;
    };
    let (_keep, d) = example_dir("c", "magics.h", &["--format", "c", "--with-lookup"]);
    let (_keep2, p) = example_dir(
        "prefix",
        "magics.h",
        &["--format", "c", "--with-lookup", "--prefix", "mh_"],
    );
    for lang in &langs {
        let objs: Vec<PathBuf> = ["magics.c", "attacks.c", "main.c"]
            .iter()
            .map(|f| compile(lang, &d.join(f)))
            .collect();
        let exe = d.join("engine");
        link(&lang.compiler, &objs, &exe);
        let o = run_ok(&mut Command::new(&exe));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "queen d4, pawn d5: 24 squares\n"
        );

        let exe = p.join("engine");
        link(&lang.compiler, &[compile(lang, &p.join("engine.c"))], &exe);
        let o = run_ok(&mut Command::new(&exe));
        assert!(
            String::from_utf8_lossy(&o.stdout)
                .starts_with("rook a1 01010101010101fe, bishop a1 8040201008040200, "),
            "{o:?}"
        );
    }
}

#[test]
fn the_rust_example_builds_without_warnings_and_runs() {
    let Some(rustc) = tool("RUSTC", "rustc") else {
        return;
    };
    let (_keep, d) = example_dir("rust", "magics.rs", &["--format", "rust", "--with-lookup"]);
    let exe = d.join("engine");
    let o = run_ok(
        Command::new(&rustc)
            .args(["--edition", "2021", "-D", "warnings", "-o"])
            .arg(&exe)
            .arg(d.join("main.rs")),
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run_ok(&mut Command::new(&exe));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "queen d4, pawn d5: 24 squares\n"
    );
}

/// The subcommands every completion script and the manual page must name.
const SUBCOMMANDS: [&str; 11] = [
    "hunt",
    "verify",
    "show",
    "export",
    "compare",
    "exhaust",
    "prove",
    "merge",
    "bench",
    "completions",
    "man",
];

#[test]
fn completions_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let o = magichunt(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {o:?}");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.len() > 1000, "{shell}: {} bytes", text.len());
        for sub in SUBCOMMANDS {
            assert!(text.contains(sub), "{shell} completion lacks {sub}");
        }
        assert!(
            text.contains("--with-lookup") || text.contains("with-lookup"),
            "{shell}"
        );
    }
    // Bash can at least parse its script.
    if Command::new("bash").arg("--version").output().is_ok() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("magichunt.bash");
        std::fs::write(&script, magichunt(&["completions", "bash"]).stdout).unwrap();
        run_ok(Command::new("bash").arg("-n").arg(&script));
    }
    let o = magichunt(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
}

#[test]
fn man_prints_a_page_and_writes_one_per_subcommand() {
    let o = magichunt(&["man"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let page = String::from_utf8_lossy(&o.stdout);
    assert!(
        page.starts_with(".ie") || page.contains(".TH magichunt 1"),
        "{}",
        &page[..200]
    );
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("magichunt\\-{sub}")),
            "man page lacks {sub}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let o = magichunt(&["man", "--dir", pages.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    for sub in SUBCOMMANDS {
        let p = pages.join(format!("magichunt-{sub}.1"));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(text.contains(".SH"), "{}", p.display());
    }
    let export = std::fs::read_to_string(pages.join("magichunt-export.1")).unwrap();
    assert!(
        export.contains("allow\\-missing") && export.contains("prefix"),
        "{export}"
    );
    assert!(pages.join("magichunt.1").exists());
}
