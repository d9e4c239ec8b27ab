//! Local search on a magic's bits: from a valid magic, steps that keep it valid and never
//! raise its slot count (equal counts are taken, so the search walks plateaus), towards
//! magics that write few slots.
//!
//! The fixed-shift records' few-slot magics are sparse in *signed* digits: `0x001ffff01fc03000`
//! is `2^53 - 2^36 + 2^29 - 2^22 + 2^14 - 2^12`, six terms, though 26 bits are set. A step
//! therefore adds or subtracts a power of two (which moves a run of ones as a carry would),
//! moves one signed digit a few places, or flips a bit or two. Every step is checked by the
//! scratchpad's fast check under the current slot count; a magic is taken only after the one
//! [`verify`](crate::magic::verify) accepted it.

use std::sync::atomic::{AtomicBool, Ordering};

use rand_xoshiro::rand_core::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::Scratchpad;
use crate::magic::Verified;

/// What a descent did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descent {
    /// Candidates examined.
    pub tried: u64,
    /// Steps taken (valid magics with no more slots than the one before).
    pub taken: u64,
    /// The fewest slots reached.
    pub fewest: u32,
}

/// A neighbour of `m` below `period`: plus or minus a power of two, a signed digit moved, or
/// one or two bits flipped.
#[inline]
fn step(m: u64, rng: &mut Xoshiro256PlusPlus, period: u32) -> u64 {
    let r = rng.next_u64();
    let p = u64::from(period.clamp(1, 64));
    let k = ((r & 0xffff) * p) >> 16;
    let j = ((r >> 16 & 0xffff) * p) >> 16;
    let keep = u64::MAX >> (64 - p);
    let m = match r >> 32 & 7 {
        0 | 1 => m.wrapping_add(1 << k),
        2 | 3 => m.wrapping_sub(1 << k),
        4 => {
            // A digit moved by 1 to 4 places: + 2^k - 2^(k +- d).
            let d = 1 + (r >> 36 & 3);
            let to = if r >> 38 & 1 == 0 {
                (k + d).min(p - 1)
            } else {
                k.saturating_sub(d)
            };
            m.wrapping_add(1 << k).wrapping_sub(1 << to)
        }
        5 => m.wrapping_sub(1 << k).wrapping_add(1 << j),
        6 => m ^ 1 << k,
        _ => m ^ 1 << k ^ 1 << j,
    };
    m & keep
}

/// Walks from `start` (a valid magic of the pad's question) for `n` candidates or until
/// `stop` is set, minimising `score` (the slots a magic writes, or anything never below
/// them, such as a footprint): each step that stays valid and scores at most `slack` above
/// the fewest reached so far is taken and handed to `on_step` with its score, once
/// [`verify`](crate::magic::verify) accepted it. With no slack the walk never goes up (it
/// walks plateaus); a little slack lets it leave a magic whose equals all share its slot
/// pattern. The fast check rejects a step whose slots already pass the bound.
///
/// # Panics
/// If `start` is not valid, `score` is ever below the slots, or the fast check and verify
/// disagree (a bug).
#[allow(clippy::too_many_arguments)]
pub fn descend(
    pad: &mut Scratchpad,
    start: u64,
    n: u64,
    slack: u32,
    rng: &mut Xoshiro256PlusPlus,
    stop: &AtomicBool,
    score: &mut dyn FnMut(&Scratchpad, &Verified) -> u32,
    on_step: &mut dyn FnMut(&Verified, u32),
) -> Descent {
    let first = pad
        .verify(start)
        .expect("a descent starts from a valid magic");
    let first_score = score(pad, &first);
    assert!(
        first_score >= first.used_slots,
        "a score is never below the slots"
    );
    let period = pad.period_bits();
    let mut cur = start;
    let mut d = Descent {
        fewest: first_score,
        ..Descent::default()
    };
    while d.tried < n {
        if d.tried.is_multiple_of(4096) && stop.load(Ordering::Relaxed) {
            break;
        }
        d.tried += 1;
        let bound = d.fewest.saturating_add(slack);
        let m = step(cur, rng, period);
        if m == cur || m == 0 || pad.first_failure_slots(m, bound).is_some() {
            continue;
        }
        let v = pad.verify(m).expect("the fast check and verify agree");
        assert!(v.used_slots <= bound, "the slot bound and verify agree");
        let s = score(pad, &v);
        assert!(s >= v.used_slots, "a score is never below the slots");
        if s > bound {
            continue;
        }
        cur = m;
        d.taken += 1;
        d.fewest = d.fewest.min(s);
        on_step(&v, s);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::magic::verify_question;
    use crate::piece::{Piece, Target};
    use crate::question::{Formula, Question};
    use rand_xoshiro::rand_core::SeedableRng;

    #[test]
    fn a_descent_only_takes_valid_magics_that_never_use_more_slots() {
        for (formula, magic) in [
            (Formula::Plain, 0x0000_0400_2020_0200u64),
            (Formula::Black, 0xfebf_7dff_f8fe_fff9),
        ] {
            let target = Target::new(Piece::Rook, "d4".parse().unwrap());
            let q = Question {
                target,
                bits: 12,
                formula,
            };
            let mut pad = Scratchpad::with_formula(target, 12, formula);
            let start = pad.verify(magic).unwrap().used_slots;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
            let mut fewest = start;
            let d = descend(
                &mut pad,
                magic,
                20_000,
                0,
                &mut rng,
                &AtomicBool::new(false),
                &mut |_, v| v.used_slots,
                &mut |v, s| {
                    assert_eq!(s, v.used_slots);
                    let again = verify_question(q, v.magic).unwrap();
                    assert_eq!(again.used_slots, v.used_slots);
                    // Without slack the walk never goes up.
                    assert!(v.used_slots <= fewest);
                    fewest = v.used_slots;
                },
            );
            assert_eq!(d.tried, 20_000);
            assert_eq!(d.fewest, fewest);
            assert!(d.fewest <= start);
            // With slack it may go up, never more than the slack above the fewest so far.
            let mut fewest = start;
            let mut up = false;
            descend(
                &mut pad,
                magic,
                20_000,
                64,
                &mut rng,
                &AtomicBool::new(false),
                &mut |_, v| v.used_slots,
                &mut |v, s| {
                    assert!(s <= fewest + 64, "{s} above {fewest} + 64");
                    up |= s > fewest;
                    fewest = fewest.min(s);
                    assert!(verify_question(q, v.magic).is_ok());
                },
            );
            assert!(up, "{formula}: the slack was never used");
        }
    }
}
