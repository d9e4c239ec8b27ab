//! An engine's `src/main.rs` with an attack table of its own, beside `src/magics.rs` from
//! `magichunt export --format rust --with-lookup --layout L --out src/magics.rs`: it takes the
//! magics and sizes by the names every layout defines, so it builds against any layout (and
//! either formula: `slot` computes the index).

mod magics;

use magics::{MagicEntry, ATTACK_TABLE_SIZE, BISHOP_MAGICS, BISHOP_TABLE_START};
use magics::{ROOK_MAGICS, ROOK_TABLE_START};

/// The engine's own slow attacks: each ray walked to the first occupied square.
fn slow_attacks(bishop: bool, square: usize, occupied: u64) -> u64 {
    let dirs = if bishop {
        [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    } else {
        [(0, 1), (0, -1), (1, 0), (-1, 0)]
    };
    let mut attacks = 0;
    for (df, dr) in dirs {
        let (mut file, mut rank) = (square as i32 % 8 + df, square as i32 / 8 + dr);
        while (0..8).contains(&file) && (0..8).contains(&rank) {
            attacks |= 1u64 << (rank * 8 + file);
            if occupied & (1u64 << (rank * 8 + file)) != 0 {
                break;
            }
            (file, rank) = (file + df, rank + dr);
        }
    }
    attacks
}

fn magic(bishop: bool, square: usize) -> &'static MagicEntry {
    if bishop {
        &BISHOP_MAGICS[square]
    } else {
        &ROOK_MAGICS[square]
    }
}

/// Where the attacks of `square` for `occupied` are kept in the engine's table.
fn index(bishop: bool, square: usize, occupied: u64) -> usize {
    let start = if bishop {
        BISHOP_TABLE_START
    } else {
        ROOK_TABLE_START
    };
    start + magic(bishop, square).slot(occupied)
}

fn main() {
    magics::init_attack_tables(); // the export's own table, for its lookups
    let mut table = vec![0u64; ATTACK_TABLE_SIZE];
    let (mut n, mut noise) = (0u64, 0x9e37_79b9_7f4a_7c15u64);
    for pass in 0..2 {
        // Fill the engine's table, then check every lookup.
        for bishop in [false, true] {
            for square in 0..64 {
                let mask = magic(bishop, square).mask;
                let mut occ = 0u64;
                loop {
                    if pass == 0 {
                        table[index(bishop, square, occ)] = slow_attacks(bishop, square, occ);
                    } else {
                        let board = occ | (noise & !mask); // blockers outside the mask too
                        let want = slow_attacks(bishop, square, board);
                        let theirs = if bishop {
                            magics::bishop_attacks(square, board)
                        } else {
                            magics::rook_attacks(square, board)
                        };
                        assert_eq!((table[index(bishop, square, board)], theirs), (want, want));
                        n += 1;
                    }
                    noise = noise.wrapping_mul(6364136223846793005).wrapping_add(1);
                    occ = occ.wrapping_sub(mask) & mask;
                    if occ == 0 {
                        break;
                    }
                }
            }
        }
    }
    println!("{n} lookups, 0 wrong; table of {ATTACK_TABLE_SIZE} entries");
}
