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
