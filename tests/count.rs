//! Counting the magics of a period: a search's parts list what they find, the store keeps the
//! tightest magic (the smallest highest index, then the fewest slots used), and `exhaust`
//! says how many there are and what each one stands for.

use std::path::Path;
use std::process::Output;

use magichunt::exhaust::campaign::found::task_of;
use magichunt::exhaust::{all_magics, Order, Plan};
use magichunt::magic::{self, format_magic, parse_magic};
use magichunt::{Piece, Square, Target};
use serde_json::Value;

use crate::common;
use common::{magichunt, report, text};

pub(crate) fn d8() -> Target {
    Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap())
}

/// Part `k` of 3 of bishop d8 at 5 bits (period 2^26, 2^12 tasks) in `order` into `store`.
pub(crate) fn d8_part(store: &Path, order: Order, k: u32, extra: &[&str]) -> Output {
    let shard = format!("{k}/3");
    let mut args = vec![
        "exhaust",
        "--piece",
        "bishop",
        "--square",
        "d8",
        "--bits",
        "5",
        "--order",
        order.name(),
        "--shard",
        &shard,
        "--threads",
        "2",
        "--store",
        store.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    magichunt(&args)
}

/// The parts of bishop d8 at 5 bits in `order`, part `k`'s list as the store keeps it.
pub(crate) fn listed(store: &Path, k: u32) -> Vec<u64> {
    let s: Value = serde_json::from_slice(&std::fs::read(store).unwrap()).unwrap();
    let part = s["exhaust"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["shard"] == k)
        .unwrap()
        .clone();
    part["found"]["magics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| parse_magic(m.as_str().unwrap()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

/// Every magic of bishop d8 at 5 bits and the tightest, by the smallest highest index, then
/// the fewest slots used, then the smallest magic.
fn tightest() -> (Vec<u64>, magic::Verified) {
    let all = all_magics(&Plan::new(d8(), 5));
    let best = all
        .iter()
        .map(|&m| magic::verify(d8(), 5, m).unwrap())
        .min_by_key(|v| (v.max_index, v.used_slots, v.magic))
        .unwrap();
    (all, best)
}

#[test]
fn a_search_in_parts_counts_its_magics_lists_them_and_keeps_the_tightest() {
    let dir = tempfile::tempdir().unwrap();
    let (all, best) = tightest();
    assert_eq!(all.len(), 9547);
    // Some magic shares the smallest highest index and uses more slots: the tie is broken by
    // the slots, not only by the magic.
    assert!(all.iter().any(|&m| {
        let v = magic::verify(d8(), 5, m).unwrap();
        v.max_index == best.max_index && v.used_slots > best.used_slots
    }));
    for order in [Order::Low, Order::Trim, Order::Fold] {
        let store = dir.path().join(format!("{order}.json"));
        let mut last = None;
        for k in 1..=3 {
            let o = d8_part(&store, order, k, &[]);
            assert!(o.status.success(), "{}", report(&o));
            last = Some(o);
        }
        let out = text(&last.unwrap());
        let line = format!(
            "bishop d8 at 5 bits: exists: 9547 magics in the period (residues modulo 2^26, each standing for 2^38 64-bit magics{}); all 9547 listed; tightest: highest index {}, {} slots used ({})\n",
            if order == Order::Fold {
                "; folded: each value of the half period and its negation tested by the definition, each counted"
            } else {
                ""
            },
            best.max_index,
            best.used_slots,
            format_magic(best.magic)
        );
        assert!(out.contains(&line), "{order}: {out}");
        // Each part lists the magics of its own tasks, every one of them.
        for k in 1..=3 {
            let mut got = listed(&store, k);
            got.sort_unstable();
            let want: Vec<u64> = all
                .iter()
                .copied()
                .filter(|&m| task_of(order, 26, 12, m) % 3 == u64::from(k - 1))
                .collect();
            assert_eq!(got, want, "{order}, part {k}");
        }
        // The store keeps the tightest.
        let s = magichunt::store::Store::load(&store).unwrap();
        assert_eq!(s.best(d8()).unwrap().magic, best.magic, "{order}");
        // Asked again, a done part says what the search found.
        let o = d8_part(&store, order, 1, &[]);
        assert!(o.status.success(), "{}", report(&o));
        assert!(text(&o).contains("is already done"), "{}", report(&o));
        assert!(text(&o).contains(&line), "{}", report(&o));
    }
}
