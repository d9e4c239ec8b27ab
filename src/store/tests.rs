use super::*;
use crate::exhaust::Order;
use crate::magic::verify;
use crate::table::wire::PartWire;
use crate::{Piece, Square};

fn target(p: Piece, s: &str) -> Target {
    Target::new(p, s.parse::<Square>().unwrap())
}

fn entry(t: Target, bits: u32, magic: u64) -> Entry {
    Entry::from_verified(&verify(t, bits, magic).unwrap(), None, None)
}

const A8_11: u64 = 0x00fffcddfced714a;
const A8_12: u64 = 0x4080008040102101; // rook a8 at 12 bits, from the plain published table

#[test]
fn better_replaces_worse_never_the_reverse() {
    let a8 = target(Piece::Rook, "a8");
    let mut s = Store::new();
    assert!(verify(a8, 12, A8_12).is_ok());
    assert_eq!(s.offer(entry(a8, 12, A8_12)), Offer::New);
    assert!(matches!(
        s.offer(entry(a8, 11, A8_11)),
        Offer::Improved { old_bits: 12, .. }
    ));
    assert_eq!(s.offer(entry(a8, 12, A8_12)), Offer::Kept);
    assert_eq!(s.best(a8).unwrap().bits, 11);
}

/// Of two magics with one span, the one that uses fewer slots is kept, whichever is offered
/// first and whatever their values: the tightest, as a finished exhaustive search picks it.
#[test]
fn of_two_magics_with_one_span_the_one_with_fewer_slots_wins() {
    let d8 = target(Piece::Bishop, "d8");
    let plan = crate::exhaust::Plan::new(d8, 5);
    let all: Vec<Entry> = crate::exhaust::all_magics(&plan)
        .into_iter()
        .map(|m| entry(d8, 5, m))
        .collect();
    // A pair with one span where the larger magic uses fewer slots.
    let (a, b) = all
        .iter()
        .flat_map(|a| all.iter().map(move |b| (a, b)))
        .find(|(a, b)| a.span() == b.span() && a.magic < b.magic && b.used_slots < a.used_slots)
        .expect("bishop d8 at 5 has such a pair");
    for (first, second) in [(a, b), (b, a)] {
        let mut s = Store::new();
        s.offer(first.clone());
        s.offer(second.clone());
        assert_eq!(s.best(d8).unwrap().magic, b.magic);
    }
    assert!(b.rank() < a.rank());
}

#[test]
fn save_load_round_trip_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("best.json");
    let a8 = target(Piece::Rook, "a8");
    let mut s = Store::new();
    s.offer(entry(a8, 11, A8_11));
    s.add_effort(a8, 11, "run-1", 1000, 1.5);
    s.add_effort(a8, 10, "run-1", 500, 0.5);
    s.save(&path).unwrap();
    let back = Store::load(&path).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.work(a8), (1500, 2.0));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"tried\": 1500"), "{text}");
}

#[test]
fn missing_store_is_empty_but_corrupt_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Store::load(&dir.path().join("none.json")).unwrap(),
        Store::new()
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"version\": 1, \"entries\": [").unwrap();
    assert!(Store::load(&bad).is_err());
    assert_eq!(
        std::fs::read_to_string(&bad).unwrap(),
        "{\"version\": 1, \"entries\": ["
    );
}

#[test]
fn merge_is_idempotent_and_keeps_the_best() {
    let a8 = target(Piece::Rook, "a8");
    let mut a = Store::new();
    a.offer(entry(a8, 12, A8_12));
    a.add_effort(a8, 12, "ra", 10, 1.0);
    let mut b = Store::new();
    b.offer(entry(a8, 11, A8_11));
    b.add_effort(a8, 11, "rb", 20, 2.0);
    a.merge(b.clone(), "a", "b").unwrap();
    a.merge(b, "a", "b").unwrap();
    assert_eq!(a.best(a8).unwrap().bits, 11);
    assert_eq!(a.work(a8), (30, 3.0));
}

#[test]
fn merge_names_both_sides_of_a_contradiction() {
    let a8 = target(Piece::Rook, "a8");
    let mut a = Store::new();
    a.offer(entry(a8, 11, A8_11));
    let mut b = Store::new();
    let proof = Proof {
        target: a8,
        bits: 11,
        formula: crate::question::Formula::Plain,
        method: None,
        extra: BTreeMap::new(),
    };
    b.add_proof(proof, "b.json").unwrap();
    let err = a.merge(b, "a.json", "b.json").unwrap_err().to_string();
    assert!(err.contains("a.json") && err.contains("b.json"), "{err}");
}

/// A part of an exhaustive search with no magic, no best and no residue.
fn bare_part(shard: u32, done: bool) -> PartWire {
    PartWire {
        shard,
        done,
        cursor: None,
        magics: 0,
        nodes: 7,
        seconds: 0.1,
        best: None,
        residue: None,
        found: None,
        supplied: None,
        extra: BTreeMap::new(),
    }
}

#[test]
fn all_parts_done_with_no_magic_becomes_a_proof() {
    let d8 = target(Piece::Bishop, "d8");
    let part = bare_part;
    let mut a = Store::new();
    a.exhaust_mut(d8, 4, 2, 18, Order::Low)
        .parts
        .insert(1, part(1, true));
    let mut b = Store::new();
    b.exhaust_mut(d8, 4, 2, 18, Order::Low)
        .parts
        .insert(2, part(2, false));
    a.merge(b.clone(), "a", "b").unwrap();
    assert_eq!(a.proofs().count(), 0, "part 2 is not done");
    b.exhaust_mut(d8, 4, 2, 18, Order::Low)
        .parts
        .insert(2, part(2, true));
    a.merge(b, "a", "b").unwrap();
    let p: Vec<_> = a.proofs().collect();
    assert_eq!((p.len(), p[0].bits), (1, 4));
}

/// Parts searched in different orders cut the period into different tasks: merging them
/// is refused, and a finished high-order search says so in its proof.
#[test]
fn parts_of_different_orders_do_not_merge() {
    let d8 = target(Piece::Bishop, "d8");
    let part = |shard| bare_part(shard, true);
    let mut a = Store::new();
    a.exhaust_mut(d8, 4, 2, 18, Order::High)
        .parts
        .insert(1, part(1));
    let mut b = Store::new();
    b.exhaust_mut(d8, 4, 2, 18, Order::Low)
        .parts
        .insert(2, part(2));
    let err = a.clone().merge(b, "a", "b").unwrap_err().to_string();
    assert!(err.contains("different orders"), "{err}");
    let mut c = Store::new();
    c.exhaust_mut(d8, 4, 2, 18, Order::High)
        .parts
        .insert(2, part(2));
    a.merge(c, "a", "c").unwrap();
    let p: Vec<_> = a.proofs().collect();
    assert_eq!(p.len(), 1);
    assert!(p[0].method.as_deref().unwrap().contains("high bits first"));
    assert!(p[0].extra["command"]
        .as_str()
        .unwrap()
        .contains("--order high"));
}
