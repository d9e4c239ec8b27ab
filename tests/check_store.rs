//! The second method: `scripts/research/check-store.py` runs the C walk written from the
//! definition over a finished search's residues, range by range, part by part, and agrees to
//! the node or says where it does not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use magichunt::exhaust::campaign::found::task_of;
use magichunt::exhaust::campaign::shard::Shard;
use magichunt::exhaust::Order;
use magichunt::magic::{format_magic, parse_magic};
use serde_json::Value;

use crate::common;
use common::{magichunt, report, text};

/// Runs the check on `store`, logging to `log`; `None` when python3 or a C compiler is missing
/// (the test then says so).
fn check_store(store: &Path, log: &Path) -> Option<Output> {
    Command::new("cc").arg("--version").output().ok()?;
    Command::new("python3")
        .arg("scripts/research/check-store.py")
        .arg(store)
        .args(["--jobs", "2", "--log"])
        .arg(log)
        .output()
        .ok()
}

/// Bishop d8 at 4 bits searched in the folded order as three parts, merged into one store.
fn merged_search(dir: &Path) -> PathBuf {
    let mut args = vec!["merge".to_string()];
    for k in 1..=3 {
        let part = dir.join(format!("part{k}.json"));
        let o = magichunt(&[
            "exhaust",
            "--piece",
            "bishop",
            "--square",
            "d8",
            "--bits",
            "4",
            "--order",
            "fold",
            "--shard",
            &format!("{k}/3"),
            "--threads",
            "1",
            "--store",
            part.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", report(&o));
        args.push(part.to_str().unwrap().to_string());
    }
    let merged = dir.join("merged.json");
    args.extend(["--out".to_string(), merged.to_str().unwrap().to_string()]);
    let o = magichunt(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", report(&o));
    merged
}

#[test]
fn the_c_walk_agrees_with_a_merged_search_part_by_part_and_finds_a_forged_count() {
    let dir = tempfile::tempdir().unwrap();
    let merged = merged_search(dir.path());
    let log = dir.path().join("check.txt");
    let Some(o) = check_store(&merged, &log) else {
        eprintln!("SKIP: python3 or cc not found");
        return;
    };
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // Part k holds 1,366 or 1,365 of the 2^12 tasks; residue blocks of 6 tasks, 8 a range.
    assert!(
        out.contains("bishop-d8-4: all 87 ranges agree"),
        "{}",
        report(&o)
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    for k in 1..=3 {
        let lines = logged
            .lines()
            .filter(|l| l.starts_with(&format!("part {k}/3 search order ")))
            .count();
        assert_eq!(lines, 29, "part {k}: {logged}");
    }
    // Every range's line says the C walk's CPU time, and the last line their sum.
    let ranges: Vec<&str> = logged.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(ranges.len(), 87);
    for l in &ranges {
        let cpu = l
            .split(" magics, ")
            .nth(1)
            .and_then(|r| r.split(" CPU-s; exhaust ").next());
        assert!(cpu.is_some_and(|c| c.parse::<f64>().is_ok()), "{l}");
    }
    let done = logged.lines().last().unwrap();
    assert!(
        done.starts_with("# done: ")
            && done.contains("; the C walk took ")
            && done.ends_with(" CPU-seconds"),
        "{done}"
    );
    // Run again: every range is in the log, nothing runs, and it still agrees.
    let o = check_store(&merged, &log).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), logged);
    // A log begun before the CPU time was logged (part 1's lines without it, no last line yet):
    // nothing runs again, and the sum says what it covers.
    let old: String = logged
        .lines()
        .filter(|l| !l.starts_with("# done"))
        .map(|l| match l.split_once(" CPU-s; ") {
            Some((head, tail)) if l.starts_with("part 1/3 ") => {
                format!("{}; {tail}\n", &head[..head.rfind(", ").unwrap()])
            }
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&log, &old).unwrap();
    let o = check_store(&merged, &log).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    let again = std::fs::read_to_string(&log).unwrap();
    assert!(again.starts_with(&old), "{again}");
    let done = again.lines().last().unwrap();
    assert!(
        done.ends_with(" CPU-seconds in the 58 ranges that logged it"),
        "{done}"
    );

    // One node more in part 2's first block, and in the part's total, so that the store
    // still adds up: the C walk disagrees there, and only there.
    let mut store: Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).unwrap();
    let part = store["exhaust"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["square"] == "d8" && r["bits"] == 4)
        .unwrap()["parts"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["shard"] == 2)
        .unwrap();
    one_node_more(part, 0);
    disagrees_once(dir.path(), &store, "part 2/3 search order 0 to 47: ");
}

/// Adds one node to block `block` of `part`'s residue and to the part's total, so that the
/// store still adds up and only the walk can tell.
fn one_node_more(part: &mut Value, block: usize) {
    let cell = part["residue"]["blocks"][block]
        .as_str()
        .unwrap()
        .to_string();
    let (digest, nodes) = cell.split_once(':').unwrap();
    let nodes: u64 = nodes.parse().unwrap();
    part["residue"]["blocks"][block] = Value::from(format!("{digest}:{}", nodes + 1));
    part["nodes"] = Value::from(part["nodes"].as_u64().unwrap() + 1);
}

/// Writes `store` into `dir` and checks it: exit 1 and exactly one range disagrees, the one
/// whose log line starts with `range`.
fn disagrees_once(dir: &Path, store: &Value, range: &str) {
    let forged = dir.join("forged.json");
    std::fs::write(&forged, serde_json::to_vec(store).unwrap()).unwrap();
    let log = dir.join("forged.txt");
    let o = check_store(&forged, &log).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", report(&o));
    let logged = std::fs::read_to_string(&log).unwrap();
    let bad: Vec<&str> = logged.lines().filter(|l| l.ends_with("DISAGREE")).collect();
    assert_eq!(bad.len(), 1, "{logged}");
    assert!(bad[0].starts_with(range), "{logged}");
}

/// Reads a store as JSON.
fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Part `k` of the store's one search.
fn part_of(store: &mut Value, k: u32) -> &mut Value {
    store["exhaust"][0]["parts"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["shard"] == k)
        .unwrap()
}

/// `magichunt exhaust --add-found FILE` on the search of bishop d8 at 5 bits in 3 parts.
fn add_found(store: &Path, file: &Path) -> Output {
    magichunt(&[
        "exhaust",
        "--piece",
        "bishop",
        "--square",
        "d8",
        "--bits",
        "5",
        "--shard",
        "1/3",
        "--store",
        store.to_str().unwrap(),
        "--add-found",
        file.to_str().unwrap(),
    ])
}

/// Rook b1 at 10 bits, at small scale: a folded search whose part 2 began its list halfway
/// (as a part begun before lists resumes). The C walk lists every magic of the period, agrees
/// with the store range by range where the store knows the range's magics, and with its count
/// over the whole; `exhaust --add-found` then supplies what part 2 does not list, and the
/// residues still audit. A list that names a magic the walk does not find in its range, a
/// line that is not a magic, and a file with more magics than a part counted are refused.
#[test]
fn the_c_walk_lists_the_magics_and_supplies_what_a_list_begun_late_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("d8.json");
    for k in 1..=3 {
        let o = crate::count::d8_part(&store, Order::Fold, k, &[]);
        assert!(o.status.success(), "{}", report(&o));
    }
    // Part 2 (1,365 tasks, residue blocks of 6) as if its list began at position 690.
    let from = 690;
    let shard = Shard { index: 2, count: 3 };
    let position = |m: u64| {
        let task = task_of(Order::Fold, 26, 12, m);
        (0..shard.len(4096))
            .position(|j| shard.task_at(j, 4096) == task)
            .unwrap() as u64
    };
    let own = crate::count::listed(&store, 2);
    let (before, after): (Vec<u64>, Vec<u64>) = own.iter().partition(|&&m| position(m) < from);
    assert!(!before.is_empty() && !after.is_empty());
    let mut s = json(&store);
    part_of(&mut s, 2)["found"] = serde_json::json!({
        "from": from,
        "before": before.len(),
        "magics": after.iter().map(|&m| format_magic(m)).collect::<Vec<_>>(),
    });
    std::fs::write(&store, serde_json::to_vec_pretty(&s).unwrap()).unwrap();
    let o = crate::count::d8_part(&store, Order::Fold, 2, &[]);
    assert!(o.status.success(), "{}", report(&o));
    let listed = 9547 - before.len();
    assert!(
        text(&o).contains(&format!("; {listed} of 9547 listed (")),
        "{}",
        report(&o)
    );

    let log = dir.path().join("check.txt");
    let Some(o) = check_store(&store, &log) else {
        eprintln!("SKIP: python3 or cc not found");
        return;
    };
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(
        text(&o).contains(&format!(
            "bishop-d8-5: all 87 ranges agree: {} nodes, 9547 magics (residues modulo 2^26), as exhaust counted; the {listed} the store lists among them",
            s["exhaust"][0]["parts"].as_array().unwrap().iter().map(|p| p["nodes"].as_u64().unwrap()).sum::<u64>()
        )),
        "{}",
        report(&o)
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    // Part 2's ranges (48 tasks each) from position 690 on are known to the store, those
    // before it are not; parts 1 and 3 list from their start.
    for line in logged.lines().filter(|l| l.contains("search order")) {
        let lo: u64 = line
            .split("search order ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let unknown = line.contains(", ? magics");
        assert_eq!(unknown, line.starts_with("part 2/3") && lo < from, "{line}");
    }
    let magics = dir.path().join("check-magics.txt");
    let walked: Vec<u64> = std::fs::read_to_string(&magics)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| parse_magic(l).unwrap())
        .collect();
    let mut all =
        magichunt::exhaust::all_magics(&magichunt::exhaust::Plan::new(crate::count::d8(), 5));
    all.sort_unstable();
    assert_eq!(walked, all);

    // Hostile: a line that is not a magic; a part that counted one magic fewer than the walk
    // found in it. Refused, the store left as it was.
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, format!("# two\n{}\n0x1\n", format_magic(all[0]))).unwrap();
    let kept = std::fs::read(&store).unwrap();
    let o = add_found(&store, &bad);
    assert_eq!(o.status.code(), Some(2), "{}", report(&o));
    assert!(
        text(&o).contains("line 3: 0x0000000000000001 is not a magic"),
        "{}",
        report(&o)
    );
    assert_eq!(std::fs::read(&store).unwrap(), kept);
    let short = dir.path().join("short.json");
    let mut t = s.clone();
    let p2 = part_of(&mut t, 2);
    p2["magics"] = Value::from(p2["magics"].as_u64().unwrap() - 1);
    p2["found"]["before"] = Value::from(before.len() - 1);
    std::fs::write(&short, serde_json::to_vec(&t).unwrap()).unwrap();
    let kept = std::fs::read(&short).unwrap();
    let o = add_found(&short, &magics);
    assert_eq!(o.status.code(), Some(2), "{}", report(&o));
    assert!(
        text(&o).contains("the search or the file is wrong"),
        "{}",
        report(&o)
    );
    assert_eq!(std::fs::read(&short).unwrap(), kept);

    // The walk's list supplies what part 2 lacks: every magic listed, the residues unchanged.
    let unsupplied = dir.path().join("unsupplied.json");
    std::fs::copy(&store, &unsupplied).unwrap();
    let o = add_found(&store, &magics);
    assert!(o.status.success(), "{}", report(&o));
    assert!(
        text(&o).contains(&format!(
            "9547 magics given, each verified: {listed} listed by the search already, {} supplied",
            before.len()
        )),
        "{}",
        report(&o)
    );
    assert!(
        text(&o).contains("; all 9547 listed; tightest: "),
        "{}",
        report(&o)
    );
    let mut s = json(&store);
    let supplied = &part_of(&mut s, 2)["supplied"];
    assert_eq!(supplied["by"], magics.to_str().unwrap());
    assert_eq!(supplied["magics"].as_array().unwrap().len(), before.len());
    let o = magichunt(&["audit", "--store", store.to_str().unwrap()]);
    assert!(o.status.success(), "{}", report(&o));
    // A merge with a copy from before keeps what was supplied, whichever side it is on.
    for (a, b) in [(&store, &unsupplied), (&unsupplied, &store)] {
        let out = dir.path().join("merged.json");
        let _ = std::fs::remove_file(&out);
        let o = magichunt(&[
            "merge",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", report(&o));
        let mut m = json(&out);
        let n = part_of(&mut m, 2)["supplied"]["magics"]
            .as_array()
            .map(Vec::len);
        assert_eq!(n, Some(before.len()), "{}", report(&o));
    }

    // A list that names, in a range the store knows, a magic the walk does not find there.
    let mut t = json(&store);
    let p2 = part_of(&mut t, 2);
    let other = crate::count::listed(&store, 1)[0];
    // The first of part 2's own magics whose range (48 tasks) begins at 690 or later.
    let i = after
        .iter()
        .position(|&m| position(m) / 48 * 48 >= from)
        .unwrap();
    p2["found"]["magics"][i] = Value::from(format_magic(other));
    let forged = dir.path().join("forged.json");
    std::fs::write(&forged, serde_json::to_vec(&t).unwrap()).unwrap();
    let log = dir.path().join("forged.txt");
    let o = check_store(&forged, &log).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", report(&o));
    let logged = std::fs::read_to_string(&log).unwrap();
    let bad: Vec<&str> = logged.lines().filter(|l| l.contains("DISAGREE")).collect();
    assert_eq!(bad.len(), 1, "{logged}");
    let at = position(after[i]);
    assert!(
        bad[0].starts_with(&format!("part 2/3 search order {} to ", at / 48 * 48)),
        "{logged}"
    );
}

/// The low order's C walk (lowfirst-check.c) agrees node for node with `exhaust --order low`,
/// block range by block range: bishop d8 at 4 bits (none exists) in two parts, bishop d8 at 5
/// (9,547 magics, every one listed and found by the walk in its range) in three, and the first
/// ranges of rook e7 at 8 bits; a node added to one block disagrees there alone.
#[test]
fn the_low_order_c_walk_agrees_node_for_node() {
    let dir = tempfile::tempdir().unwrap();
    let d8_4 = dir.path().join("d8-4.json");
    for k in 1..=2 {
        let o = magichunt(&[
            "exhaust",
            "--piece",
            "bishop",
            "--square",
            "d8",
            "--bits",
            "4",
            "--order",
            "low",
            "--shard",
            &format!("{k}/2"),
            "--threads",
            "2",
            "--store",
            d8_4.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", report(&o));
    }
    let log = dir.path().join("d8-4.txt");
    let Some(o) = check_store(&d8_4, &log) else {
        eprintln!("SKIP: python3 or cc not found");
        return;
    };
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(
        text(&o).contains("0 magics, as exhaust found"),
        "{}",
        report(&o)
    );
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .starts_with("# bishop-d8-4: lowfirst-check.c against "));

    let d8_5 = dir.path().join("d8-5.json");
    for k in 1..=3 {
        let o = crate::count::d8_part(&d8_5, Order::Low, k, &[]);
        assert!(o.status.success(), "{}", report(&o));
    }
    let o = check_store(&d8_5, &dir.path().join("d8-5.txt")).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert!(text(&o).contains("9547 magics (residues modulo 2^26), as exhaust counted; the 9547 the store lists among them"), "{}", report(&o));
    assert!(!std::fs::read_to_string(dir.path().join("d8-5.txt"))
        .unwrap()
        .contains(", ? magics"));

    let e7 = dir.path().join("e7.json");
    let o = magichunt(&[
        "exhaust",
        "--piece",
        "rook",
        "--square",
        "e7",
        "--bits",
        "8",
        "--threads",
        "2",
        "--store",
        e7.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", report(&o));
    let e7_log = dir.path().join("e7.txt");
    let o = Command::new("python3")
        .arg("scripts/research/check-store.py")
        .arg(&e7)
        .args(["--jobs", "2", "--only", "2", "--log"])
        .arg(&e7_log)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", report(&o));
    let logged = std::fs::read_to_string(&e7_log).unwrap();
    assert_eq!(
        logged.lines().filter(|l| l.ends_with(": agree")).count(),
        2,
        "{logged}"
    );

    // One node more in part 1's second block.
    let mut s = json(&d8_4);
    let part = part_of(&mut s, 1);
    one_node_more(part, 1);
    disagrees_once(dir.path(), &s, "part 1/2 search order 0 to ");
}
