use super::*;
use crate::piece::Piece;
use crate::search::find_magic_for;
use crate::square::Square;

fn question(piece: Piece, square: &str, bits: u32) -> Question {
    let target = Target::new(piece, square.parse::<Square>().unwrap());
    Question::new(target, bits, Formula::Plain).unwrap()
}

/// `n` verified magics of `q` (distinct seeds), with their patterns.
fn magics(q: Question, n: u64) -> Vec<(Entry, Pattern)> {
    (0..n)
        .map(|seed| {
            let v = find_magic_for(q, 1000 + seed).expect("a popcount-plus magic exists");
            let e = Entry::from_verified(&v, None, None);
            let p = Pattern::of(&e);
            (e, p)
        })
        .collect()
}

#[test]
fn a_pool_keeps_the_best_distinct_patterns_up_to_its_capacity() {
    let q = question(Piece::Bishop, "b2", 7);
    let found = magics(q, 24);
    let mut pool = Pool::new(8, 5);
    for (e, p) in &found {
        pool.offer(e.clone(), p);
    }
    let kept = pool.members(q);
    assert!(kept.len() <= 5 && !kept.is_empty());
    assert!(kept.windows(2).all(|w| w[0].rank() < w[1].rank()));
    // The kept are the best of all offered (by rank, one per pattern).
    let mut all: Vec<Member> = found
        .iter()
        .map(|(e, p)| Member::new(e.clone(), p, 8))
        .collect();
    all.sort_by_key(Member::rank);
    all.dedup_by_key(|m| m.shape);
    all.sort_by_key(Member::rank);
    assert_eq!(
        kept.iter().map(Member::rank).collect::<Vec<_>>(),
        all.iter().take(5).map(Member::rank).collect::<Vec<_>>()
    );
    // Full: the threshold is the worst kept footprint, and a worse magic is refused.
    if kept.len() == 5 {
        assert_eq!(pool.threshold(q), Some(kept[4].footprint));
    }
    let (e, p) = &found[0];
    assert_eq!(
        pool.offer(e.clone(), p),
        Taken::Refused,
        "a pattern held already"
    );
}

#[test]
fn merging_pools_loses_no_pattern_and_ranks_by_the_receiving_gap() {
    let q = question(Piece::Bishop, "c2", 7);
    let found = magics(q, 16);
    let (mut a, mut b) = (Pool::new(4, 4), Pool::new(64, 4));
    for (k, (e, p)) in found.iter().enumerate() {
        if k % 2 == 0 {
            a.offer(e.clone(), p);
        } else {
            b.offer(e.clone(), p);
        }
    }
    let shapes = |p: &Pool| -> HashSet<u64> { p.members(q).iter().map(|m| m.shape).collect() };
    let union: HashSet<u64> = shapes(&a).union(&shapes(&b)).copied().collect();
    a.merge(b);
    assert_eq!(shapes(&a), union, "every pattern of both sides kept");
    assert!(a.capacity >= union.len());
    assert!(a
        .members(q)
        .iter()
        .all(|m| { m.footprint == Pattern::of(&m.entry).footprint(4) }));
}

#[test]
fn a_pool_file_round_trips_plain_and_gzip_and_refuses_edited_figures() {
    let dir = tempfile::tempdir().unwrap();
    let q = question(Piece::Rook, "h8", 12);
    let mut pool = Pool::new(64, 8);
    for (e, p) in magics(q, 6) {
        pool.offer(e, &p);
    }
    pool.add_effort(q, "test-run", 1234, 1.5);
    for name in ["pool.json", "pool.json.gz"] {
        let path = dir.path().join(name);
        pool.save(&path).unwrap();
        let back = Pool::read(&path).unwrap();
        assert_eq!(back.members(q), pool.members(q));
        assert_eq!(back.work_on(q), pool.work_on(q));
        assert_eq!(back.to_table().to_json(), pool.to_table().to_json());
    }
    // A hand-edited footprint, a duplicated entry, a store: each a clear error.
    let text = pool.to_table().to_json();
    let fp = pool.members(q)[0].footprint;
    let edited = text.replacen(
        &format!("\"footprint\": {fp}"),
        &format!("\"footprint\": {}", fp + 1),
        1,
    );
    assert_ne!(edited, text);
    let path = dir.path().join("edited.json");
    std::fs::write(&path, &edited).unwrap();
    let e = Pool::read(&path).unwrap_err().to_string();
    assert!(e.contains("footprint") && e.contains("verify gives"), "{e}");
    let mut doubled = pool.to_table();
    doubled.entries.push(doubled.entries[0].clone());
    std::fs::write(&path, doubled.to_json()).unwrap();
    let e = Pool::read(&path).unwrap_err().to_string();
    assert!(e.contains("holds its slot pattern already"), "{e}");
    let mut store = pool.to_table();
    store.meta.remove("kind");
    std::fs::write(&path, store.to_json()).unwrap();
    assert!(Pool::read(&path)
        .unwrap_err()
        .to_string()
        .contains("not a pool"));
    std::fs::write(&path, b"\x1f\x8b not gzip").unwrap();
    let gz = dir.path().join("bad.json.gz");
    std::fs::write(&gz, b"not gzip").unwrap();
    assert!(Pool::read(&gz).unwrap_err().to_string().contains("gzip"));
}
