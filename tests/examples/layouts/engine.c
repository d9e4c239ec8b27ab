/* engine.c: an engine with an attack table of its own, which takes the magics, offsets and
   sizes from the export by the names every layout defines: the same file builds against
   --layout fancy, tight or packed (of plain magics) and against --packed FILE. */
#include <stdio.h>
#include <stdint.h>

#define MAGICHUNT_IMPLEMENTATION
#include "magics.h"

static uint64_t table[ATTACK_TABLE_SIZE]; /* rooks from ROOK_TABLE_START, bishops from BISHOP_TABLE_START */

static const int rook_dirs[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

/* The engine's own slow attacks: each ray walked to the first occupied square. */
static uint64_t slow_attacks(int bishop, int square, uint64_t occupied)
{
    const int (*dirs)[2] = bishop ? bishop_dirs : rook_dirs;
    uint64_t attacks = 0;
    int d;
    for (d = 0; d < 4; d++) {
        int file = square % 8 + dirs[d][0], rank = square / 8 + dirs[d][1];
        for (; file >= 0 && file < 8 && rank >= 0 && rank < 8; file += dirs[d][0], rank += dirs[d][1]) {
            attacks |= UINT64_C(1) << (rank * 8 + file);
            if (occupied & (UINT64_C(1) << (rank * 8 + file)))
                break;
        }
    }
    return attacks;
}

static const struct magic_entry *magic(int bishop, int square)
{
    return bishop ? &BISHOP_MAGICS[square] : &ROOK_MAGICS[square];
}

/* Where the attacks of square for these blockers are kept in the engine's table. */
static uint64_t *entry(int bishop, int square, uint64_t occupied)
{
    const struct magic_entry *e = magic(bishop, square);
    uint64_t *piece = table + (bishop ? BISHOP_TABLE_START : ROOK_TABLE_START);
    return &piece[e->offset + (((occupied & e->mask) * e->magic) >> e->shift)];
}

int main(void)
{
    unsigned long n = 0, wrong = 0;
    uint64_t noise = UINT64_C(0x9e3779b97f4a7c15);
    int pass, bishop, square;
    init_attack_tables(); /* the export's own table, for its rook_attacks and bishop_attacks */
    for (pass = 0; pass < 2; pass++) /* fill the engine's table, then check every lookup */
        for (bishop = 0; bishop < 2; bishop++)
            for (square = 0; square < 64; square++) {
                uint64_t mask = magic(bishop, square)->mask, occ = 0;
                do {
                    if (pass == 0) {
                        *entry(bishop, square, occ) = slow_attacks(bishop, square, occ);
                    } else {
                        uint64_t board = occ | (noise & ~mask); /* blockers outside the mask too */
                        uint64_t want = slow_attacks(bishop, square, board);
                        uint64_t theirs = bishop ? bishop_attacks(square, board) : rook_attacks(square, board);
                        wrong += *entry(bishop, square, board) != want || theirs != want;
                        n++;
                    }
                    noise = noise * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
                    occ = (occ - mask) & mask;
                } while (occ);
            }
    printf("%lu lookups, %lu wrong; table of %lu entries\n", n, wrong, (unsigned long)ATTACK_TABLE_SIZE);
    return wrong != 0;
}
