//! An engine's `src/main.rs`, beside `src/magics.rs` from
//! `magichunt export --format rust --with-lookup --out src/magics.rs`.

mod magics;

fn main() {
    magics::init_attack_tables(); // once at startup (the first lookup would do it too)
    let (d4, d5) = (27, 35);
    let occupied = 1u64 << d5; // a pawn on d5
    let queen = magics::rook_attacks(d4, occupied) | magics::bishop_attacks(d4, occupied);
    println!("queen d4, pawn d5: {} squares", queen.count_ones());
    assert_eq!(queen.count_ones(), 24);
}
