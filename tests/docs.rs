//! What the README promises a shell user: `completions` and `man` produce what their names
//! say, naming every subcommand.

use std::process::{Command, Output};

fn magichunt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn run_ok(cmd: &mut Command) -> Output {
    let o = cmd.output().expect("runs");
    assert!(o.status.success(), "{cmd:?} failed: {o:?}");
    o
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
    assert!(export.contains("with\\-lookup"), "{export}");
    assert!(pages.join("magichunt.1").exists());
}
