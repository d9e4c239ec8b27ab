//! Runs the binary: `verify` and `show` exit codes and messages.

use std::process::Output;

use crate::common;
use common::magichunt;

fn verify(piece: &str, square: &str, bits: &str, magic: &str) -> Output {
    magichunt(&[
        "verify", "--piece", piece, "--square", square, "--bits", bits, "--magic", magic,
    ])
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn valid_magic_exits_0_with_figures() {
    let o = verify("rook", "a8", "11", "0x00fffcddfced714a");
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("valid"), "{out}");
    assert!(out.contains("highest index     2047"), "{out}");
    assert!(out.contains("constructive"), "{out}");
    // Decimal works too.
    let dec = u64::from_str_radix("00fffcddfced714a", 16)
        .unwrap()
        .to_string();
    assert_eq!(verify("rook", "A8", "11", &dec).status.code(), Some(0));
    assert_eq!(verify("rook", "56", "11", &dec).status.code(), Some(0));
}

#[test]
fn invalid_magic_exits_1_and_draws_the_pair() {
    let o = verify("rook", "a1", "11", "0x0a8002c000108020");
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("INVALID") && out.contains("destructive collision at index"),
        "{out}"
    );
    assert!(
        out.contains("blockers 1") && out.contains("attacks 2"),
        "{out}"
    );
    assert_eq!(out.matches("a b c d e f g h").count(), 4, "{out}");
}

#[test]
fn more_bits_than_the_popcount_are_legal() {
    // Bishop d8 has a 5-square mask; a fixed-shift 9-bit table is fine.
    assert_eq!(
        verify("bishop", "d8", "9", "0x0000000000208800")
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn malformed_input_exits_2_with_one_line_naming_the_value() {
    let cases = [
        (["rook", "i9", "11", "0x1"], "i9"),
        (["queen", "a8", "11", "0x1"], "queen"),
        (["rook", "a8", "0", "0x1"], "0"),
        (["rook", "a8", "13", "0x1"], "13"),
        (["bishop", "a8", "10", "0x1"], "10"),
        (["rook", "a8", "11", "0xZZ"], "0xZZ"),
        (
            ["rook", "a8", "11", "18446744073709551616"],
            "18446744073709551616",
        ),
        (
            ["rook", "a8", "11", "0x1ffffffffffffffff"],
            "0x1ffffffffffffffff",
        ),
    ];
    for ([p, s, b, m], bad) in cases {
        let o = verify(p, s, b, m);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{p} {s} {b} {m}: {out}{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(bad), "{err} does not name {bad}");
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{err}"
        );
    }
}

#[test]
fn verify_file_judges_each_entry() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"version": 1, "entries": [
        {"piece": "rook", "square": "a8", "bits": 11, "magic": "0x00fffcddfced714a"},
        {"piece": "bishop", "square": "b1", "bits": 4, "magic": "0xfc0962854a77f576"}]}"#;
    let path = dir.path().join("t.json");
    std::fs::write(&path, good).unwrap();
    let o = magichunt(&["verify", "--file", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).0.contains("2 entries, 2 valid, 0 invalid"));

    std::fs::write(
        &path,
        good.replace("0xfc0962854a77f576", "0x0000000000000001"),
    )
    .unwrap();
    let o = magichunt(&["verify", "--file", path.to_str().unwrap()]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("entry 1 (bishop b1 4 bits") && out.contains("1 invalid"),
        "{out}"
    );

    for (bad, names) in [
        ("{\"version\": 1, \"entries\": [", "t.json"),
        (
            r#"{"version": 1, "entries": [{"piece": "rook", "square": "a8", "bits": 11}]}"#,
            "entry 0",
        ),
        (
            r#"{"version": 1, "entries": [{"piece": "rook", "square": "z8", "bits": 11, "magic": "0x1"}]}"#,
            "z8",
        ),
    ] {
        std::fs::write(&path, bad).unwrap();
        let o = magichunt(&["verify", "--file", path.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(names), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let o = magichunt(&[
        "verify",
        "--file",
        dir.path().join("missing.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn show_prints_mask_bounds_and_published_record() {
    let o = magichunt(&["show", "--piece", "rook", "--square", "e4"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.contains("4 . 1 1 1 . 1 1 ."), "{out}");
    assert!(out.contains("mask popcount       10"), "{out}");
    assert!(out.contains("blocker subsets     1024"), "{out}");
    assert!(out.contains("best published      10 bits"), "{out}");
    assert!(out.contains("proven impossible   9 bits"), "{out}");
}
