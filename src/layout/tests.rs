use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::pack::{first_fit_decreasing, pack, PackOptions};
use super::*;
use crate::attacks::{attacks_slow, Occupancies};
use crate::magic::{index_with, verify_question};
use crate::piece::{Piece, Target};
use crate::published;
use crate::question::{Formula, Question};
use crate::table::Table;

fn records() -> Vec<Entry> {
    published::records().entries.clone()
}

#[test]
fn layouts_parse_and_size_per_square() {
    for l in Layout::ALL {
        assert_eq!(l.name().parse::<Layout>().unwrap(), l);
    }
    assert!("shared".parse::<Layout>().is_err());
    let r = records();
    assert_eq!(per_square_size(Layout::Fancy, &r), 89_280);
    assert_eq!(per_square_size(Layout::Tight, &r), 89_258);
    assert_eq!(Layout::Packed.square_size(&r[0]), None);
}

#[test]
fn patterns_agree_with_verify() {
    let (_, black) = published::best_packed(Formula::Black);
    for e in records()
        .iter()
        .take(8)
        .chain(black.entries.iter().map(|p| &p.entry).take(8))
    {
        let p = Pattern::of(e);
        let v = verify_question(e.question(), e.magic).unwrap();
        assert_eq!(
            (p.used(), p.min(), p.max()),
            (v.used_slots, v.min_index, v.max_index)
        );
        assert_eq!(p.span(), e.span());
        assert!(p.slots.windows(2).all(|w| w[0].0 < w[1].0));
    }
    // An invalid magic has no pattern.
    let t = Target::new(Piece::Rook, "a1".parse().unwrap());
    assert!(
        Pattern::from_pairs(&Occupancies::new(t), Formula::Plain, 11, 0x0a8002c000108020).is_none()
    );
}

#[test]
fn equal_attack_sets_share_slots_and_different_ones_do_not() {
    let p = Pattern {
        slots: vec![(0, 5), (2, 7)],
    };
    let q = Pattern {
        slots: vec![(0, 7), (1, 9)],
    };
    let mut a = Shared::new();
    a.place(&p, 0);
    assert!(a.fits(&q, 2), "7 meets 7, 9 a free slot");
    assert!(!a.fits(&q, 0), "7 would meet 5");
    assert_eq!(a.first_fit(&q, 0, u64::MAX), Some(2));
    a.place(&q, 2);
    assert_eq!((a.size(), a.used()), (4, 3));
    a.remove(&p, 0);
    assert_eq!((a.size(), a.used(), a.get(2)), (4, 2, 7));
    a.remove(&q, 2);
    assert_eq!((a.size(), a.used()), (0, 0));
    assert_eq!(
        a.first_fit(&q, 0, 1),
        None,
        "the highest slot must stay below the limit"
    );
}

#[test]
fn fill_finds_overlaps_and_counts_shared_slots() {
    let r = records();
    let (a, b) = (&r[0], &r[1]);
    let f = fill(&[(a, 0), (b, 1 << a.bits)]).unwrap();
    assert_eq!(f.size, (1 << a.bits) + u64::from(b.max_index) + 1);
    assert_eq!(f.shared, 0);
    let o = fill(&[(a, 0), (b, 0)]).unwrap_err();
    assert_eq!((o.first.target, o.second.target), (a.target, b.target));
    assert_ne!(o.first.attacks, o.second.attacks);
    assert!(o.to_string().contains("slot"));
    // One square twice at the same offset: every slot shared, nothing new used.
    let f = fill(&[(a, 0), (a, 0)]).unwrap();
    assert_eq!(f.shared, f.used);
}

/// The packer's result, filled from the reference, looks up every subset right.
#[test]
fn packing_the_records_beats_their_fancy_size_and_checks() {
    let r = records();
    let patterns: Vec<Pattern> = r.iter().map(Pattern::of).collect();
    let ffd = first_fit_decreasing(&patterns);
    let opts = PackOptions {
        steps: 300,
        ..PackOptions::default()
    };
    let p = pack(&patterns, Some(&ffd), &opts, &AtomicBool::new(false));
    assert!(p.size <= p.first_size && p.first_size < 89_258, "{p:?}");
    assert!(p.used <= p.size);
    let placed: Vec<(&Entry, u32)> = r.iter().zip(&p.offsets).map(|(e, &o)| (e, o)).collect();
    let f = fill(&placed).unwrap();
    assert_eq!((f.size, f.used), (p.size, p.used));
    // The same again, by hand: every subset of every square finds its attack set.
    let mut table = vec![0u64; p.size as usize];
    for (e, o) in &placed {
        for (i, a) in Pattern::of(e).slots {
            table[(o + i) as usize] = a;
        }
    }
    for (e, o) in &placed {
        let occ = Occupancies::new(e.target);
        for &(sub, att) in &occ.pairs {
            let s = *o as usize + index_with(e.formula, sub.0, occ.mask.0, e.magic, e.bits);
            assert_eq!(table[s], att.0);
            assert_eq!(att, attacks_slow(e.target.piece, e.target.square, sub));
        }
    }
    // Repeatable: the same seed and steps give the same offsets.
    let again = pack(&patterns, Some(&ffd), &opts, &AtomicBool::new(false));
    assert_eq!(again, p);
}

#[test]
fn packed_tables_round_trip_and_refuse_wrong_figures() {
    let (_, black) = published::best_packed(Formula::Black);
    let f = black.check().unwrap();
    let json = black.to_json(&f);
    let t = Table::parse(json.as_bytes(), Path::new("packed.json")).unwrap();
    let back = PackedTable::from_table(&t).unwrap();
    assert_eq!(back.entries, black.entries);
    assert_eq!(back.check().unwrap(), f);
    assert_eq!(back.formula(), Some(Formula::Black));
    // A wrong declared size, a wrong used count, a missing size, an offset moved onto another
    // square's slots.
    let mut wrong = back.clone();
    wrong.declared = Some(f.size + 1);
    assert!(matches!(wrong.check(), Err(LayoutError::Size { .. })));
    let mut wrong = back.clone();
    wrong.stated_used = Some(f.used - 1);
    assert!(matches!(wrong.check(), Err(LayoutError::Used { .. })));
    let mut wrong = back.clone();
    wrong.declared = None;
    assert!(matches!(wrong.check(), Err(LayoutError::Format(_))));
    let mut wrong = back.clone();
    wrong.entries[1].offset = wrong.entries[0].offset;
    assert!(matches!(wrong.check(), Err(LayoutError::Overlap(_))));
    // Not packed, or an entry without an offset.
    assert!(PackedTable::from_table(published::records()).is_err());
    let mut t2 = t.clone();
    t2.entries[3].extra.remove("offset");
    assert!(matches!(
        PackedTable::from_table(&t2),
        Err(LayoutError::Format(_))
    ));
}

#[test]
fn black_entries_load_as_black_and_fail_as_plain() {
    let (name, black) = published::best_packed(Formula::Black);
    assert!(black
        .entries
        .iter()
        .all(|p| p.entry.formula == Formula::Black));
    // Rook b1: indices 513 to 3152 under the black formula; not a plain magic at all.
    let e = &black.entries[1].entry;
    assert_eq!(e.target.to_string(), "rook b1");
    assert_eq!((e.min_index, e.max_index), (513, 3152), "{name}");
    let plain = Question {
        formula: Formula::Plain,
        ..e.question()
    };
    assert!(verify_question(plain, e.magic).is_err());
    // At 12 and 9 bits many of these are plain magics too, but not most.
    let not_plain = black
        .entries
        .iter()
        .filter(|p| {
            let q = Question {
                formula: Formula::Plain,
                ..p.entry.question()
            };
            verify_question(q, p.entry.magic).is_err()
        })
        .count();
    assert!(not_plain > 64, "{not_plain}");
}

/// How few slots a magic can use with more bits than it needs: the sparse patterns behind
/// the fixed-shift records. `EXP="rook d4" BITS=12 SECS=60 cargo test --release --lib
/// experiment_fewest_used -- --ignored --nocapture`.
#[test]
#[ignore]
fn experiment_fewest_used() {
    use crate::search::{search, task_rng, Family, Scratchpad};
    let spec = std::env::var("EXP").unwrap_or_else(|_| "rook d4".into());
    let mut words = spec.split_whitespace();
    let piece: Piece = words.next().unwrap().parse().unwrap();
    let target = Target::new(piece, words.next().unwrap().parse().unwrap());
    let bits: u32 = std::env::var("BITS").map_or(12, |b| b.parse().unwrap());
    let secs: u64 = std::env::var("SECS").map_or(30, |b| b.parse().unwrap());
    let formula: Formula = std::env::var("FORMULA").map_or(Formula::Plain, |f| f.parse().unwrap());
    let never = AtomicBool::new(false);
    for family in [
        Family::Sparse,
        Family::Uniform,
        Family::Dense,
        Family::Scatter,
    ] {
        let mut pad = Scratchpad::with_formula(target, bits, formula);
        let mut rng = task_rng(1, target, bits, 0);
        let t0 = std::time::Instant::now();
        let (mut found, mut best, mut tried) = (0u64, u32::MAX, 0u64);
        let mut sum = 0u64;
        while t0.elapsed().as_secs() < secs / 4 {
            let b = search(&mut pad, &family, &mut rng, 1 << 14, &never);
            tried += b.tried;
            if let Some(v) = b.found {
                found += 1;
                sum += u64::from(v.used_slots);
                best = best.min(v.used_slots);
            }
        }
        println!(
            "{target} {bits} bits {formula} {family}: {found} magics in {tried} tries, used slots mean {} min {best}",
            sum / found.max(1)
        );
    }
}

/// The white records are first-fit placements in some order: `first_fit_order` finds one that
/// decodes to the record's own offsets (the 2017 record's 88,772 entries, where first-fit in
/// offset order gives 96,891), so `pack --from` anneals from the record itself. The 2008 and
/// black records have squares above holes they fit in; their derived order still decodes no
/// larger than the offset order.
#[test]
fn first_fit_in_the_derived_order_rebuilds_the_white_records() {
    use super::anneal::{decode, first_fit_order, Candidate, Plan};
    use super::occupancy::Shape;
    for name in published::PACKED {
        let table = published::packed(name).unwrap();
        let patterns: Vec<Pattern> = table
            .entries
            .iter()
            .map(|p| Pattern::of(&p.entry))
            .collect();
        let squares: Vec<Vec<Candidate>> = patterns
            .iter()
            .map(|p| {
                vec![Candidate {
                    shape: Shape::of(p),
                    lo: p.min(),
                }]
            })
            .collect();
        let offsets: Vec<u32> = table.entries.iter().map(|p| p.offset).collect();
        let base: Vec<u32> = (0..squares.len())
            .map(|k| offsets[k] + squares[k][0].lo)
            .collect();
        let pick = vec![0; squares.len()];
        let labels = vec![(); squares.len()];
        let derived = decode(
            &squares,
            &first_fit_order(&squares, &pick, &base, &labels).plan,
        );
        let mut by_offset: Vec<usize> = (0..squares.len()).collect();
        by_offset.sort_by_key(|&k| (base[k], k));
        let naive = decode(
            &squares,
            &Plan {
                order: by_offset,
                pick: pick.clone(),
            },
        );
        eprintln!(
            "{name}: derived {} offset order {}",
            derived.size, naive.size
        );
        assert!(derived.size <= naive.size, "{name}");
        if name.starts_with("annuss-fixed-shift-201") {
            assert_eq!(derived.offsets(&squares), offsets, "{name}");
            assert_eq!(Some(u64::from(derived.size)), table.declared, "{name}");
        }
        if name == "annuss-fixed-shift-2017" {
            assert_eq!((naive.size, derived.size), (96_891, 88_772));
        }
        // pack from the record, with no annealing, gives the record back.
        let opts = PackOptions {
            steps: 0,
            ..PackOptions::default()
        };
        let p = pack(&patterns, Some(&offsets), &opts, &AtomicBool::new(false));
        assert_eq!(p.offsets, offsets, "{name}");
    }
}
