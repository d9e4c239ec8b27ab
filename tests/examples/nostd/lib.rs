//! An engine's `src/lib.rs` built without std, beside `src/magics.rs` from
//! `magichunt export --format rust --with-lookup --out src/magics.rs` (any layout; with
//! `--packed results/packed-indexed.json`, 88 KiB of tables): the tables are constants, so the
//! first lookup answers, with no init call and no allocator.
#![no_std]

pub mod magics;

/// The squares a queen on `square` (0 = a1 .. 63 = h8) attacks given the `occupied` squares.
pub fn queen_attacks(square: usize, occupied: u64) -> u64 {
    magics::rook_attacks(square, occupied) | magics::bishop_attacks(square, occupied)
}
