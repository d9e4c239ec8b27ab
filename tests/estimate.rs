//! Runs the binary: `bench --estimate` projects a whole-period search from a seeded sample of
//! its tasks, and its node interval holds the exact count (node counts are deterministic;
//! times are never asserted).

use std::process::{Command, Output};

use magichunt::exhaust::{search_all, Plan};
use magichunt::{Piece, Square, Target};

fn magichunt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn estimate_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["bench", "--json", "--budget", "10m"];
    all.extend_from_slice(args);
    let o = magichunt(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.lines().count(), 1, "one line per question: {out}");
    serde_json::from_str(out.trim()).unwrap()
}

/// Bishop e8 at 5 bits: period 2^31 in 2^17 tasks, the whole search well under a second.
#[test]
fn the_node_interval_holds_the_exact_count() {
    let target = Target::new(Piece::Bishop, "e8".parse::<Square>().unwrap());
    let exact = search_all(&Plan::new(target, 5)).nodes as f64;
    for seed in ["1", "2", "3"] {
        let e = estimate_json(&[
            "--estimate",
            "bishop:e8:5",
            "--sample",
            "3000",
            "--seed",
            seed,
        ]);
        assert_eq!(e["finished"], 3000);
        assert_eq!(e["tasks"], 1 << 17);
        assert_eq!(e["lower_bound"], false);
        let (lo, hi) = (
            e["nodes"]["lo"].as_f64().unwrap(),
            e["nodes"]["hi"].as_f64().unwrap(),
        );
        assert!(
            lo <= exact && exact <= hi,
            "seed {seed}: [{lo}, {hi}] vs {exact}"
        );
        // A real interval, not the whole line: within 10 % of the truth on 3,000 tasks.
        assert!(hi - lo < 0.2 * exact, "seed {seed}: [{lo}, {hi}]");
        assert!(e["cpu_s"]["lo"].as_f64().unwrap() <= e["cpu_s"]["hi"].as_f64().unwrap());
    }
}

#[test]
fn the_seed_fixes_the_sample_and_full_counts_every_node() {
    let args = [
        "--estimate",
        "bishop:e8:5",
        "--sample",
        "500",
        "--seed",
        "9",
    ];
    let a = estimate_json(&args);
    let b = estimate_json(&args);
    assert_eq!(a["sample_nodes"], b["sample_nodes"]);
    assert_eq!(a["nodes"]["total"], b["nodes"]["total"]);
    let c = estimate_json(&[
        "--estimate",
        "bishop:e8:5",
        "--sample",
        "500",
        "--seed",
        "10",
    ]);
    assert_ne!(a["sample_nodes"], c["sample_nodes"]);

    let target = Target::new(Piece::Bishop, "e8".parse::<Square>().unwrap());
    let exact = search_all(&Plan::new(target, 5)).nodes;
    let f = estimate_json(&["--estimate", "bishop:e8:5", "--sample", "500", "--full"]);
    assert_eq!(f["full"]["nodes"], exact);
    let cov = f["full"]["coverage_nodes"].as_f64().unwrap();
    assert!(cov > 0.8, "coverage {cov}");
}

#[test]
fn a_whole_sample_is_exact_and_one_line_per_question() {
    // Bishop d8 at 4 (no magic exists): 2^12 tasks, all sampled: the interval is the count.
    let target = Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap());
    let exact = search_all(&Plan::new(target, 4)).nodes as f64;
    let o = magichunt(&[
        "bench",
        "--estimate",
        "bishop:d8:4",
        "bishop:e8:5",
        "--sample",
        "5000",
    ]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.lines().count(), 2, "{out}");
    let e = estimate_json(&["--estimate", "bishop:d8:4", "--sample", "5000"]);
    assert_eq!(e["fraction"], 1.0);
    assert_eq!(e["nodes"]["lo"].as_f64().unwrap().round(), exact);
    assert_eq!(e["nodes"]["hi"].as_f64().unwrap().round(), exact);
}

#[test]
fn bad_questions_are_refused_in_one_line() {
    for bad in ["rook:a2", "rook:a2:13", "rook:z9:10", "pawn:a2:3"] {
        let o = magichunt(&["bench", "--estimate", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{bad}: {err}");
    }
    let o = magichunt(&["bench", "--estimate", "rook:a2:10", "--exhaust"]);
    assert_eq!(o.status.code(), Some(2));
    let o = magichunt(&["bench", "--sample", "10"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The top-down orders (fold, the default on the rooks of ranks 1 to 4, and high) are sampled
/// in 2^24 finer pieces of the same tree unless `--task-bits` says otherwise, the low order at
/// `exhaust`'s split.
#[test]
fn the_high_order_is_sampled_finer_unless_told() {
    let fold = estimate_json(&["--estimate", "rook:e2:8", "--sample", "50"]);
    assert_eq!(fold["order"], "fold");
    assert_eq!(fold["tasks"], 1u64 << 24);
    let high = estimate_json(&[
        "--estimate",
        "rook:e2:8",
        "--sample",
        "50",
        "--order",
        "high",
    ]);
    assert_eq!(high["order"], "high");
    assert_eq!(high["tasks"], 1u64 << 24);
    assert!(
        high["nodes"]["total"].as_f64().unwrap() > 10.0 * fold["nodes"]["total"].as_f64().unwrap(),
        "trimmed and folded windows visit far fewer nodes: {} against {}",
        fold["nodes"],
        high["nodes"]
    );
    let told = estimate_json(&[
        "--estimate",
        "rook:e2:8",
        "--sample",
        "50",
        "--task-bits",
        "18",
    ]);
    assert_eq!(told["tasks"], 1 << 18);
    let low = estimate_json(&["--estimate", "rook:d4:9", "--sample", "5", "--order", "low"]);
    assert_eq!(low["order"], "low");
    assert_eq!(low["tasks"], 1 << 18);
}
