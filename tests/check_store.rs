//! The second method: `scripts/research/check-store.py` runs the C walk written from the
//! definition over a finished search's residues, range by range, part by part, and agrees to
//! the node or says where it does not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common;
use common::{magichunt, report};

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
    // Run again: every range is in the log, nothing runs, and it still agrees.
    let o = check_store(&merged, &log).unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", report(&o));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), logged);

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
    let first = part["residue"]["blocks"][0].as_str().unwrap().to_string();
    let (digest, nodes) = first.split_once(':').unwrap();
    let nodes: u64 = nodes.parse().unwrap();
    part["residue"]["blocks"][0] = Value::from(format!("{digest}:{}", nodes + 1));
    part["nodes"] = Value::from(part["nodes"].as_u64().unwrap() + 1);
    let forged = dir.path().join("forged.json");
    std::fs::write(&forged, serde_json::to_vec(&store).unwrap()).unwrap();
    let log = dir.path().join("forged.txt");
    let o = check_store(&forged, &log).unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", report(&o));
    let logged = std::fs::read_to_string(&log).unwrap();
    let bad: Vec<&str> = logged.lines().filter(|l| l.ends_with("DISAGREE")).collect();
    assert_eq!(bad.len(), 1, "{logged}");
    assert!(
        bad[0].starts_with("part 2/3 search order 0 to 47: "),
        "{logged}"
    );
}
