//! The proven-optimal rule: when a square's bits cannot be beaten, read from the proofs a
//! store holds (its own and the shipped published ones) and the square's lower bound.
//!
//! `compare` marks these squares `*`, `export` writes `proven optimal` beside them and the
//! proof campaign skips them: all three ask this one rule.

use super::Store;
use crate::attacks::Occupancies;
use crate::piece::Target;
use crate::question::Formula;

/// Whether `bits` are proven optimal for plain magics of `target`: one above the highest bit
/// count proven impossible (by the proofs of `store` that its [`Counting`](super::Counting)
/// takes, checked ones by default, or the published proofs), or at the lower bound
/// `ceil(log2(distinct attack sets))`.
#[must_use]
pub fn proven_optimal(store: &Store, target: Target, bits: u32) -> bool {
    proven_optimal_with(store, target, bits, Formula::Plain)
}

/// [`proven_optimal`] under `formula`: the counted proofs of that formula
/// ([`Store::proven_none_counted_with`]; the published ones are of plain magics), and the
/// lower bound, which holds for every formula.
#[must_use]
pub fn proven_optimal_with(store: &Store, target: Target, bits: u32, formula: Formula) -> bool {
    store
        .proven_none_counted_with(target, formula)
        .is_some_and(|none| bits == none + 1)
        || bits == Occupancies::new(target).lower_bound_bits()
}

/// Whether `bits` would be proven optimal for plain magics of `target` if every proof `store`
/// records held, checked or only claimed: what a listing marks as claimed; never what decides
/// work ([`optimal_for_work`]).
#[must_use]
pub fn optimal_if_claims_hold(store: &Store, target: Target, bits: u32) -> bool {
    store
        .claimed_none(target)
        .is_some_and(|none| bits == none + 1)
        || bits == Occupancies::new(target).lower_bound_bits()
}

/// Whether `bits` are proven optimal for plain magics of `target` by the proofs that may
/// decide which work is done ([`Store::proven_none`]: checked here, shipped with this build,
/// or published) or the lower bound: what decides which questions the campaign leaves open.
#[must_use]
pub fn optimal_for_work(store: &Store, target: Target, bits: u32) -> bool {
    store
        .proven_none(target)
        .is_some_and(|none| bits == none + 1)
        || bits == Occupancies::new(target).lower_bound_bits()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Piece;

    #[test]
    fn optimal_by_lower_bound_and_by_proof() {
        let store = Store::new();
        // Published proof: no 4-bit bishop d8 (so 5 bits is optimal there).
        let d8 = Target::new(Piece::Bishop, "d8".parse().unwrap());
        let none = store.proven_none(d8).unwrap();
        assert!(proven_optimal(&store, d8, none + 1));
        assert!(!proven_optimal(&store, d8, none + 2));
        // The published proofs are of plain magics: a black d8 at 5 bits is not settled.
        assert!(!proven_optimal_with(&store, d8, none + 1, Formula::Black));
        let e4 = Target::new(Piece::Rook, "e4".parse().unwrap());
        let lb = Occupancies::new(e4).lower_bound_bits();
        assert!(proven_optimal(&store, e4, lb));
        assert!(proven_optimal_with(&store, e4, lb, Formula::Black));
    }
}
