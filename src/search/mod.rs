//! The search: per-target scratchpads, candidate families, and batches of trials.

pub mod candidates;
pub mod scratch;

use std::sync::atomic::{AtomicBool, Ordering};

use rand_xoshiro::Xoshiro256PlusPlus;

pub use candidates::{task_rng, Family};
pub use scratch::Scratchpad;

use crate::magic::{self, Verified};
use crate::piece::Target;

/// How many candidates a batch draws between looks at the stop flag.
const POLL: u64 = 1 << 14;

/// What a batch of trials did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// Candidates examined (drawn), pre-filtered ones included.
    pub tried: u64,
    /// Candidates that reached the subset check.
    pub tested: u64,
    /// The magic found, verified again by [`magic::verify`].
    pub found: Option<Verified>,
}

/// Draws up to `n` candidates of `family` and checks them on `pad`; stops at the first magic
/// (returned only after the shared [`magic::verify`] accepted it) or when `stop` is set.
///
/// # Panics
/// If the fast check and verify ever disagree (a bug, never a user error).
pub fn search(
    pad: &mut Scratchpad,
    family: &Family,
    rng: &mut Xoshiro256PlusPlus,
    n: u64,
    stop: &AtomicBool,
) -> Batch {
    let mut batch = Batch::default();
    while batch.tried < n {
        if batch.tried % POLL == 0 && stop.load(Ordering::Relaxed) {
            break;
        }
        let m = family.draw(rng);
        batch.tried += 1;
        batch.tested += 1;
        if pad.try_magic(m) {
            let v = magic::verify(pad.target(), pad.bits(), m)
                .expect("the fast check and verify agree");
            batch.found = Some(v);
            break;
        }
    }
    batch
}

/// Finds a magic for `target` at `bits` (at the popcount this takes a fraction of a second),
/// deterministically from `seed`. Tries sparse candidates, then the other families.
#[must_use]
pub fn find_magic(target: Target, bits: u32, seed: u64) -> Option<Verified> {
    let never = AtomicBool::new(false);
    let mut pad = Scratchpad::new(target, bits);
    for round in 0..64 {
        let family = &Family::ALL[round as usize % Family::ALL.len()];
        let mut rng = task_rng(seed, target, bits, round);
        if let Some(v) = search(&mut pad, family, &mut rng, 1 << 20, &never).found {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attacks::Occupancies;
    use crate::Square;

    #[test]
    fn fast_check_agrees_with_verify() {
        use rand_xoshiro::rand_core::RngCore;
        let mut rng = task_rng(
            7,
            Target::new(crate::Piece::Rook, Square::new(0).unwrap()),
            12,
            0,
        );
        for target in Target::all().step_by(5) {
            let occ = Occupancies::new(target);
            let bits = occ.mask.count();
            let mut pad = Scratchpad::new(target, bits);
            for _ in 0..200 {
                let m = rng.next_u64() & rng.next_u64() & rng.next_u64();
                assert_eq!(
                    pad.try_magic(m),
                    magic::verify_pairs(&occ, bits, m).is_ok(),
                    "{target} {m:#x}"
                );
            }
        }
    }

    #[test]
    fn finds_popcount_magics_deterministically() {
        let t = Target::new(crate::Piece::Bishop, "e4".parse().unwrap());
        let a = find_magic(t, 9, 1).unwrap();
        assert_eq!(Some(a), find_magic(t, 9, 1));
    }
}

/// Magics of other squares of the same piece, shifted by the square difference: starting
/// points for neighbour mutation. A magic for `from` maps `occ`; the mask of a square `d`
/// squares higher is about `occ << d`, and `(occ << d) * (m >> d)` is about `occ * m`.
#[must_use]
pub fn neighbour_bases(target: Target, known: &[(Target, u64)]) -> Vec<u64> {
    known
        .iter()
        .filter(|(t, _)| t.piece == target.piece && t.square != target.square)
        .map(|&(t, m)| {
            let d = target.square.index() as i64 - t.square.index() as i64;
            if d > 0 {
                m >> d
            } else {
                m << -d
            }
        })
        .collect()
}

/// The candidate families worth spending time on for `target` at `bits`, given neighbour
/// bases for mutation. The hunter shares its time among them by what has paid.
#[must_use]
pub fn portfolio(target: Target, bits: u32, bases: &[u64]) -> Vec<Family> {
    let _ = (target, bits, bases);
    Family::ALL.to_vec()
}
