//! The curated store in `results/best.json`: what the repo ships must stay sound.

use std::path::Path;

use magichunt::attacks::relevant_mask;
use magichunt::store::Store;
use magichunt::{magic, published, Target};

#[test]
fn shipped_store_is_complete_verified_and_says_how_each_magic_was_found() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/best.json");
    let store = Store::load(&path).expect("the shipped store loads (every entry re-verified)");
    for t in Target::all() {
        let e = store.best(t).unwrap_or_else(|| panic!("{t} missing"));
        assert!(magic::verify(t, e.bits, e.magic).is_ok(), "{t}");
        assert!(
            e.bits <= relevant_mask(t.piece, t.square).count(),
            "{t} above its popcount"
        );
        if let Some(p) = store.proven_none(t) {
            assert!(
                e.bits > p,
                "{t} at {} bits contradicts a proof of none at {p}",
                e.bits
            );
        }
        let m = e
            .method
            .as_ref()
            .unwrap_or_else(|| panic!("{t} has no method"));
        if m.family == "exhaustive" {
            // Enumerated, not sampled: the store holds the finished search that found it.
            let x = store
                .exhausts()
                .find(|x| x.target == t && x.bits == e.bits)
                .unwrap_or_else(|| panic!("{t}: exhaustive entry without its search"));
            assert!(x.complete() && x.magics() > 0, "{t}: search incomplete");
        } else {
            assert!(
                m.seed.is_some() && m.run.is_some(),
                "{t}: family, seed and run recorded"
            );
        }
        assert!(e.found_at.is_some(), "{t} has no found_at");
        // Never copied: no shipped magic is the published record's own number.
        let rec = published::best(t).unwrap();
        assert!(
            e.magic != rec.magic || e.bits > rec.bits,
            "{t} equals the published record"
        );
        assert!(store.work(t).0 > 0, "{t}: no effort recorded");
    }
}

/// Issue 13, trust (d): wherever the shipped store holds both a finished SAT settlement and a
/// finished exhaustive search of one question (a second method, run on purpose), they agree,
/// and there is at least one such question.
#[test]
fn shipped_sat_and_exhaustive_answers_agree() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/best.json");
    let store = Store::load(&path).expect("the shipped store loads");
    let mut both = 0;
    for s in store.sats() {
        if s.settled() < s.shards as usize || s.question.formula != magichunt::Formula::Plain {
            continue;
        }
        let exists_by_sat = !s.proves_none();
        let q = s.question;
        for x in store
            .exhausts()
            .filter(|x| x.target == q.target && x.bits == q.bits && x.complete())
        {
            both += 1;
            assert_eq!(
                x.magics() > 0,
                exists_by_sat,
                "{} at {} bits: SAT and exhaust disagree",
                q.target,
                q.bits
            );
        }
    }
    assert!(both > 0, "no question settled by both methods");
}
