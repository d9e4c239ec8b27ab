//! Issue 72, classes 4 to 8, each run through the binary: table inputs whose offsets lie are
//! refused before anything is sized from them; `verify --file` checks every field it
//! reports on; output to a closed pipe, a full device or a closed stdout ends in one line (a
//! broken pipe quietly, exit 141), never a panic; text from a table or a store is escaped
//! for the document it enters (Markdown, SVG, a terminal); `--threads` says its bound once.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::report;
use crate::sandbox;

const FIXTURE: &str = "tests/golden/store.json";
const PACKED: &str = "tests/golden/magics-packed.json";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn mh_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit `code`, no panic, and the last line on stderr containing `want`.
fn ends(o: &Output, code: i32, want: &str) {
    assert_eq!(o.status.code(), Some(code), "{}", report(o));
    let err = stderr(o);
    assert!(!err.contains("panicked"), "{}", report(o));
    assert!(
        err.trim_end()
            .lines()
            .last()
            .is_some_and(|l| l.contains(want)),
        "wanted {want:?} last: {}",
        report(o)
    );
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

fn write_json(p: &Path, v: &Value) {
    fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

// 4. Table inputs are bounded before anything is sized from them.

/// Memory (KiB) a refused table may make the binary hold: the tables are a few hundred KB.
const MAX_KIB: u64 = 96 * 1024;

#[test]
fn lying_offsets_are_refused_before_anything_is_allocated() {
    let env = sandbox::Env::new();
    let d = env.dir.path();
    fs::copy(root().join(FIXTURE), d.join("s.json")).unwrap();
    let published = root().join("results/published/annuss-fixed-shift-2008.json");
    for (base, entry) in [(root().join(PACKED), 5), (published, 70)] {
        for offset in [u64::from(u32::MAX), 1 << 25, 600_000] {
            let mut v = read_json(&base);
            v["entries"][entry]["offset"] = json!(offset);
            write_json(&d.join("lie.json"), &v);
            for args in [
                vec!["verify", "--file", "lie.json"],
                vec!["export", "--packed", "lie.json", "--format", "c"],
                vec!["compare", "--store", "s.json", "--packed", "lie.json"],
                vec!["pack", "--from", "lie.json", "--steps", "0", "--out", "-"],
            ] {
                let w = env.mh_watched(&args, Duration::from_secs(60));
                let o = &w.output;
                ends(o, 2, "not a packed table");
                assert!(
                    stderr(o).contains(&format!("offset {offset}")),
                    "{}",
                    report(o)
                );
                if let Some(kib) = w.peak_kib {
                    assert!(kib < MAX_KIB, "{kib} KiB for {args:?} at {offset}");
                }
            }
        }
    }
    // An indexed table's offsets (one-byte ids) are bounded in the same way.
    for offset in [u64::from(u32::MAX), 1 << 25, 600_000] {
        let mut v = read_json(&root().join("results/packed-indexed.json"));
        v["entries"][5]["offset"] = json!(offset);
        write_json(&d.join("lie.json"), &v);
        for args in [
            vec!["verify", "--file", "lie.json"],
            vec!["export", "--packed", "lie.json", "--format", "rust"],
            vec!["compare", "--store", "s.json", "--packed", "lie.json"],
            vec![
                "pack", "--layout", "indexed", "--from", "lie.json", "--out", "-",
            ],
        ] {
            let w = env.mh_watched(&args, Duration::from_secs(60));
            let o = &w.output;
            ends(o, 2, "not an indexed table");
            assert!(
                stderr(o).contains(&format!("offset {offset}")),
                "{}",
                report(o)
            );
            if let Some(kib) = w.peak_kib {
                assert!(kib < MAX_KIB, "{kib} KiB for {args:?} at {offset}");
            }
        }
    }
    // An export's offsets (fancy: one table per piece) are bounded by verify in the same way.
    let o = mh_in(
        d,
        &[
            "export", "--format", "json", "--store", "s.json", "--out", "e.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let mut v = read_json(&d.join("e.json"));
    v["entries"][3]["offset"] = json!(u32::MAX);
    write_json(&d.join("e.json"), &v);
    let w = env.mh_watched(&["verify", "--file", "e.json"], Duration::from_secs(60));
    assert_eq!(w.output.status.code(), Some(1), "{}", report(&w.output));
    assert!(
        stdout(&w.output).contains("an offset is wrong"),
        "{}",
        report(&w.output)
    );
    if let Some(kib) = w.peak_kib {
        assert!(kib < MAX_KIB, "{kib} KiB");
    }
}

// 5. verify --file checks every field it reports on.

/// A lie told in an export: its name, what it changes, what verify says of it.
type Lie = (&'static str, fn(&mut Value), &'static str);

#[test]
fn verify_checks_the_fields_of_an_export_and_says_what_it_did_not() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::copy(root().join(FIXTURE), d.join("s.json")).unwrap();
    let o = mh_in(
        d,
        &[
            "export", "--format", "json", "--store", "s.json", "--out", "e.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let good = read_json(&d.join("e.json"));
    let o = mh_in(d, &["verify", "--file", "e.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let text = stdout(&o);
    assert!(text.contains("offsets and table_sizes hold"), "{text}");
    let checked = text.lines().find(|l| l.contains("  checked ")).unwrap();
    for f in ["mask", "shift", "offset", "table_sizes", "max_index"] {
        assert!(checked.contains(f), "{f}: {text}");
    }
    let not = text.lines().find(|l| l.contains("not checked")).unwrap();
    assert!(
        not.contains("comment"),
        "the header's prose is taken as stated: {text}"
    );
    // Each lie of the issue alone, and all of them at once.
    let lies: [Lie; 5] = [
        (
            "mask",
            |v| v["entries"][0]["mask"] = json!("0x000101010101017f"),
            "mask \"0x000101010101017f\" in the file",
        ),
        (
            "shift",
            |v| v["entries"][0]["shift"] = json!(51),
            "shift 51 in the file, verify gives 52",
        ),
        (
            "offset",
            |v| v["entries"][1]["offset"] = v["entries"][0]["offset"].clone(),
            "the rook table: slot",
        ),
        (
            "table_sizes",
            |v| v["table_sizes"]["rook"] = json!(1),
            "table_sizes.rook 1 in the file",
        ),
        (
            "everything",
            |v| {
                v["entries"][0]["mask"] = json!("0x1");
                v["entries"][0]["shift"] = json!(51);
                v["entries"][1]["offset"] = json!(0);
                v["table_sizes"]["attack"] = json!(7);
            },
            "in the file",
        ),
    ];
    for (what, lie, want) in lies {
        let mut v = good.clone();
        lie(&mut v);
        write_json(&d.join("lie.json"), &v);
        let o = mh_in(d, &["verify", "--file", "lie.json"]);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", report(&o));
        assert!(stdout(&o).contains(want), "{what}: {}", report(&o));
        let o = mh_in(d, &["verify", "--file", "lie.json", "--json"]);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", report(&o));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(doc["valid"], false, "{what}");
    }
    // A published table's own figures: mask_popcount, used_indices, verified.
    let published = root().join("results/published/annuss-fixed-shift-2016.json");
    for (field, value) in [
        ("mask_popcount", json!(11)),
        ("used_indices", json!(2)),
        ("verified", json!(false)),
    ] {
        let mut v = read_json(&published);
        v["entries"][0][field] = value;
        write_json(&d.join("lie.json"), &v);
        let o = mh_in(d, &["verify", "--file", "lie.json"]);
        assert_eq!(o.status.code(), Some(1), "{field}: {}", report(&o));
        assert!(
            stdout(&o).contains(&format!("{field} ")),
            "{field}: {}",
            report(&o)
        );
    }
    let mut v = read_json(&published);
    v["packed_table"]["computed_size_entries"] = json!(5);
    write_json(&d.join("lie.json"), &v);
    let o = mh_in(d, &["verify", "--file", "lie.json"]);
    assert_eq!(o.status.code(), Some(1), "{}", report(&o));
    assert!(
        stdout(&o).contains("packed_table.computed_size_entries 5"),
        "{}",
        report(&o)
    );
}

// 6. Output errors are one line and a non-zero exit; a broken pipe ends quietly.

/// Commands that write on stdout, from a folder holding `s.json`.
fn writers() -> Vec<Vec<&'static str>> {
    vec![
        vec!["show", "--piece", "rook", "--square", "a1"],
        vec!["verify", "--file", "s.json"],
        vec!["compare", "--store", "s.json"],
        vec!["prove", "--campaign", "--store", "s.json"],
        vec!["merge", "s.json", "--out", "m.json"],
        vec![
            "hunt",
            "--quiet",
            "--threads",
            "1",
            "--piece",
            "bishop",
            "--square",
            "a1",
            "--tries",
            "1000",
            "--store",
            "h.json",
        ],
        vec!["audit", "--store", "s.json"],
        vec!["export", "--format", "c", "--store", "s.json"],
    ]
}

/// The write end of a pipe whose read end is already closed: every write to it fails with
/// `EPIPE`, whenever it comes.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

fn command(d: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_magichunt"));
    c.env("MAGICHUNT_CACHE", "off").current_dir(d).args(args);
    c
}

#[test]
fn a_closed_pipe_a_full_disk_and_a_closed_stdout_end_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::copy(root().join(FIXTURE), d.join("s.json")).unwrap();
    for args in writers() {
        // The reader gone before anything is written (`| head -1` that has read its line):
        // a pipe whose read end is closed before the command starts.
        let o = command(d, &args).stdout(closed_pipe()).output().unwrap();
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", report(&o));
        assert!(
            !stderr(&o).contains("panicked") && !stderr(&o).contains("failed printing"),
            "{args:?}: {}",
            report(&o)
        );
        assert!(
            !stderr(&o).contains("stdout"),
            "quietly: {args:?}: {}",
            report(&o)
        );
        // A full device.
        let o = command(d, &args)
            .stdout(
                fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .output()
            .unwrap();
        ends(&o, 2, "cannot write to stdout: No space left on device");
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
        // Stdout closed before the start (`>&-`).
        let mut sh = Command::new("sh");
        sh.arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(env!("CARGO_BIN_EXE_magichunt"))
            .args(&args)
            .env("MAGICHUNT_CACHE", "off")
            .current_dir(d);
        let o = sh.output().unwrap();
        ends(&o, 2, "it was closed when magichunt started");
        // Output discarded on purpose, write-only or read-write (`subprocess.DEVNULL`), is
        // no error.
        for rw in [false, true] {
            let null = fs::OpenOptions::new()
                .read(rw)
                .write(true)
                .open("/dev/null")
                .unwrap();
            let o = command(d, &args).stdout(null).output().unwrap();
            assert_eq!(
                o.status.code(),
                Some(0),
                "{args:?} into /dev/null: {}",
                report(&o)
            );
        }
        let _ = fs::remove_file(d.join("m.json"));
        let _ = fs::remove_file(d.join("h.json"));
    }
    // The work is done and saved before the summary that could not be written.
    let o = command(d, &writers()[5])
        .stdout(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(141), "{}", report(&o));
    assert!(
        magichunt::store::Store::load(&d.join("h.json"))
            .unwrap()
            .entries()
            .count()
            > 0
    );
}

// 7. Text from a table or a store is escaped for each document it enters.

/// A table of theirs whose finder is hostile for every document.
fn hostile_table(d: &Path, finder: &str) -> PathBuf {
    let mut v = read_json(&root().join("results/published/cpw-best-magics-so-far.json"));
    for e in v["entries"].as_array_mut().unwrap() {
        e["found_by"] = json!(finder);
    }
    v["source"] = json!(finder);
    let p = d.join("theirs.json");
    write_json(&p, &v);
    p
}

/// Characters that must never reach a terminal raw.
fn steers(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[test]
fn markdown_svg_and_terminal_text_never_carry_raw_text_from_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let finder = "<img src=x onerror=alert(1)> | *x* [l](javascript:alert(1)) \u{1b}[2J\u{7}\u{202e} \u{ffff}";
    let theirs = hostile_table(d, finder);
    let name = "s\u{1b}]0;owned\u{7}\u{ffff}\u{1}.json";
    fs::copy(root().join(FIXTURE), d.join(name)).unwrap();
    let t = theirs.to_str().unwrap();
    // Markdown: no HTML, no markup, no broken table row.
    let o = mh_in(
        d,
        &[
            "compare",
            "--store",
            name,
            "--against",
            t,
            "--format",
            "markdown",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let md = stdout(&o);
    // With every backslash escape taken out, no character that starts markup is left.
    let mut bare = String::new();
    let mut chars = md.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else {
            bare.push(c);
        }
    }
    // Our own markup: the section folded away.
    for tag in ["<details>", "<summary>", "</summary>", "</details>"] {
        bare = bare.replace(tag, "");
    }
    for special in ["<", "[", "](", "&", "*x*"] {
        assert!(!bare.contains(special), "{special:?} unescaped: {md}");
    }
    assert!(!md.chars().any(steers), "{md:?}");
    let cells = |l: &str| l.replace("\\|", "").matches('|').count();
    let mut header = 0;
    for l in md.lines() {
        if l.starts_with('|') {
            if header == 0 {
                header = cells(l);
            }
            assert_eq!(cells(l), header, "a row broken by a cell's text: {l}");
        } else {
            header = 0;
        }
    }
    // The terminal: ESC, BEL and the overrides are shown, never sent.
    for args in [
        vec!["compare", "--store", name, "--against", t],
        vec!["verify", "--file", name],
        vec!["compare", "--store", name, "--against", t, "--json"],
    ] {
        let o = mh_in(d, &args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", report(&o));
        for out in [stdout(&o), stderr(&o)] {
            assert!(!out.chars().any(steers), "{args:?}: {out:?}");
        }
    }
    // SVG: well-formed XML 1.0 whatever the names hold.
    let o = mh_in(
        d,
        &[
            "compare",
            "--store",
            name,
            "--against",
            t,
            "--svg",
            "out.svg",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let svg = fs::read_to_string(d.join("out.svg")).unwrap();
    for c in svg.chars() {
        let xml = matches!(c, '\t' | '\n' | '\r' | ' '..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..);
        assert!(xml, "{c:?} is not allowed in XML 1.0");
    }
    assert!(!svg.contains("<img"), "{svg}");
    let parsed = Command::new("python3")
        .args([
            "-c",
            "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])",
        ])
        .arg(d.join("out.svg"))
        .output();
    match parsed {
        Ok(p) => assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr)),
        Err(_) => eprintln!("note: no python3: the SVG was not parsed"),
    }
}

// 8. Noise: an absurd thread count is said once.

#[test]
fn an_absurd_thread_count_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        vec!["hunt", "--threads", "100000", "--store", "s.json"],
        vec![
            "exhaust",
            "--piece",
            "bishop",
            "--square",
            "d8",
            "--bits",
            "4",
            "--threads",
            "100000",
            "--store",
            "s.json",
        ],
        vec![
            "prove",
            "--piece",
            "bishop",
            "--square",
            "d8",
            "--bits",
            "4",
            "--threads",
            "100000",
            "--store",
            "s.json",
        ],
        vec!["audit", "--threads", "100000", "--store", "s.json"],
        vec!["pack", "--threads", "100000", "--store", "s.json"],
    ] {
        let o = mh_in(d, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", report(&o));
        let err = stderr(&o);
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: {}",
            report(&o)
        );
        assert_eq!(
            err.matches("at most 1024").count(),
            1,
            "{args:?}: {}",
            report(&o)
        );
        assert!(!d.join("s.json").exists());
    }
}
