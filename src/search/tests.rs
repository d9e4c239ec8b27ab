//! The fast check must agree with `magic::verify` on every family and on adversarial
//! candidates; the families must name and parse back.

use std::sync::atomic::AtomicBool;

use rand_xoshiro::rand_core::RngCore;

use super::*;
use crate::attacks::{relevant_mask, Occupancies};
use crate::magic;
use crate::published;
use crate::{Piece, Square};

fn t(piece: Piece, sq: &str) -> Target {
    Target::new(piece, sq.parse::<Square>().unwrap())
}

/// Checks `m` both ways on `pad`; returns the verdict.
fn agree(pad: &mut Scratchpad, occ: &Occupancies, m: u64) -> bool {
    let fast = pad.try_magic(m);
    let slow = magic::verify_pairs(occ, pad.bits(), m).is_ok();
    assert_eq!(fast, slow, "{} {} bits {m:#x}", pad.target(), pad.bits());
    fast
}

#[test]
fn fast_check_agrees_with_verify_on_every_family() {
    let bases = vec![0x0003ff95e5e6a4c0, 0x510ffff5f63c96a0];
    let mut families = Family::ALL.to_vec();
    families.push(Family::Mutate { bases });
    let mut rng = task_rng(7, t(Piece::Rook, "a1"), 12, 0);
    for target in Target::all().step_by(3) {
        let occ = Occupancies::new(target);
        let pop = occ.mask.count();
        for bits in [pop, pop - 1, occ.lower_bound_bits().max(1)] {
            let mut pad = Scratchpad::new(target, bits);
            let gather = Family::Gather(Landing::new(target, bits));
            for family in families.iter().chain([&gather]) {
                for _ in 0..25 {
                    let m = family.draw_in(&mut rng, 64 - occ.mask.0.trailing_zeros());
                    agree(&mut pad, &occ, m);
                }
            }
        }
    }
}

/// Known valid magics, each with every single bit flipped, at its own bits, one bit fewer and
/// one bit more: both verdicts must occur and the fast check must agree every time.
#[test]
fn fast_check_agrees_with_verify_on_adversarial_candidates() {
    let (mut valid, mut invalid) = (0, 0);
    for e in published::records().entries.iter().step_by(2) {
        let occ = Occupancies::new(e.target);
        for bits in [e.bits - 1, e.bits, (e.bits + 1).min(12)] {
            let mut pad = Scratchpad::new(e.target, bits);
            for m in std::iter::once(e.magic).chain((0..64).map(|b| e.magic ^ 1 << b)) {
                if agree(&mut pad, &occ, m) {
                    valid += 1;
                } else {
                    invalid += 1;
                }
            }
            // Equivalent modulo the period: the top bits never matter.
            let m = e.magic ^ !pad.period_mask();
            assert_eq!(pad.try_magic(m), pad.try_magic(e.magic));
        }
    }
    assert!(
        valid > 100 && invalid > 100,
        "valid {valid} invalid {invalid}"
    );
}

/// The stamp wraps after about 4 M trials: the table must then be cleared, not trusted.
#[test]
fn stamps_survive_wrap_around() {
    let target = t(Piece::Bishop, "b1");
    let occ = Occupancies::new(target);
    let mut pad = Scratchpad::new(target, 4);
    let good = 0xfc0962854a77f576;
    let mut rng = task_rng(1, target, 4, 0);
    for i in 0..(1u64 << 22) + 50 {
        let m = if i % 1000 == 0 { good } else { rng.next_u64() };
        let fast = pad.try_magic(m);
        if i % 1000 == 0 || i > 1 << 22 {
            assert_eq!(fast, magic::verify_pairs(&occ, 4, m).is_ok(), "trial {i}");
        }
    }
}

#[test]
fn families_name_and_parse_back() {
    for f in Family::ALL {
        assert_eq!(f.to_string().parse::<Family>().unwrap(), f);
        assert_eq!(f.name().to_uppercase().parse::<Family>().unwrap(), f);
    }
    assert!("mutate".parse::<Family>().is_err());
    assert!("gather".parse::<Family>().is_err());
    assert!("nonsense".parse::<Family>().is_err());
    assert_eq!(Family::Mutate { bases: vec![1] }.name(), "mutate");
}

#[test]
fn draws_stay_inside_the_period() {
    let mut rng = task_rng(3, t(Piece::Rook, "h8"), 11, 0);
    for family in Family::ALL {
        for period in [46, 49, 56, 63, 64] {
            for _ in 0..200 {
                let m = family.draw_in(&mut rng, period);
                assert_eq!(m & !(u64::MAX >> (64 - period)), 0, "{family} {period}");
            }
        }
    }
}

/// Every `gather` draw is the sketch it claims: each lander sent into the index window (or
/// dropped, when that needs a negative bit), the rank segment moved into the window whole by
/// one bit, and nothing else.
#[test]
fn gather_draws_land_the_mask_in_the_window() {
    for target in Target::all() {
        let mask = relevant_mask(target.piece, target.square).0;
        let bits = mask.count_ones();
        let window = 64 - bits;
        let segment = mask & 0xff << (8 * target.square.rank());
        let landers: Vec<u32> = (0..64)
            .filter(|&q| (mask & !segment) >> q & 1 == 1)
            .collect();
        let lands = |p: u32, q: u32| (window..64).contains(&(p + q));
        assert_eq!(segment != 0, target.piece == Piece::Rook);
        let family = Family::Gather(Landing::new(target, bits));
        let mut rng = task_rng(9, target, bits, 0);
        for _ in 0..300 {
            let m = family.draw_in(&mut rng, 64 - mask.trailing_zeros());
            let set: Vec<u32> = (0..64).filter(|&p| m >> p & 1 == 1).collect();
            for &q in &landers {
                assert!(
                    q > window || set.iter().any(|&p| lands(p, q)),
                    "{target} {m:#x}"
                );
            }
            let whole = |p: u32| (0..64).all(|q| segment >> q & 1 == 0 || lands(p, q));
            let anchored = set.iter().any(|&p| whole(p));
            assert!(segment == 0 || anchored, "{target} {m:#x}: no anchor");
            assert!(set.len() <= landers.len() + 1, "{target} {m:#x}");
            for &p in &set {
                let lander = landers.iter().any(|&q| lands(p, q));
                assert!(lander || whole(p), "{target} {m:#x}: stray bit {p}");
            }
        }
    }
}

/// `gather` alone finds a verified popcount magic for all 128 targets, quickly.
#[test]
fn gather_finds_every_popcount_magic() {
    let never = AtomicBool::new(false);
    for target in Target::all() {
        let bits = relevant_mask(target.piece, target.square).count();
        let family = Family::Gather(Landing::new(target, bits));
        let mut pad = Scratchpad::new(target, bits);
        let mut rng = task_rng(11, target, bits, 0);
        let b = search(&mut pad, &family, &mut rng, 1 << 21, &never);
        let v = b
            .found
            .unwrap_or_else(|| panic!("{target}: none in {} tries", b.tried));
        assert!(magic::verify(target, bits, v.magic).is_ok());
    }
}

#[test]
fn search_finds_verified_magics_and_counts() {
    let never = AtomicBool::new(false);
    let target = t(Piece::Bishop, "e4");
    let mut pad = Scratchpad::new(target, 9);
    let mut rng = task_rng(1, target, 9, 0);
    let b = search(&mut pad, &Family::Sparse, &mut rng, 1 << 24, &never);
    let v = b.found.expect("bishop e4 at 9 bits is easy");
    assert!(magic::verify(target, 9, v.magic).is_ok());
    assert!(b.tried >= b.tested && b.tested >= 1 && b.checks >= b.tested);
    // Stop set: nothing is drawn.
    let stop = AtomicBool::new(true);
    let b = search(&mut pad, &Family::Dense, &mut rng, 1000, &stop);
    assert_eq!(b.tried, 0);
    // No magic exists for bishop d4 at 8 bits: a bounded batch draws exactly n.
    let target = t(Piece::Bishop, "d4");
    let mut pad = Scratchpad::new(target, 8);
    let b = search(&mut pad, &Family::Uniform, &mut rng, 50_000, &never);
    assert_eq!((b.tried, b.found), (50_000, None));
}

#[test]
fn finds_popcount_magics_deterministically() {
    let target = t(Piece::Rook, "e4");
    let a = find_magic(target, 10, 1).unwrap();
    assert_eq!(Some(a), find_magic(target, 10, 1));
    assert!(magic::verify(target, 10, a.magic).is_ok());
}

#[test]
fn neighbour_bases_shift_nearby_magics_only() {
    let g7 = t(Piece::Rook, "g7");
    let known = [
        (t(Piece::Rook, "h7"), 0x510ffff5f63c96a0u64),
        (t(Piece::Rook, "a1"), 0x0a8002c000108020),
        (t(Piece::Bishop, "f7"), 0x1234),
        (g7, 99),
    ];
    let bases = neighbour_bases(g7, &known);
    assert_eq!(
        bases[0],
        0x510ffff5f63c96a0 << 1,
        "h7 is one square above g7"
    );
    assert_eq!(
        bases.len(),
        5,
        "a1 is far, the bishop and g7 itself do not count"
    );
    assert!(portfolio(g7, 9, &bases)[0] == Family::Mutate { bases });
    assert!(portfolio(g7, 9, &[]).iter().all(|f| f.name() != "mutate"));
}

/// The template families find rook d7 at 9 bits (354 magics per period) quickly.
#[test]
fn two_cluster_finds_rook_d7_at_9_bits() {
    let target = t(Piece::Rook, "d7");
    let mut pad = Scratchpad::new(target, 9);
    let mut rng = task_rng(1, target, 9, 0);
    let never = AtomicBool::new(false);
    let b = search(&mut pad, &Family::TwoCluster, &mut rng, 20_000_000, &never);
    assert!(b.found.is_some(), "not found in {} tries", b.tried);
}

/// Whether `m` (inside `period`) is `2^a + (L << 16) - s` as [`Family::Block`] draws it.
fn is_block(m: u64, period: u32) -> bool {
    let p = u64::from(period);
    let x = m.wrapping_add(64) & (u64::MAX >> (64 - period));
    let (low, hi) = (x & 0xffff, x >> 16);
    let top = hi >> (p - 33);
    (1..=64).contains(&low)
        && top.is_power_of_two()
        && (p - 8..=p - 5).contains(&(u64::from(top.trailing_zeros()) + p - 17))
}

/// Block draws have the block shape, and so do the published rank 1 and 2 records once
/// their top cluster is cut to its lowest bit, which keeps them valid.
#[test]
fn block_has_the_shape_of_the_rank_1_and_2_records() {
    let mut rng = task_rng(5, t(Piece::Rook, "d2"), 9, 0);
    for period in [55, 63] {
        for _ in 0..2000 {
            assert!(is_block(Family::Block.draw_in(&mut rng, period), period));
        }
    }
    for (sq, bits) in [("d1", 10), ("g1", 10), ("c2", 9), ("d2", 9), ("e2", 9)] {
        let target = t(Piece::Rook, sq);
        let record = published::best(target).unwrap();
        assert_eq!(record.bits, bits);
        let occ = Occupancies::new(target);
        let period = 64 - occ.mask.0.trailing_zeros();
        let x = record.magic & (u64::MAX >> (64 - period));
        let cluster = x >> (period - 17) << (period - 17);
        let cut = x - cluster + (cluster & cluster.wrapping_neg());
        assert!(is_block(cut, period), "{target} {cut:#x}");
        assert!(
            magic::verify_pairs(&occ, bits, cut).is_ok(),
            "{target} {cut:#x}"
        );
    }
}

/// Experiment (run by hand): tries per magic for each family on the reduced targets.
#[test]
#[ignore = "experiment, prints figures"]
fn experiment_families() {
    let never = AtomicBool::new(false);
    let which = std::env::var("EXP").unwrap_or_default();
    let budget: u64 = std::env::var("BUDGET").map_or(20_000_000, |s| s.parse().unwrap());
    for e in &published::records().entries {
        let pop = Occupancies::new(e.target).mask.count();
        if e.bits >= pop || !format!("{} {}", e.target, e.bits).contains(&which) {
            continue;
        }
        let mut pad = Scratchpad::new(e.target, pop - 1);
        let mut line = format!("{} {}:", e.target, pop - 1);
        let fams = std::env::var("FAM").unwrap_or_default();
        for family in Family::ALL
            .into_iter()
            .filter(|f| fams.is_empty() || fams.contains(f.name()))
        {
            for filter in [0, 4, 6]
                .into_iter()
                .filter(|f| std::env::var("FILT").map_or(true, |s| s.contains(&f.to_string())))
            {
                let mut rng = task_rng(5, e.target, pop - 1, 0);
                let start = std::time::Instant::now();
                let (mut found, mut tried) = (0, 0);
                while tried < budget && found < 20 {
                    let b = search_filtered(
                        &mut pad,
                        &family,
                        &mut rng,
                        budget - tried,
                        &never,
                        filter,
                    );
                    tried += b.tried;
                    found += usize::from(b.found.is_some());
                }
                let s = start.elapsed().as_secs_f64();
                line += &format!(
                    " {}/{filter} {found} {:.2}/s {:.1}M/s;",
                    family.name(),
                    found as f64 / s,
                    tried as f64 / s / 1e6
                );
            }
        }
        println!("{line}");
    }
}

/// Experiment (run by hand): cost of building pads and finding popcount magics.
#[test]
#[ignore = "experiment, prints figures"]
fn experiment_popcount() {
    let never = AtomicBool::new(false);
    let t0 = std::time::Instant::now();
    let mut slow = Vec::new();
    for target in Target::all() {
        let a = std::time::Instant::now();
        let occ = Occupancies::new(target);
        let b = a.elapsed();
        let pad = Scratchpad::new(target, occ.mask.count());
        let c = a.elapsed();
        let pop = pad.bits();
        let mut pad = pad;
        let filt: u32 = std::env::var("FILT").map_or(0, |s| s.parse().unwrap());
        let mut rng = task_rng(9, target, pop, 0);
        let fam: Family = std::env::var("FAMILY").map_or(Family::Sparse, |s| s.parse().unwrap());
        let bt = search_filtered(&mut pad, &fam, &mut rng, 1 << 30, &never, filt);
        let tried = bt.tried;
        let d = a.elapsed();
        slow.push((d, target, b, c, tried));
    }
    println!("total {:?}", t0.elapsed());
    let bishops: std::time::Duration = slow
        .iter()
        .filter(|s| s.1.piece == Piece::Bishop)
        .map(|s| s.0)
        .sum();
    println!("bishops {bishops:?}");
    let tried: u64 = slow
        .iter()
        .filter(|s| s.1.piece == Piece::Rook)
        .map(|s| s.4)
        .sum();
    let pads: std::time::Duration = slow.iter().map(|s| s.3).sum();
    println!("rook tries {tried} pads {pads:?}");
    slow.sort();
    for s in slow.iter().rev().take(12) {
        println!(
            "{} total {:?} occ {:?} pad {:?} tried {}",
            s.1, s.0, s.2, s.3, s.4
        );
    }
}

/// Experiment (run by hand): tries per popcount rook magic for sparse variants.
#[test]
#[ignore = "experiment, prints figures"]
fn experiment_sparsity() {
    type Draw = fn(&mut rand_xoshiro::Xoshiro256PlusPlus) -> u64;
    let variants: [(&str, Draw); 4] = [
        ("and3", |r| r.next_u64() & r.next_u64() & r.next_u64()),
        ("and4", |r| {
            r.next_u64() & r.next_u64() & r.next_u64() & r.next_u64()
        }),
        ("and3|and4", |r| {
            (r.next_u64() & r.next_u64() & r.next_u64())
                | (r.next_u64() & r.next_u64() & r.next_u64() & r.next_u64())
        }),
        ("and2&and3", |r| {
            let a = r.next_u64() & r.next_u64();
            a & (r.next_u64() | r.next_u64() & r.next_u64())
        }),
    ];
    for (name, draw) in variants {
        let mut tries = 0u64;
        for target in Target::all().take(64) {
            let bits = Occupancies::new(target).mask.count();
            let mut pad = Scratchpad::new(target, bits);
            let mut rng = task_rng(11, target, bits, 0);
            let keep = pad.period_mask();
            loop {
                tries += 1;
                if pad.try_magic(draw(&mut rng) & keep) {
                    break;
                }
            }
        }
        println!("{name}: {tries} rook tries");
    }
}

/// Experiment (run by hand): neighbour mutation between rook g7 and h7.
#[test]
#[ignore = "experiment, prints figures"]
fn experiment_mutate() {
    let never = AtomicBool::new(false);
    let g7 = (t(Piece::Rook, "g7"), 0x0003ff95e5e6a4c0u64, 9);
    let h7 = (t(Piece::Rook, "h7"), 0x510ffff5f63c96a0u64, 10);
    for (from, to) in [(g7, h7), (h7, g7)] {
        let bases = neighbour_bases(to.0, &[(from.0, from.1)]);
        let mut pad = Scratchpad::new(to.0, to.2);
        for family in [
            Family::Mutate { bases },
            Family::TwoCluster,
            Family::NegSparse,
        ] {
            let mut rng = task_rng(1, to.0, to.2, 0);
            let start = std::time::Instant::now();
            let b = search(&mut pad, &family, &mut rng, 100_000_000, &never);
            println!(
                "{} at {} from {}: {family} found {:?} after {} tries, {:.2} s",
                to.0,
                to.2,
                from.0,
                b.found.map(|v| v.magic),
                b.tried,
                start.elapsed().as_secs_f64()
            );
        }
    }
}
