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
            // Enumerated, not sampled: the store holds the search that found it, finished or
            // still under way (a campaign whose magic is offered as soon as it is found).
            let x = store
                .exhausts()
                .find(|x| x.target == t && x.bits == e.bits)
                .unwrap_or_else(|| panic!("{t}: exhaustive entry without its search"));
            assert!(x.magics() > 0, "{t}: its search found no magic");
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

/// The table built into the binary is `results/best.json` without its effort logs: the same
/// magics, proofs, exhaustive and SAT records. `MAGICHUNT_BLESS=1 cargo test --release --test
/// shipped_store` regenerates `src/shipped/best.json` (then build again).
#[test]
fn the_built_in_table_is_the_shipped_store() {
    use magichunt::shipped;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let best = std::fs::read_to_string(root.join(shipped::SOURCE)).unwrap();
    let want = shipped::compact(&best).unwrap();
    if std::env::var_os("MAGICHUNT_BLESS").is_some() {
        std::fs::write(root.join("src/shipped/best.json"), &want).unwrap();
    }
    assert!(
        shipped::JSON == want,
        "src/shipped/best.json is out of date against results/best.json: run \
         MAGICHUNT_BLESS=1 cargo test --release --test integration shipped_store::, then build again"
    );
    // What the copy holds, record by record, beside the store it comes from.
    let file = Store::load(&root.join(shipped::SOURCE)).unwrap();
    let built_in = shipped::store();
    let entries = |s: &Store| {
        s.entries()
            .map(|e| {
                (
                    e.target,
                    e.formula,
                    e.bits,
                    e.magic,
                    e.max_index,
                    e.min_index,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(entries(built_in), entries(&file));
    assert_eq!(
        built_in.entries().count(),
        256,
        "both formulas, every square"
    );
    let proofs = |s: &Store| {
        s.proofs()
            .map(|p| (p.target, p.formula, p.bits, p.method.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(proofs(built_in), proofs(&file));
    assert_eq!(built_in.exhausts().count(), file.exhausts().count());
    assert_eq!(built_in.sats().count(), file.sats().count());
    for t in Target::all() {
        assert_eq!(built_in.claimed_none(t), file.claimed_none(t), "{t}");
        // The built-in proofs are this build's own: they may decide which work is done.
        assert_eq!(built_in.proven_none(t), built_in.claimed_none(t), "{t}");
    }
    assert!(built_in
        .proofs()
        .all(|p| shipped::provenance_of(p) == Some(shipped::PROVENANCE)));
    assert_eq!(built_in.effort().count(), 0, "no effort logs built in");
}
