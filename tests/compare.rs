//! `magichunt compare`: golden output, totals computed from the data, records printed first.
//!
//! Regenerate the golden files with
//! `MAGICHUNT_BLESS=1 cargo test --release --test integration compare::`.

use std::path::Path;
use std::process::Output;

use magichunt::attacks::relevant_mask;
use magichunt::compare::{render_text, Report, Standing, Theirs};
use magichunt::store::Store;
use magichunt::table::Table;
use magichunt::Target;

use crate::common;
use common::{check_golden, magichunt};

const FIXTURE: &str = "tests/golden/store.json";
const POPCOUNT: &str = "results/published/plain-popcount-tord-romstad-style.json";

fn stdout(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into()
}

/// What a golden file's mismatch tells the reader to look for.
const HINT: &str = "check the diff";

#[test]
fn golden_text_and_markdown() {
    let text = stdout(&magichunt(&["compare", "--store", FIXTURE]));
    check_golden("compare.txt", &text, HINT);
    let md = stdout(&magichunt(&[
        "compare", "--store", FIXTURE, "--format", "markdown",
    ]));
    check_golden("compare.md", &md, HINT);
    assert!(
        md.contains("| rook | a | b | c | d | e | f | g | h |"),
        "{md}"
    );
}

/// The reference figures of the issue, computed from the data: the best published bits
/// (records.json) and the popcount bits (the masks).
#[test]
fn published_and_popcount_totals_come_from_the_data() {
    let records = Table::read(Path::new("results/published/records.json")).unwrap();
    let mut best = std::collections::BTreeMap::new();
    for e in &records.entries {
        let b = best.entry(e.target).or_insert(e.bits);
        *b = (*b).min(e.bits);
    }
    assert_eq!(best.len(), 128);
    let published: u64 = best.values().map(|b| 1u64 << b).sum();
    let popcount: u64 = Target::all()
        .map(|t| 1u64 << relevant_mask(t.piece, t.square).count())
        .sum();
    assert_eq!((published, popcount), (89_280, 107_648));

    // A store at popcount bits everywhere, against the published records.
    let plain = Store::from_table(Table::read(Path::new(POPCOUNT)).unwrap(), POPCOUNT).unwrap();
    let report = Report::new(&plain, POPCOUNT, &Theirs::published());
    assert_eq!(report.ours_totals().entries, popcount);
    assert_eq!(report.theirs_totals().entries, published);
    assert_eq!(report.count(Standing::Missing), 0);
    assert_eq!(report.ahead_of_theirs().count(), 0);
    let text = render_text(&report);
    assert!(text.contains("107648 entries (841 KiB)"), "{text}");
    assert!(text.contains("89280 entries (697.5 KiB)"), "{text}");
    // Behind exactly where the published bits are below the popcount; each row says by whom.
    let below = Target::all()
        .filter(|t| best[t] < relevant_mask(t.piece, t.square).count())
        .count();
    assert!(below > 0);
    assert_eq!(report.count(Standing::Behind), below);
    assert_eq!(report.count(Standing::Level), 128 - below);
    assert!(
        text.contains("behind:\n  rook d1: ours 11 bits, theirs 10 bits (by "),
        "{text}"
    );
}

#[test]
fn squares_ahead_of_the_other_table_come_first_with_a_check_that_passes() {
    let text = stdout(&magichunt(&[
        "compare",
        "--store",
        FIXTURE,
        "--against",
        POPCOUNT,
    ]));
    let ahead = text.find("Ahead of").expect("ahead section");
    let grids = text.find("rook: ours").expect("grids");
    assert!(ahead < grids, "{text}");
    let checks: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("check: magichunt "))
        .collect();
    // Rook a8 and h8 at 11, bishop b1 and h2 at 4: each beats the popcount table.
    assert_eq!(checks.len(), 4, "{text}");
    for c in checks {
        let args: Vec<&str> = c.split_whitespace().collect();
        assert_eq!(magichunt(&args).status.code(), Some(0), "{c}");
    }
    assert!(
        text.contains("summary: 4 ahead, 2 level, 0 behind, 122 missing"),
        "{text}"
    );
}

#[test]
fn bad_inputs_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let bad = bad.to_str().unwrap();
    for args in [
        vec!["compare", "--store", bad],
        vec!["compare", "--store", FIXTURE, "--against", bad],
        vec!["compare", "--store", FIXTURE, "--format", "html"],
    ] {
        let o = magichunt(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
        assert!(o.stdout.is_empty());
    }
}

/// The picture in the README is the shipped store's, drawn by the documented command
/// (`magichunt compare --store results/best.json --svg docs/board.svg`), byte for byte.
/// `MAGICHUNT_BLESS=1` rewrites it.
#[test]
fn the_readme_picture_is_the_shipped_store() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("board.svg");
    let o = magichunt(&[
        "compare",
        "--store",
        "results/best.json",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("results/best.json compared with"),
        "the text is printed too"
    );
    let drawn = std::fs::read_to_string(&svg).unwrap();
    if std::env::var_os("MAGICHUNT_BLESS").is_some() {
        std::fs::write("docs/board.svg", &drawn).unwrap();
    }
    let shipped = std::fs::read_to_string("docs/board.svg")
        .expect("docs/board.svg (MAGICHUNT_BLESS=1 writes it)");
    assert!(
        drawn == shipped,
        "docs/board.svg is not the shipped store's picture (as a fresh checkout, with no audit \
         cache, draws it): run MAGICHUNT_BLESS=1 cargo test --release --test integration \
         the_readme_picture"
    );
    // What it shows is the text's: the proven-optimal count of the summary (checked proofs
    // only, as this fresh checkout with no cache of checks counts them) is the legend's.
    let proven: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("summary: "))
        .and_then(|l| l.split("; ").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a summary line with the proven-optimal count");
    assert!(proven > 90, "{proven}");
    assert!(drawn.contains(&format!(
        "proven optimal: no magic with fewer bits exists ({proven})"
    )));
    // And `-` draws it to stdout, the same bytes.
    let o = magichunt(&["compare", "--store", "results/best.json", "--svg", "-"]);
    assert_eq!(stdout(&o), drawn);
}

/// The picture never replaces a store: not the one compared, not any other.
#[test]
fn the_picture_never_overwrites_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.json");
    std::fs::copy(FIXTURE, &store).unwrap();
    let other = dir.path().join("other.json");
    std::fs::copy(FIXTURE, &other).unwrap();
    let before = std::fs::read(&store).unwrap();
    for target in [&store, &other] {
        let o = magichunt(&[
            "compare",
            "--store",
            store.to_str().unwrap(),
            "--svg",
            target.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        assert!(o.stdout.is_empty());
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("refusing"),
            "{o:?}"
        );
    }
    assert_eq!(std::fs::read(&store).unwrap(), before);
    assert_eq!(std::fs::read(&other).unwrap(), before);
    // An earlier picture is replaced.
    let svg = dir.path().join("b.svg");
    std::fs::write(&svg, "old").unwrap();
    let o = magichunt(&[
        "compare",
        "--store",
        FIXTURE,
        "--svg",
        svg.to_str().unwrap(),
    ]);
    stdout(&o);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg "));
}

/// A new record says whether it is proven optimal, in the text and in Markdown alike: rook
/// b1's 10-bit magic, with the shipped store's proof that no 9-bit one exists (counted once
/// audited here, claimed before).
#[test]
fn a_new_record_says_whether_it_is_proven_optimal() {
    let text = stdout(&magichunt(&["compare", "--store", "results/best.json"]));
    let md = stdout(&magichunt(&[
        "compare",
        "--store",
        "results/best.json",
        "--format",
        "markdown",
    ]));
    let row = md
        .lines()
        .find(|l| l.starts_with("| rook b1 | 10 | 11 |"))
        .unwrap_or_else(|| panic!("{md}"));
    if text.contains("\n    proven optimal: no magic with 9 bits exists\n") {
        assert!(row.ends_with("| proven |"), "{row}");
    } else {
        assert!(
            text.contains(
                "\n    optimal if its recorded proof holds (no magic with 9 bits; `magichunt audit` checks it)\n"
            ),
            "{text}"
        );
        assert!(
            row.ends_with("| claimed (`magichunt audit` checks it) |"),
            "{row}"
        );
    }
}
