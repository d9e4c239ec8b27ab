//! Which families and which pre-filter pay for a target, and where mutation starts from.
//!
//! The choices below were measured with `magichunt bench` and the experiments in the README
//! ("Candidate families"): magics found per second, not candidates per second, decide.

use crate::attacks::relevant_mask;
use crate::piece::{Piece, Target};

use super::candidates::Landing;
use super::Family;

/// Popcount of the top byte of `mask * magic` below which a candidate is skipped, for a
/// search of `target` at `bits` with `family` (0: no pre-filter). It pays on bishops at the
/// popcount; on rooks and at reduced bits it rejects magics or costs more than it saves.
#[must_use]
pub fn prefilter(target: Target, bits: u32, family: &Family) -> u32 {
    let pop = relevant_mask(target.piece, target.square).count();
    match (target.piece, family) {
        (Piece::Bishop, Family::Sparse) if bits >= pop => 6,
        _ => 0,
    }
}

/// Magics of nearby squares of the same piece (same rank or the next one, at most two files
/// away), shifted by the square difference, then by one and two squares more either way:
/// starting points for neighbour mutation, nearest squares first, duplicates dropped.
///
/// A magic for `from` maps `occ`; the mask of a square `d` squares higher is about `occ << d`,
/// and `(occ << d) * (m >> d)` is about `occ * m`. Rook g7 and h7, and the rank 2 records c2,
/// d2, e2, come from each other this way plus a few flipped bits.
#[must_use]
pub fn neighbour_bases(target: Target, known: &[(Target, u64)]) -> Vec<u64> {
    let (tf, tr) = (target.square.file(), target.square.rank());
    let mut near: Vec<(i32, Target, u64)> = known
        .iter()
        .filter(|(t, _)| t.piece == target.piece && t.square != target.square)
        .filter_map(|&(t, m)| {
            let (df, dr) = ((t.square.file() - tf).abs(), (t.square.rank() - tr).abs());
            (dr <= 1 && df <= 2).then_some((dr * 4 + df, t, m))
        })
        .collect();
    near.sort_by_key(|&(dist, t, m)| (dist, t, m));
    let mut bases = Vec::new();
    for (_, t, m) in near {
        let d = target.square.index() as i64 - t.square.index() as i64;
        for extra in [0, -1, 1, -2, 2] {
            let s = d + extra;
            let b = match s {
                0 => m,
                1..=63 => m >> s,
                -63..=-1 => m << -s,
                _ => continue,
            };
            if !bases.contains(&b) {
                bases.push(b);
            }
        }
    }
    bases
}

/// The candidate families worth spending time on for `target` at `bits`, best first, given
/// neighbour bases for mutation (see [`neighbour_bases`]). The hunter shares its time among
/// them by what has paid.
///
/// - At the popcount (or more): gather (a sketch of the ideal magic, about ten times fewer
///   tries than scatter on the rooks), then scatter, then sparse, the classic choice.
/// - Rooks on ranks 7 and 8 below the popcount: two-cluster, then negated sparse, then dense:
///   every published record there is negated sparse.
/// - Rooks on ranks 1 and 2 below the popcount: block (the shape of every record there),
///   then dense and negated sparse.
/// - Other rooks below the popcount: dense, negated sparse, uniform.
/// - Bishops on ranks 3 and 6 below the popcount: split, uniform, dense; other bishops below
///   the popcount: dense, then uniform.
/// - Neighbour mutation first whenever there are bases.
#[must_use]
pub fn portfolio(target: Target, bits: u32, bases: &[u64]) -> Vec<Family> {
    let pop = relevant_mask(target.piece, target.square).count();
    let mut families = Vec::new();
    if !bases.is_empty() {
        families.push(Family::Mutate {
            bases: bases.to_vec(),
        });
    }
    if bits >= pop {
        let gather = Family::Gather(Landing::new(target, bits));
        families.extend([gather, Family::Scatter, Family::Sparse]);
        return families;
    }
    let rest: &[Family] = match target.piece {
        Piece::Rook if target.square.rank() >= 6 => {
            &[Family::TwoCluster, Family::NegSparse, Family::Dense]
        }
        Piece::Rook if target.square.rank() <= 1 => {
            &[Family::Block, Family::Dense, Family::NegSparse]
        }
        Piece::Rook => &[Family::Dense, Family::NegSparse, Family::Uniform],
        Piece::Bishop if matches!(target.square.rank(), 2 | 5) => {
            &[Family::Split, Family::Uniform, Family::Dense]
        }
        Piece::Bishop => &[Family::Dense, Family::Uniform],
    };
    families.extend_from_slice(rest);
    families
}

/// The family of round `round` when a search takes turns through `families` (best first):
/// the first on every other round, the others in turn on the rounds between.
///
/// # Panics
/// If `families` is empty.
#[must_use]
pub fn round_family(families: &[Family], round: u64) -> &Family {
    let n = families.len() as u64;
    if n == 1 || round.is_multiple_of(2) {
        &families[0]
    } else {
        &families[(1 + (round / 2) % (n - 1)) as usize]
    }
}

/// The candidate families for few-slot magics (the pools), best first: mutation of the
/// pool's best magics of the question when there are any (a local search: each find becomes a
/// starting point), then the shapes of the fixed-shift records' magics (negated sparse, two
/// clusters and blocks: long runs of ones, which send many subsets with equal attack sets to
/// one slot), then the popcount families and dense draws. Measured on rook d6 at 12 bits:
/// negated sparse and two-cluster draws reach 576 slots where sparse and gather stay at 896;
/// on rook b1 and a1 at 12 bits only block draws come below 2,000.
#[must_use]
pub fn pool_portfolio(target: Target, bits: u32, bases: &[u64]) -> Vec<Family> {
    let mut families = Vec::new();
    if !bases.is_empty() {
        families.push(Family::Mutate {
            bases: bases.to_vec(),
        });
    }
    families.extend([
        Family::NegSparse,
        Family::TwoCluster,
        Family::Block,
        Family::Gather(Landing::new(target, bits)),
        Family::Scatter,
        Family::Dense,
        Family::Split,
        Family::Uniform,
    ]);
    families
}
