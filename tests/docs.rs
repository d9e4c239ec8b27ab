//! What the README and `docs/` promise an engine author and a shell user: the engine examples
//! are the files in `tests/examples/`, quoted exactly, and they build and run against a real
//! export; every `magichunt` command in a shell block parses with the binary's own command
//! line and every script named exists; `completions` and `man` produce what their names say;
//! the README and the reference keep their size, and nothing speaks of working periods.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::error::ErrorKind;
use clap::Parser as _;
use common::{compile, langs, link, magichunt, run_ok, tool, FIXTURE};

/// The README and every Markdown file of `docs/` and of its research log, `docs/log/` (whose
/// commands are the figures' own, so they must still parse, and whose links must lead
/// somewhere as the reference's do).
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = ["docs", "docs/log"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    docs.insert(0, PathBuf::from("README.md"));
    docs
}

/// The code blocks of `doc` that follow a `<!-- tests/examples/... -->` line, by path.
fn quoted_examples(doc: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut out = Vec::new();
    let mut lines = text.lines();
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
            "{}: {path}: no code block after the marker",
            doc.display()
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
fn the_docs_quote_every_example_exactly() {
    let mut quoted = BTreeSet::new();
    for doc in documents() {
        let examples = quoted_examples(&doc);
        let paths: BTreeSet<String> = examples.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(
            paths.len(),
            examples.len(),
            "{}: an example quoted twice",
            doc.display()
        );
        for (path, body) in examples {
            let file = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {path}: {e}", doc.display()));
            assert_eq!(
                body,
                file,
                "{}'s copy of {path} differs from the file",
                doc.display()
            );
            quoted.insert(path);
        }
    }
    assert_eq!(
        quoted,
        example_files(),
        "markers in the docs vs tests/examples/"
    );
}

/// The lines of the shell code blocks of `doc`.
pub(crate) fn shell_lines(doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    for l in text.lines() {
        if in_sh && l.starts_with("```") {
            in_sh = false;
        } else if in_sh {
            out.push(l.to_string());
        } else if l == "```sh" {
            in_sh = true;
        }
    }
    out
}

/// The simple commands of a shell line: words split as the shell would (quotes kept
/// together, `#` starting a comment), cut at `|`, `;`, `&&`, `$(`, `)` and redirections.
pub(crate) fn commands(line: &str) -> Vec<Vec<String>> {
    let mut cmds = vec![Vec::new()];
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, cmds: &mut Vec<Vec<String>>| {
        if *in_word {
            cmds.last_mut().unwrap().push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, ' ' | '\t') => end_word(&mut word, &mut in_word, &mut cmds),
            (None, '|' | ';' | '&' | ')' | '>' | '<') => {
                end_word(&mut word, &mut in_word, &mut cmds);
                cmds.push(Vec::new());
            }
            (None, '$') if chars.peek() == Some(&'(') => {
                chars.next();
                end_word(&mut word, &mut in_word, &mut cmds);
                cmds.push(Vec::new());
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut cmds);
    // After a redirection comes a file name, not a command.
    cmds.into_iter().filter(|c| !c.is_empty()).collect()
}

#[test]
fn the_shell_splitter_splits_as_the_shell_does() {
    assert_eq!(
        commands("magichunt man > ~/x.1     # then: man magichunt"),
        [vec!["magichunt", "man"], vec!["~/x.1"]]
    );
    assert_eq!(
        commands("jid=$(sbatch --parsable a.sbatch --x 'y z')"),
        [
            vec!["jid="],
            vec!["sbatch", "--parsable", "a.sbatch", "--x", "y z"]
        ]
    );
    assert_eq!(commands("a | b && c"), [vec!["a"], vec!["b"], vec!["c"]]);
}

/// Every `magichunt` command in a shell block of the README and `docs/` (also as `cargo run
/// --release -- ...`) parses with the binary's own command line, and every script a block
/// names exists and is executable: a renamed flag or script fails here.
#[test]
fn every_command_in_the_docs_is_one_the_binary_takes() {
    let mut checked = 0;
    for doc in documents() {
        for line in shell_lines(&doc) {
            for cmd in commands(&line) {
                let words: Vec<&str> = cmd
                    .iter()
                    .map(String::as_str)
                    .skip_while(|w| w.contains('=') && !w.starts_with('-'))
                    .collect();
                for w in words.iter().filter(|w| w.starts_with("scripts/")) {
                    let meta = std::fs::metadata(w)
                        .unwrap_or_else(|e| panic!("{}: `{line}` names {w}: {e}", doc.display()));
                    use std::os::unix::fs::PermissionsExt as _;
                    assert!(
                        meta.permissions().mode() & 0o111 != 0
                            || w.ends_with(".sbatch")
                            || w.ends_with(".c"),
                        "{}: {w} is not executable",
                        doc.display()
                    );
                }
                let args: &[&str] = match words.as_slice() {
                    ["magichunt", rest @ ..] => rest,
                    ["cargo", "run", "--release", "--", rest @ ..] => rest,
                    _ => continue,
                };
                let argv = std::iter::once("magichunt").chain(args.iter().copied());
                if let Err(e) = magichunt::cli::Opts::try_parse_from(argv) {
                    // `--version` and `--help` parse into what they print.
                    if !matches!(e.kind(), ErrorKind::DisplayVersion | ErrorKind::DisplayHelp) {
                        panic!("{}: `{line}` does not parse:\n{e}", doc.display());
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "only {checked} commands found");
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

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of a Markdown file (outside code blocks).
fn anchors(doc: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(doc).unwrap();
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for l in text.lines() {
        if l.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && l.starts_with('#') {
            out.insert(slug(l.trim_start_matches('#')));
        }
    }
    out
}

/// Every relative link of the README and `docs/` names a file that exists and, with `#`, a
/// heading it has.
#[test]
fn every_link_in_the_docs_leads_somewhere() {
    assert_eq!(
        slug("The built-in table's proofs"),
        "the-built-in-tables-proofs"
    );
    assert_eq!(slug("exhaust and merge"), "exhaust-and-merge");
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for part in text.split("](").skip(1) {
            let Some(target) = part.split(')').next() else {
                continue;
            };
            if target.contains("://") || target.contains(' ') {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(file)
            };
            assert!(
                path.exists(),
                "{}: link to {target}: no such file",
                doc.display()
            );
            if !anchor.is_empty() {
                assert!(
                    anchors(&path).contains(anchor),
                    "{}: link to {target}: no such heading",
                    doc.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} links");
}

/// The README is a front door (at most 150 lines) and every file directly under `docs/` is
/// reference (at most 600 lines); what was tried and dropped goes to `docs/log/`.
#[test]
fn the_readme_and_the_reference_keep_their_size() {
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
    let readme = lines(Path::new("README.md"));
    assert!(readme <= 150, "README.md has {readme} lines");
    for doc in documents()
        .iter()
        .filter(|d| d.parent() == Some(Path::new("docs")))
    {
        let n = lines(doc);
        assert!(
            n <= 600,
            "{} has {n} lines: move narrative to docs/log/",
            doc.display()
        );
    }
}

/// The project speaks of itself by dates, commits, commands and CPU-hours, never of working
/// periods: no text file of the repository uses the word (a process group's, as `setsid`
/// makes, is the one exception, and it is written as `setsid`).
#[test]
fn nothing_speaks_of_working_periods() {
    let word = ["ses", "sion"].concat();
    let mut checked = 0;
    let mut files = vec![PathBuf::from("README.md"), PathBuf::from("CHANGELOG.md")];
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    for dir in [
        "docs", "src", "scripts", "tests", "bench", "examples", ".ci", "results",
    ] {
        walk(Path::new(dir), &mut files);
    }
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue; // not text (certificates, pools)
        };
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            let hit = lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == word || w == format!("{word}s"));
            assert!(!hit, "{}:{}: {line}", f.display(), i + 1);
        }
        checked += 1;
    }
    assert!(checked > 200, "only {checked} files");
}
