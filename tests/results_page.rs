//! `docs/results.md`, the results page, against the shipped store (`results/best.json`), its
//! evidence files and `magichunt compare --json`: every row's answer, magic, method, node count
//! and CPU time is the store's (or, for a search not yet in it, its campaign store's), every
//! second method's log says what the row says, every proof of the store has its row, and the
//! counts of the page's text are those `compare` gives. When a proof lands in the store (rook e1
//! at 10, say), its row must change with it, and a row changed without the store fails too.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const PAGE: &str = "docs/results.md";

/// A question of the page: piece, square, index bits.
type Question = (String, String, u32);

/// The rows of every table of the page whose header starts with `first`, with the heading of
/// the section they stand in, as cells.
fn tables(first: &str) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(PAGE).unwrap();
    let mut out = Vec::new();
    let mut section = String::new();
    let mut in_table = false;
    for l in text.lines() {
        if let Some(h) = l.strip_prefix("## ") {
            section = h.to_string();
        }
        if !l.starts_with('|') {
            in_table = false;
            continue;
        }
        let cells: Vec<String> = l
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        if cells[0] == first {
            in_table = true;
        } else if in_table && !cells[0].starts_with("---") {
            out.push((section.clone(), cells));
        }
    }
    out
}

fn json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn key(v: &Value) -> Question {
    (
        v["piece"].as_str().unwrap().to_string(),
        v["square"].as_str().unwrap().to_string(),
        v["bits"].as_u64().unwrap() as u32,
    )
}

fn plain(v: &Value) -> bool {
    v.get("formula").and_then(Value::as_str).unwrap_or("plain") == "plain"
}

/// The record of `q` in `list` (`exhaust` or `sat`) of `store`.
fn record<'a>(store: &'a Value, list: &str, q: &Question) -> Option<&'a Value> {
    store[list]
        .as_array()
        .into_iter()
        .flatten()
        .find(|x| plain(x) && key(x) == *q)
}

fn sum(rec: &Value, parts_field: &str) -> f64 {
    rec["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[parts_field].as_f64().unwrap_or(0.0))
        .sum()
}

/// The first number of a cell (digits, commas and a point), if any.
fn number(cell: &str) -> Option<f64> {
    let start = cell.find(|c: char| c.is_ascii_digit())?;
    let s: String = cell[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '.')
        .filter(|c| *c != ',')
        .collect();
    s.trim_end_matches('.').parse().ok()
}

/// `rook a1 at 11` as a question.
fn question(cell: &str) -> Question {
    let w: Vec<&str> = cell.split_whitespace().collect();
    assert!(
        w.len() == 4 && w[2] == "at",
        "{PAGE}: `{cell}` is not `piece square at bits`"
    );
    (w[0].to_string(), w[1].to_string(), w[3].parse().unwrap())
}

/// The CPU cell against the seconds of a record, as the page rounds them (`19.4 h`, `376 s`,
/// `2.3 s`).
fn assert_cpu(cell: &str, seconds: f64, q: &Question) {
    let v = number(cell).unwrap_or_else(|| panic!("{q:?}: CPU `{cell}`"));
    let (shown, slack) = if cell.ends_with(" h") {
        (seconds / 3600.0, 0.051)
    } else {
        assert!(
            cell.ends_with(" s"),
            "{q:?}: CPU `{cell}` is neither h nor s"
        );
        (seconds, 0.51)
    };
    assert!(
        (v - shown).abs() <= slack,
        "{q:?}: the page says {cell}, the record {seconds} s"
    );
}

/// The text of the page's linked file under `results/` in `cell` that starts with `dir`.
fn linked(cell: &str, dir: &str) -> Option<String> {
    let at = cell.find(&format!("](../results/{dir}"))?;
    let rest = &cell[at + 2..];
    Some(
        rest[..rest.find(')').unwrap()]
            .trim_start_matches("../")
            .to_string(),
    )
}

/// A second method that is a C walk: `N of M ranges`, its log in `results/checks/`.
fn assert_walk_log(cell: &str, nodes: f64, q: &Question, answer: &str) {
    let Some(at) = cell.find(" ranges") else {
        return;
    };
    let words: Vec<&str> = cell[..at].split_whitespace().rev().take(3).collect();
    let (of, done): (u32, u32) = (words[0].parse().unwrap(), words[2].parse().unwrap());
    assert_eq!(words[1], "of", "{q:?}: `{cell}`");
    let log = linked(cell, "checks/").unwrap_or_else(|| panic!("{q:?}: a walk with no log"));
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{log}: {e}"));
    assert!(!text.contains("DISAGREE"), "{log} holds a disagreement");
    let agree = text.lines().filter(|l| l.ends_with(": agree")).count() as u32;
    let (p, s, b) = q;
    assert!(
        text.starts_with(&format!("# {p}-{s}-{b}: ")),
        "{log} is not the log of {q:?}"
    );
    if done == of {
        let last = format!(
            "# done: {p}-{s}-{b}: all {of} ranges agree: {} nodes, 0 magics, as exhaust found",
            nodes as u64
        );
        assert!(text.contains(&last), "{log} lacks `{last}`");
        assert_eq!(agree, of, "{log}");
    } else {
        // A check under way: its log may have gone further since the page was written, but
        // the question stays open until every range agrees.
        assert!(agree >= done, "{log}: {agree} ranges, the page says {done}");
        assert!(
            answer.starts_with("open"),
            "{q:?}: answered before its check"
        );
    }
}

/// Every row of every question table: the answer, the published record, the method and its
/// figures, the second method; and every proof of the store has a row saying none.
#[test]
fn every_row_of_the_results_page_is_the_shipped_stores() {
    let store = json("results/best.json");
    let records = json("results/published/records.json");
    let rows = tables("question");
    assert!(rows.len() > 60, "only {} rows", rows.len());
    let mut nones = BTreeSet::new();
    for (_, cells) in &rows {
        let [q, answer, method, nodes, cpu, second, evidence, reproduce, _date, published] =
            cells.as_slice()
        else {
            panic!("{PAGE}: a row of {} cells: {cells:?}", cells.len());
        };
        let q = question(q);
        let (p, s, b) = &q;

        let theirs = records["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["piece"] == p.as_str() && e["square"] == s.as_str())
            .unwrap();
        assert_eq!(
            number(published),
            theirs["bits"].as_f64(),
            "{q:?}: the published record"
        );

        let proven = store["proofs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| plain(x) && x["none"] == true && key(x) == q);
        let entry = store["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| plain(e) && e["piece"] == p.as_str() && e["square"] == s.as_str())
            .unwrap();
        if answer == "**none**" {
            assert!(proven, "{q:?}: the page says none, the store has no proof");
            // The search again, as the proof records it, from a new store.
            let proof = store["proofs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| plain(x) && key(x) == q)
                .unwrap();
            if let Some(c) = proof.get("command").and_then(Value::as_str) {
                assert!(
                    reproduce.starts_with(&format!("`{c} --store ")),
                    "{q:?}: reproduce `{reproduce}`, the proof's command `{c}`"
                );
            }
            nones.insert(q.clone());
        } else if let Some(m) = answer.strip_prefix('`') {
            let m = &m[..m.find('`').unwrap()];
            assert!(!proven, "{q:?}");
            assert_eq!(entry["bits"].as_u64(), Some(u64::from(*b)), "{q:?}");
            assert_eq!(entry["magic"], m, "{q:?}: the store's magic");
        } else {
            assert!(answer.starts_with("open"), "{q:?}: answer `{answer}`");
            assert!(!proven, "{q:?}: proven in the store, open on the page");
            assert!(
                entry["bits"].as_u64().unwrap() > u64::from(*b),
                "{q:?}: the store has a magic, the page says open"
            );
        }

        // The figures: the store's record, or the campaign store's for a search the shipped
        // store does not hold yet.
        if method.starts_with("`exhaust`") {
            let campaign = linked(evidence, "campaign/").map(|f| json(&f));
            let rec = record(&store, "exhaust", &q)
                .or_else(|| campaign.as_ref().and_then(|c| record(c, "exhaust", &q)))
                .unwrap_or_else(|| panic!("{q:?}: no exhaustive record"));
            let order = rec.get("order").and_then(Value::as_str).unwrap_or("low");
            assert!(
                method.starts_with(&format!("`exhaust`, {order}")),
                "{q:?}: `{method}`, the record's order is {order}"
            );
            // The same search, node for node: its order, whatever the square's default.
            if order != "low" && reproduce.contains(" exhaust ") {
                assert!(
                    reproduce.contains(&format!(" --order {order} ")),
                    "{q:?}: `{reproduce}` does not search in the order {order}"
                );
            }
            let n = sum(rec, "nodes");
            assert_eq!(number(nodes), Some(n), "{q:?}: nodes");
            assert_cpu(cpu, sum(rec, "seconds"), &q);
            if let Some(c) = &campaign {
                let c = record(c, "exhaust", &q)
                    .unwrap_or_else(|| panic!("{q:?}: the evidence holds no such search"));
                if rec["parts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|p| p["done"] == true)
                {
                    assert_eq!(sum(c, "nodes"), n, "{q:?}: store and campaign differ");
                }
            }
            assert_walk_log(second, n, &q, answer);
        } else if method.starts_with("`prove`") {
            let rec = record(&store, "sat", &q).unwrap_or_else(|| panic!("{q:?}: no SAT record"));
            assert_eq!(number(nodes), Some(sum(rec, "conflicts")), "{q:?}");
            assert!(nodes.ends_with(" conflicts"), "{q:?}");
            assert_cpu(cpu, sum(rec, "seconds"), &q);
            assert!(
                evidence.contains(&format!("proofs/{p}-{s}-{b}.lrat.gz")),
                "{q:?}"
            );
        } else {
            assert_eq!(method, "—", "{q:?}: method `{method}`");
            assert!(cpu == "—" || cpu.starts_with("projected "), "{q:?}");
        }
        if let Some(n) = second.strip_prefix("`exhaust`, ") {
            let rec = record(&store, "exhaust", &q)
                .unwrap_or_else(|| panic!("{q:?}: a second search the store lacks"));
            assert_eq!(number(n), Some(sum(rec, "nodes")), "{q:?}: second method");
        }
    }
    let proofs: BTreeSet<Question> = store["proofs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| plain(x) && x["none"] == true)
        .map(key)
        .collect();
    assert_eq!(
        proofs.difference(&nones).collect::<Vec<_>>(),
        Vec::<&Question>::new(),
        "proofs of the store without a row saying none"
    );
}

/// The sixteen open rooks are the rooks of ranks 1 and 2 one bit below their records, and the
/// page's count of them settled is its table's.
#[test]
fn the_sixteen_open_rooks_and_their_count() {
    let rows: Vec<Vec<String>> = tables("question")
        .into_iter()
        .filter(|(section, _)| section == "The sixteen open rooks")
        .map(|(_, c)| c)
        .collect();
    let qs: BTreeSet<Question> = rows.iter().map(|c| question(&c[0])).collect();
    let records = json("results/published/records.json");
    let want: BTreeSet<Question> = records["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["piece"] == "rook"
                && ["1", "2"]
                    .iter()
                    .any(|r| e["square"].as_str().unwrap().ends_with(r))
        })
        .map(|e| {
            let (p, s, b) = key(e);
            (p, s, b - 1)
        })
        .collect();
    assert_eq!(qs, want);
    let settled = rows.iter().filter(|c| !c[1].starts_with("open")).count();
    let text = std::fs::read_to_string(PAGE).unwrap();
    let claim = format!("**{settled} of the 16 open questions settled**");
    assert!(text.contains(&claim), "{PAGE} lacks `{claim}`");
}

/// `magichunt compare --json` of the shipped store, with `extra`; the certificates are
/// checked once for the whole test binary (a cache of checks of its own, emptied when the
/// binary starts, in cargo's folder for tests: a static is never dropped, so a temporary
/// folder would be left behind in /tmp by every run).
fn compare(extra: &[&str]) -> Value {
    static CACHE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(|| {
        let path =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("results-page-cache.json");
        let _ = std::fs::remove_file(&path);
        path
    });
    let o = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", cache)
        .args(["compare", "--store", "results/best.json", "--json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The page's count of squares proven optimal is `compare`'s: at once (certificates checked
/// on load), claimed until an audit, and both together.
#[test]
fn the_proven_optimal_count_is_compares() {
    let text = std::fs::read_to_string(PAGE).unwrap();
    let at = |s: &str| {
        let i = text.find(s).unwrap_or_else(|| panic!("{PAGE} lacks `{s}`"));
        number(&text[i + s.len()..]).unwrap() as u64
    };
    let (all, now, claimed) = (
        at("**Proven optimal: "),
        at("squares** ("),
        at("checked on\n  load; "),
    );
    let checked = compare(&[]);
    assert_eq!(checked["summary"]["proven"], now);
    assert_eq!(checked["summary"]["claimed"], claimed);
    let counted = compare(&["--count-claimed"]);
    assert_eq!(counted["summary"]["proven"], all);
    assert_eq!(all, now + claimed);
}

/// The table records: every row's ours and smallest published are `compare`'s, with our
/// packed table; a row `compare` does not know must say it is in progress.
#[test]
fn the_table_records_are_compares() {
    let doc = compare(&[
        "--packed",
        "results/packed-pool.json",
        "--packed",
        "results/packed-fixed.json",
        "--packed",
        "results/packed-indexed.json",
    ]);
    let rows = tables("table");
    assert!(rows.len() >= 7, "{rows:?}");
    for (_, cells) in rows {
        let (layout, formula) = cells[0].split_once(", ").unwrap();
        let shift = if cells[1].starts_with("fixed shift") {
            "fixed"
        } else {
            "per-square"
        };
        let Some(l) = doc["layouts"].as_array().unwrap().iter().find(|l| {
            l["layout"] == layout && l["formula"] == formula && l["ours"]["shift"] == shift
        }) else {
            assert_eq!(
                cells[2], "in progress",
                "{:?}: not a layout of compare",
                cells[0]
            );
            continue;
        };
        // A row in bytes says so; every other row is in entries of 8 bytes.
        let unit = if cells[2].contains("bytes") {
            "bytes"
        } else {
            "entries"
        };
        assert_eq!(number(&cells[2]), l["ours"][unit].as_f64(), "{}", cells[0]);
        assert_eq!(l["ours"]["squares"], 128, "{}", cells[0]);
        if l["theirs"].is_null() {
            assert!(
                cells[3].starts_with("none"),
                "{}: smallest published",
                cells[0]
            );
        } else {
            assert_eq!(
                number(&cells[3]),
                l["theirs"]["entries"].as_f64(),
                "{}: smallest published",
                cells[0]
            );
        }
        let evidence = linked(&cells[4], "").unwrap();
        assert!(Path::new(&evidence).exists(), "{evidence}");
    }
}

/// A shipped table says how it was made from files of the repository: its `command` and
/// `source` name no path outside it (no scratch folder, no home), and every file under
/// `results/` they name exists.
#[test]
fn the_shipped_tables_name_only_files_of_the_repository() {
    let mut seen = 0;
    for e in std::fs::read_dir("results").unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let doc = json(path.to_str().unwrap());
        for field in ["command", "source"] {
            let Some(text) = doc.get(field).and_then(Value::as_str) else {
                continue;
            };
            seen += 1;
            for w in text.split(|c: char| c.is_whitespace() || "`();,".contains(c)) {
                assert!(
                    !w.starts_with('/') && !w.starts_with('~') && !w.contains("/tmp/"),
                    "{}: {field} names {w}, outside the repository",
                    path.display()
                );
                let w = w.trim_end_matches(['.', ':']);
                if w.starts_with("results/") {
                    assert!(
                        Path::new(w).exists(),
                        "{}: {field} names {w}",
                        path.display()
                    );
                }
            }
        }
    }
    assert!(seen >= 4, "only {seen} fields");
}
