use super::*;
use std::path::Path;

fn parse(text: &str) -> Result<Table, TableError> {
    Table::parse(text.as_bytes(), Path::new("t.json"))
}

const GOOD: &str = r#"{"version": 1, "about": "x", "entries": [
  {"piece": "rook", "square": "a8", "bits": 11, "magic": "0x00fffcddfced714a", "found_by": "someone"}]}"#;

#[test]
fn reads_verifies_and_round_trips() {
    let t = parse(GOOD).unwrap();
    assert_eq!(t.entries.len(), 1);
    assert_eq!(t.entries[0].extra_str("found_by"), Some("someone"));
    let again = parse(&t.to_json()).unwrap();
    assert_eq!(again, t);
    assert_eq!(again.to_json(), t.to_json());
}

#[test]
fn names_the_bad_entry() {
    let cases = [
        (
            GOOD.replace("0x00fffcddfced714a", "0x00fffcddfced714b"),
            "fails verification",
        ),
        (GOOD.replace("\"a8\"", "\"i9\""), "invalid square 'i9'"),
        (
            GOOD.replace("\"rook\"", "\"queen\""),
            "invalid piece 'queen'",
        ),
        (GOOD.replace("11", "13"), "bits 13 out of range"),
        (
            GOOD.replace("0x00fffcddfced714a", "0xZZ"),
            "invalid magic '0xZZ'",
        ),
        (
            GOOD.replace(", \"magic\": \"0x00fffcddfced714a\"", ""),
            "missing field `magic`",
        ),
    ];
    for (text, want) in cases {
        let err = parse(&text).unwrap_err().to_string();
        assert!(err.contains("entry 0"), "{err}");
        assert!(err.contains(want), "{err} lacks {want}");
    }
}

#[test]
fn refuses_newer_versions_and_garbage() {
    let newer = parse(&GOOD.replace("\"version\": 1", "\"version\": 2")).unwrap_err();
    assert!(
        matches!(newer, TableError::Version { found: 2, .. }),
        "{newer}"
    );
    assert!(matches!(parse("{").unwrap_err(), TableError::Syntax { .. }));
    assert!(matches!(
        parse("{\"version\": 1}").unwrap_err(),
        TableError::Syntax { .. }
    ));
    assert!(matches!(
        parse("[]").unwrap_err(),
        TableError::Syntax { .. }
    ));
}

#[test]
fn wrong_max_index_is_caught() {
    let text = GOOD.replace("\"bits\": 11,", "\"bits\": 11, \"max_index\": 5,");
    assert!(parse(&text)
        .unwrap_err()
        .to_string()
        .contains("max_index 5"));
}

#[test]
fn unknown_fields_are_kept_at_every_level() {
    let text = r#"{"version": 1, "top": 1,
      "entries": [{"piece": "rook", "square": "a8", "bits": 11, "magic": "0x00fffcddfced714a",
                   "e": 2, "method": {"family": "sparse", "m": 3}}],
      "effort": [{"piece": "rook", "square": "a8", "bits": 11, "run": "r", "tried": 1,
                  "seconds": 1.0, "f": 4}],
      "exhaust": [{"piece": "rook", "square": "a8", "bits": 11, "shards": 1, "x": 5,
                   "parts": [{"shard": 1, "done": false, "magics": 0, "nodes": 0,
                              "seconds": 0.0, "p": 6}]}]}"#;
    let t = parse(text).unwrap();
    assert_eq!(t.entries[0].method_extra["m"], 3);
    let back: Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(back["top"], 1);
    assert_eq!(back["entries"][0]["e"], 2);
    assert_eq!(back["entries"][0]["method"]["m"], 3);
    assert_eq!(back["entries"][0]["method"]["family"], "sparse");
    assert_eq!(back["effort"][0]["f"], 4);
    assert_eq!(back["exhaust"][0]["x"], 5);
    assert_eq!(back["exhaust"][0]["parts"][0]["p"], 6);
    assert_eq!(parse(&t.to_json()).unwrap(), t);
}

#[test]
fn found_at_and_counters_are_checked() {
    let with = |field: &str| GOOD.replace("\"found_by\"", &format!("{field}, \"found_by\""));
    let err = parse(&with(r#""found_at": "2026-01-01T00:00:00Z\nx""#))
        .unwrap_err()
        .to_string();
    assert!(err.contains("entry 0 (rook a8): found_at"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(parse(&with(r#""found_at": "2026-01-01T00:00:00Z""#)).is_ok());
    let effort = |tried: &str, seconds: &str| {
        GOOD.replace(
            "]}",
            &format!(
                r#"], "effort": [{{"piece": "rook", "square": "a8", "bits": 11, "run": "r", "tried": {tried}, "seconds": {seconds}}}]}}"#
            ),
        )
    };
    assert!(parse(&effort("1000000000000000000", "1e12")).is_ok());
    for (tried, seconds) in [("1000000000000000001", "1"), ("1", "1.1e12"), ("1", "-1")] {
        let err = parse(&effort(tried, seconds)).unwrap_err().to_string();
        assert!(err.contains("effort 0 (rook a8)"), "{err}");
    }
}
