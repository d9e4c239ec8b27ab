//! The attack-set lists of the indexed layout: where each square's distinct attack sets lie,
//! so that a one-byte id picks one.
//!
//! A square reads its attack set as `lists[base + id] & rays`, where `rays` is every square it
//! could attack on an empty board. So one list entry can serve several squares at once: the
//! union of one attack set of each, when every square's part of the union is its own attack
//! set. For a rook on a1 and a rook on h8, whose rays meet only on a8 and h1, almost any
//! attack set of the one fits beside almost any of the other; a light-square bishop never
//! meets a dark-square one. [`shared`] packs the 6,328 attack sets of the 128 squares into a
//! few hundred entries that way (a square's ids are bytes: its attack sets lie within 256
//! entries of its base). [`Lists::own`] gives every square a list of its own (no entry shared, the
//! lookup needs no mask), in the order of a numbering the id packer chose.

use std::sync::OnceLock;

use crate::attacks::Occupancies;
use crate::bitboard::Bitboard;
use crate::piece::{Piece, Target};

/// Entries a square's ids reach from its base: the ids are bytes.
pub const WINDOW: usize = 256;

/// A square's distinct attack sets, in increasing order of the bitboard: the order in which
/// an indexed table lists each square's ids.
#[must_use]
pub fn attack_sets(target: Target) -> Vec<u64> {
    let mut sets: Vec<u64> = Occupancies::new(target)
        .pairs
        .iter()
        .map(|p| p.1 .0)
        .collect();
    sets.sort_unstable();
    sets.dedup();
    sets
}

/// Every square a slider on `target` attacks on an empty board: what its lookup keeps of a
/// shared list entry.
#[must_use]
pub fn rays(target: Target) -> u64 {
    crate::attacks::attacks_slow(target.piece, target.square, Bitboard(0)).0
}

/// Where one square's attack sets lie in the list array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SquareList {
    /// The square.
    pub target: Target,
    /// Where its ids count from.
    pub base: u32,
    /// The id of each attack set, in the order of [`attack_sets`].
    pub ids: Vec<u8>,
}

/// The list array of an indexed table and every square's place in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lists {
    /// The entries: each the union of the attack sets it holds.
    pub entries: Vec<u64>,
    /// The squares, in [`Target::all`] order.
    pub squares: Vec<SquareList>,
}

impl Lists {
    /// The lists of `squares` (in [`Target::all`] order) as one array: every square's
    /// attack sets one after the other, in the order its numbering gives (`numbering[k]` is the
    /// id of the k-th attack set of [`attack_sets`]); no entry shared.
    ///
    /// # Panics
    /// If a numbering is not a permutation of its square's attack sets' positions.
    #[must_use]
    pub fn own(numberings: &[(Target, Vec<u8>)]) -> Lists {
        let mut entries = Vec::new();
        let mut squares = Vec::with_capacity(numberings.len());
        for (target, ids) in numberings {
            let sets = attack_sets(*target);
            assert_eq!(ids.len(), sets.len(), "{target}: one id per attack set");
            let base = entries.len();
            entries.resize(base + sets.len(), 0);
            for (&id, &a) in ids.iter().zip(&sets) {
                let slot = &mut entries[base + usize::from(id)];
                assert_eq!(*slot, 0, "{target}: id {id} given twice");
                *slot = a;
            }
            squares.push(SquareList {
                target: *target,
                base: base as u32,
                ids: ids.clone(),
            });
        }
        Lists { entries, squares }
    }

    /// Whether any entry holds attack sets of more than one square (the lookup must then
    /// keep only the square's rays of it).
    #[must_use]
    pub fn shared(&self) -> bool {
        self.squares.iter().any(|s| {
            let r = rays(s.target);
            s.ids
                .iter()
                .any(|&id| self.entries[s.base as usize + usize::from(id)] & !r != 0)
        })
    }
}

/// The shared lists of all 128 squares, packed once per process (they depend on the board
/// alone, not on the magics): see [`pack_shared`].
#[must_use]
pub fn shared() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| pack_shared(&Target::all().collect::<Vec<_>>()))
}

/// One list entry being filled: the union of the attack sets it holds, and the union of the
/// rays of the squares they belong to.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    union: u64,
    cover: u64,
}

impl Entry {
    /// Whether attack set `a` of a square with rays `r` may join: the square's part of the
    /// union stays `a`, and every square already there keeps its own part.
    #[inline]
    fn takes(self, a: u64, r: u64) -> bool {
        self.union & r & !a == 0 && a & self.cover & !self.union == 0
    }
}

/// Packs the attack sets of `targets` into as few shared entries as a greedy packer finds:
/// the squares with the most attack sets first, each at the base (tried from 0) that makes
/// the array end lowest, its attack sets (the narrowest first) each in the first entry of its
/// window that takes it. Deterministic. Measured on the 128 squares (2026-12-02): 776
/// entries; the widest attack sets first gave 875, bishops first 872, the fewest attack sets
/// first 1,059, random swaps of neighbours in the order 774 to 832; with no window (ids of
/// any size) the same greedy needs 555.
#[must_use]
pub fn pack_shared(targets: &[Target]) -> Lists {
    let mut order: Vec<(Target, Vec<u64>, u64)> = targets
        .iter()
        .map(|&t| (t, attack_sets(t), rays(t)))
        .collect();
    order.sort_by_key(|(t, sets, _)| {
        (
            std::cmp::Reverse(sets.len()),
            t.piece == Piece::Bishop,
            t.square.index(),
        )
    });
    let mut entries: Vec<Entry> = Vec::new();
    let mut placed: Vec<SquareList> = Vec::with_capacity(targets.len());
    for (target, sets, r) in &order {
        // The narrowest attack sets first: they fit beside most others, and fill the entries
        // the wide ones leave.
        let mut by_width: Vec<usize> = (0..sets.len()).collect();
        by_width.sort_by_key(|&k| (sets[k].count_ones(), sets[k]));
        let mut best: Option<(usize, usize, Vec<usize>)> = None;
        let mut pos = vec![0usize; sets.len()];
        for base in 0..=entries.len() {
            let bound = best.as_ref().map_or(usize::MAX, |b| b.0);
            let mut taken = [0u64; WINDOW / 64];
            let mut end = entries.len();
            let mut ok = true;
            for &k in &by_width {
                let a = sets[k];
                let found = (0..WINDOW).find(|&j| {
                    taken[j / 64] >> (j % 64) & 1 == 0
                        && entries.get(base + j).is_none_or(|e| e.takes(a, *r))
                });
                match found {
                    Some(j) if (base + j + 1).max(end) < bound => {
                        taken[j / 64] |= 1 << (j % 64);
                        end = end.max(base + j + 1);
                        pos[k] = j;
                    }
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                let done = end == entries.len();
                best = Some((end, base, pos.clone()));
                if done {
                    break;
                }
            }
        }
        let (end, base, pos) = best.expect("a base past the end always fits");
        entries.resize(end, Entry::default());
        for (k, &j) in pos.iter().enumerate() {
            let e = &mut entries[base + j];
            e.union |= sets[k];
            e.cover |= r;
        }
        placed.push(SquareList {
            target: *target,
            base: base as u32,
            ids: pos.iter().map(|&j| j as u8).collect(),
        });
    }
    placed.sort_by_key(|s| (s.target.piece as usize, s.target.square.index()));
    Lists {
        entries: entries.iter().map(|e| e.union).collect(),
        squares: placed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_reads_each_of_its_attack_sets_from_the_shared_lists() {
        let lists = shared();
        assert_eq!(lists.squares.len(), 128);
        let mut total = 0;
        for s in &lists.squares {
            let sets = attack_sets(s.target);
            let r = rays(s.target);
            let mut ids = s.ids.clone();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), sets.len(), "{}: distinct ids", s.target);
            for (&id, &a) in s.ids.iter().zip(&sets) {
                assert_eq!(lists.entries[s.base as usize + usize::from(id)] & r, a);
            }
            total += sets.len();
        }
        assert_eq!(total, 6328);
        assert!(lists.shared());
        eprintln!("shared lists: {} entries", lists.entries.len());
        assert_eq!(lists.entries.len(), 776);
    }

    #[test]
    fn own_lists_follow_the_numbering_and_share_nothing() {
        let a1 = Target::new(Piece::Rook, crate::Square::new(0).unwrap());
        let n = attack_sets(a1).len();
        let ids: Vec<u8> = (0..n as u8).rev().collect();
        let lists = Lists::own(&[(a1, ids)]);
        assert_eq!(lists.entries.len(), n);
        assert_eq!(lists.entries[n - 1], attack_sets(a1)[0]);
        assert!(!lists.shared());
    }
}
