//! Facts about the reference, and an exhaustive check against an independent formulation.

use super::*;
use crate::piece::Target;

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// Reads an 8x8 board drawn rank 8 first, `1` for a set square (other characters ignored).
fn board(text: &str) -> Bitboard {
    let rows: Vec<Vec<bool>> = text
        .lines()
        .map(|l| {
            // Drop a rank label such as "8 |" before the cells.
            let cells = l.rsplit('|').next().unwrap_or(l);
            cells
                .split_whitespace()
                .filter(|c| *c == "0" || *c == "1")
                .map(|c| c == "1")
                .collect::<Vec<_>>()
        })
        .filter(|r: &Vec<bool>| r.len() == 8)
        .collect();
    assert_eq!(rows.len(), 8);
    let mut bb = Bitboard::EMPTY;
    for (i, row) in rows.iter().enumerate() {
        for (file, &set) in row.iter().enumerate() {
            if set {
                bb = bb.with(Square::from_coords(file as i32, 7 - i as i32).unwrap());
            }
        }
    }
    bb
}

/// Line attacks by `o ^ (o - 2r)` ("hyperbola quintessence"): the attacks along one line
/// through `s`, from the occupancy restricted to that line, in both directions by bit reversal.
fn line_attacks(occupied: u64, s: Square, line: u64) -> u64 {
    let r = Bitboard::from(s).0;
    let o = occupied & line;
    let forward = o.wrapping_sub(r.wrapping_mul(2));
    let reverse = o
        .reverse_bits()
        .wrapping_sub(r.reverse_bits().wrapping_mul(2))
        .reverse_bits();
    (forward ^ reverse) & line
}

/// The lines through `s` (without `s` itself), built from coordinates, not from rays.
fn lines(piece: Piece, s: Square) -> Vec<u64> {
    let on = |f: fn(Square, Square) -> bool| {
        Square::all()
            .filter(|&t| t != s && f(s, t))
            .fold(0u64, |b, t| b | Bitboard::from(t).0)
    };
    match piece {
        Piece::Rook => vec![
            on(|a, b| a.file() == b.file()),
            on(|a, b| a.rank() == b.rank()),
        ],
        Piece::Bishop => vec![
            on(|a, b| a.file() - a.rank() == b.file() - b.rank()),
            on(|a, b| a.file() + a.rank() == b.file() + b.rank()),
        ],
    }
}

fn attacks_independent(piece: Piece, s: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(
        lines(piece, s)
            .into_iter()
            .map(|l| line_attacks(occupied.0, s, l))
            .fold(0, |a, b| a | b),
    )
}

/// Mask from the other side: empty-board attacks less the board's edges, except the edge lines
/// the piece itself stands on (a rook on a1 keeps a2..a7 and b1..g1, loses a8 and h1).
fn mask_independent(piece: Piece, s: Square) -> Bitboard {
    let empty = attacks_independent(piece, s, Bitboard::EMPTY).0;
    let rank1 = 0xff;
    let rank8 = 0xff << 56;
    let file_a = 0x0101_0101_0101_0101;
    let file_h = file_a << 7;
    let mut edges = 0u64;
    if s.rank() != 0 {
        edges |= rank1;
    }
    if s.rank() != 7 {
        edges |= rank8;
    }
    if s.file() != 0 {
        edges |= file_a;
    }
    if s.file() != 7 {
        edges |= file_h;
    }
    let m = empty & !edges;
    Bitboard(m)
}

#[test]
fn every_subset_of_every_square_matches_line_attacks() {
    let mut checked = 0u64;
    for target in Target::all() {
        let occ = Occupancies::new(target);
        for &(sub, att) in &occ.pairs {
            assert_eq!(
                att,
                attacks_independent(target.piece, target.square, sub),
                "{target} {sub:?}"
            );
            checked += 1;
        }
        // Blockers off the mask change nothing: add every other square as a blocker.
        for &(sub, att) in occ.pairs.iter().step_by(7) {
            let with_edges = Bitboard(sub.0 | !occ.mask.0 & !Bitboard::from(target.square).0);
            assert_eq!(
                attacks_slow(target.piece, target.square, with_edges),
                att,
                "{target}"
            );
        }
    }
    assert_eq!(checked, 102_400 + 5_248);
}

#[test]
fn masks_match_the_independent_formulation() {
    for target in Target::all() {
        let (p, s) = (target.piece, target.square);
        assert_eq!(relevant_mask(p, s), mask_independent(p, s), "{target}");
    }
}

#[test]
fn mask_sizes_and_subset_totals() {
    assert_eq!(relevant_mask(Piece::Rook, sq("e4")).count(), 10);
    assert_eq!(relevant_mask(Piece::Bishop, sq("e4")).count(), 9);
    assert_eq!(relevant_mask(Piece::Rook, sq("a1")).count(), 12);
    let total = |p| {
        Square::all()
            .map(|s| 1u64 << relevant_mask(p, s).count())
            .sum::<u64>()
    };
    assert_eq!(total(Piece::Rook), 102_400);
    assert_eq!(total(Piece::Bishop), 5_248);
    let largest = |p: Piece| {
        Square::all()
            .map(|s| relevant_mask(p, s).count())
            .max()
            .unwrap()
    };
    assert_eq!(largest(Piece::Rook), Piece::Rook.max_bits());
    assert_eq!(largest(Piece::Bishop), Piece::Bishop.max_bits());
}

#[test]
fn rook_a1_has_49_distinct_attack_sets() {
    let occ = Occupancies::new(Target::new(Piece::Rook, sq("a1")));
    assert_eq!(occ.pairs.len(), 4096);
    assert_eq!(occ.distinct_attacks(), 49);
    assert_eq!(occ.lower_bound_bits(), 6);
}

#[test]
fn rook_e4_mask_is_the_drawn_one() {
    let drawn = board(
        "0 0 0 0 0 0 0 0
         0 0 0 0 1 0 0 0
         0 0 0 0 1 0 0 0
         0 0 0 0 1 0 0 0
         0 1 1 1 0 1 1 0
         0 0 0 0 1 0 0 0
         0 0 0 0 1 0 0 0
         0 0 0 0 0 0 0 0",
    );
    assert_eq!(relevant_mask(Piece::Rook, sq("e4")), drawn);
}

/// Seed `002_95a1ad4f4d9036ba.txt`: bishop e4, permutation 339 = 0b101010011, bits placed on
/// the mask's squares from lowest to highest.
#[test]
fn seed_worked_example_bishop_e4_subset_339() {
    let mask = relevant_mask(Piece::Bishop, sq("e4"));
    assert_eq!(
        mask,
        board(
            "8 | 0 0 0 0 0 0 0 0
             7 | 0 1 0 0 0 0 0 0
             6 | 0 0 1 0 0 0 1 0
             5 | 0 0 0 1 0 1 0 0
             4 | 0 0 0 0 0 0 0 0
             3 | 0 0 0 1 0 1 0 0
             2 | 0 0 1 0 0 0 1 0
             1 | 0 0 0 0 0 0 0 0"
        )
    );
    let blockers = mask.subset_number(339);
    assert_eq!(
        blockers,
        board(
            "8 | 0 0 0 0 0 0 0 0
             7 | 0 1 0 0 0 0 0 0
             6 | 0 0 1 0 0 0 0 0
             5 | 0 0 0 1 0 0 0 0
             4 | 0 0 0 0 0 0 0 0
             3 | 0 0 0 0 0 0 0 0
             2 | 0 0 1 0 0 0 1 0
             1 | 0 0 0 0 0 0 0 0"
        )
    );
    assert_eq!(
        attacks_slow(Piece::Bishop, sq("e4"), blockers),
        board(
            "8 | 0 0 0 0 0 0 0 0
             7 | 0 0 0 0 0 0 0 1
             6 | 0 0 0 0 0 0 1 0
             5 | 0 0 0 1 0 1 0 0
             4 | 0 0 0 0 0 0 0 0
             3 | 0 0 0 1 0 1 0 0
             2 | 0 0 1 0 0 0 1 0
             1 | 0 0 0 0 0 0 0 0"
        )
    );
}
