//! The C back end: a header that compiles with `cc -std=c99 -Wall -Wextra -Werror`.

use std::fmt::Write as _;

use super::{comment_block, hex, slot_note, Layout, Options, Slot};
use crate::piece::Piece;

/// The ray walk, the table fill and the lookups of `--with-lookup`. Every function is
/// `static inline`, so a translation unit that does not call one gets no warning.
const LOOKUP: &str = r"
static uint64_t magichunt_rook_table[ROOK_TABLE_SIZE];
static uint64_t magichunt_bishop_table[BISHOP_TABLE_SIZE];

/* Index into a piece's table for the occupied squares occ. */
static inline uint32_t magichunt_slot(const struct magic_entry *e, uint64_t occ)
{
    return e->offset + (uint32_t)(((occ & e->mask) * e->magic) >> e->shift);
}

/* Squares a slider on square attacks, walking each ray to the first occupied square
   (included). Slow: used only to fill the tables. */
static inline uint64_t magichunt_ray_attacks(int square, uint64_t occupied, const int dirs[4][2])
{
    uint64_t attacks = 0;
    int d;
    for (d = 0; d < 4; d++) {
        int file = square % 8 + dirs[d][0];
        int rank = square / 8 + dirs[d][1];
        while (file >= 0 && file < 8 && rank >= 0 && rank < 8) {
            uint64_t bit = UINT64_C(1) << (rank * 8 + file);
            attacks |= bit;
            if (occupied & bit)
                break;
            file += dirs[d][0];
            rank += dirs[d][1];
        }
    }
    return attacks;
}

/* Fills one piece's table: every blocker subset of every square's mask. */
static inline void magichunt_fill(const struct magic_entry magics[64], uint64_t *table,
                                  const int dirs[4][2])
{
    int square;
    for (square = 0; square < 64; square++) {
        const struct magic_entry *e = &magics[square];
        uint64_t occ = 0;
        do {
            table[magichunt_slot(e, occ)] = magichunt_ray_attacks(square, occ, dirs);
            occ = (occ - e->mask) & e->mask;
        } while (occ);
    }
}

/* Fills the attack tables by the slow ray walk. Call it once at startup. */
static inline void init_attack_tables(void)
{
    static const int rook_dirs[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
    static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    magichunt_fill(ROOK_MAGICS, magichunt_rook_table, rook_dirs);
    magichunt_fill(BISHOP_MAGICS, magichunt_bishop_table, bishop_dirs);
}

/* Rook attacks from square (0 = a1 .. 63 = h8) given the occupied squares. */
static inline uint64_t rook_attacks(int square, uint64_t occupied)
{
    return magichunt_rook_table[magichunt_slot(&ROOK_MAGICS[square], occupied)];
}

/* Bishop attacks from square (0 = a1 .. 63 = h8) given the occupied squares. */
static inline uint64_t bishop_attacks(int square, uint64_t occupied)
{
    return magichunt_bishop_table[magichunt_slot(&BISHOP_MAGICS[square], occupied)];
}
";

/// Renders the C header.
pub(super) fn render(layout: &Layout, header: &[String], options: Options) -> String {
    let mut out = String::from("/*\n");
    comment_block(&mut out, " * ", header);
    out.push_str(
        r" */

#ifndef MAGICHUNT_MAGICS_H
#define MAGICHUNT_MAGICS_H

#include <stdint.h>

/* One square's magic: the slot of occupancy occ in its piece's table is
   offset + (((occ & mask) * magic) >> shift). */
struct magic_entry {
    uint64_t mask;
    uint64_t magic;
    uint32_t shift;
    uint32_t offset;
};
",
    );
    for piece in Piece::ALL {
        let (upper, name) = match piece {
            Piece::Rook => ("ROOK", "Rook"),
            Piece::Bishop => ("BISHOP", "Bishop"),
        };
        let _ = writeln!(
            out,
            "\n/* Entries in the {name} attack table. */\n#define {upper}_TABLE_SIZE {}",
            layout.size(piece)
        );
        let _ = writeln!(
            out,
            "\n/* {name} magics, squares a1 (0) to h8 (63). */\nstatic const struct magic_entry {upper}_MAGICS[64] = {{"
        );
        for s in layout.slots(piece) {
            out.push_str(&entry_line(s));
        }
        out.push_str("};\n");
    }
    if options.with_lookup {
        out.push_str(LOOKUP);
    }
    out.push_str("\n#endif /* MAGICHUNT_MAGICS_H */\n");
    out
}

fn entry_line(s: &Slot) -> String {
    format!(
        "    {{UINT64_C({}), UINT64_C({}), {}, {}}}, /* {} */\n",
        hex(s.mask),
        hex(s.entry.magic),
        s.shift,
        s.offset,
        slot_note(s)
    )
}
