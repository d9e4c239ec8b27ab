/* A chess position for the lookup benchmark's perft: bitboards by piece type and colour, a
 * board of piece types, FEN in, copy-make moves. No slider lookup happens here (movegen.h,
 * included once per backend, asks for them all). */
#ifndef LOOKUP_BENCH_BOARD_H
#define LOOKUP_BENCH_BOARD_H

#include <stdint.h>
#include <string.h>

#include "backends.h"

enum { WHITE, BLACK };
enum { PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, NONE = -1 };
enum { MOVE_EP = 1, MOVE_CASTLE = 2 };

struct position {
    uint64_t type[6], colour[2];
    int8_t on[64]; /* piece type on each square, or NONE */
    int side, castle, ep; /* castle: 1 K, 2 Q, 4 k, 8 q; ep: the square passed, or -1 */
};

/* from | to << 6 | promotion piece << 12 | flags << 15 */
typedef uint32_t move;
#define MOVE(from, to, promo, flags) \
    ((move)(from) | (move)(to) << 6 | (move)(promo) << 12 | (move)(flags) << 15)

/* Tables without sliding lookups: leapers, pawn captures, the empty-board slider rays (for
 * pins), and the squares between and through two squares on one line. */
static uint64_t KNIGHT_AT[64], KING_AT[64], PAWN_AT[2][64], ROOK_EMPTY[64], BISHOP_EMPTY[64];
static uint64_t BETWEEN[64][64], LINE[64][64];
static int CASTLE_KEEP[64];

static uint64_t leaper(int sq, const int steps[8][2])
{
    uint64_t b = 0;
    for (int i = 0; i < 8; i++) {
        int f = sq % 8 + steps[i][0], r = sq / 8 + steps[i][1];
        if (f >= 0 && f < 8 && r >= 0 && r < 8)
            b |= bit(r * 8 + f);
    }
    return b;
}

static void board_init(void)
{
    static const int knight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                     {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int king[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1},
                                   {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    static const int wpawn[8][2] = {{1, 1}, {-1, 1}, {1, 1}, {-1, 1},
                                    {1, 1}, {-1, 1}, {1, 1}, {-1, 1}};
    static const int bpawn[8][2] = {{1, -1}, {-1, -1}, {1, -1}, {-1, -1},
                                    {1, -1}, {-1, -1}, {1, -1}, {-1, -1}};
    for (int s = 0; s < 64; s++) {
        KNIGHT_AT[s] = leaper(s, knight);
        KING_AT[s] = leaper(s, king);
        PAWN_AT[WHITE][s] = leaper(s, wpawn);
        PAWN_AT[BLACK][s] = leaper(s, bpawn);
        ROOK_EMPTY[s] = ref_rook(s, 0);
        BISHOP_EMPTY[s] = ref_bishop(s, 0);
        CASTLE_KEEP[s] = 15;
    }
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++) {
            BETWEEN[a][b] = LINE[a][b] = 0;
            if (a == b)
                continue;
            uint64_t (*ray)(int, uint64_t) = ROOK_EMPTY[a] & bit(b)     ? ref_rook
                                             : BISHOP_EMPTY[a] & bit(b) ? ref_bishop
                                                                        : NULL;
            if (!ray)
                continue;
            BETWEEN[a][b] = ray(a, bit(b)) & ray(b, bit(a));
            LINE[a][b] = (ray(a, 0) & ray(b, 0)) | bit(a) | bit(b);
        }
    CASTLE_KEEP[4] = 15 & ~3, CASTLE_KEEP[7] = 15 & ~1, CASTLE_KEEP[0] = 15 & ~2;
    CASTLE_KEEP[60] = 15 & ~12, CASTLE_KEEP[63] = 15 & ~4, CASTLE_KEEP[56] = 15 & ~8;
}

static void put(struct position *p, int colour, int type, int sq)
{
    p->type[type] |= bit(sq);
    p->colour[colour] |= bit(sq);
    p->on[sq] = (int8_t)type;
}

static void take(struct position *p, int colour, int type, int sq)
{
    p->type[type] &= ~bit(sq);
    p->colour[colour] &= ~bit(sq);
    p->on[sq] = NONE;
}

/* Reads the first four fields of a FEN; returns 0 on success. */
static int from_fen(struct position *p, const char *fen)
{
    static const char pieces[] = "pnbrqk";
    memset(p, 0, sizeof *p);
    memset(p->on, NONE, sizeof p->on);
    int r = 7, f = 0;
    for (; *fen && *fen != ' '; fen++) {
        if (*fen == '/')
            r--, f = 0;
        else if (*fen >= '1' && *fen <= '8')
            f += *fen - '0';
        else {
            const char *k = strchr(pieces, *fen | 32);
            if (!k || f > 7 || r < 0)
                return 1;
            put(p, *fen >= 'a' ? BLACK : WHITE, (int)(k - pieces), r * 8 + f++);
        }
    }
    if (*fen++ != ' ')
        return 1;
    p->side = *fen++ == 'b' ? BLACK : WHITE;
    if (*fen++ != ' ')
        return 1;
    for (; *fen && *fen != ' '; fen++)
        p->castle |= *fen == 'K' ? 1 : *fen == 'Q' ? 2 : *fen == 'k' ? 4 : *fen == 'q' ? 8 : 0;
    if (*fen++ != ' ')
        return 1;
    p->ep = *fen == '-' ? -1 : (fen[1] - '1') * 8 + (fen[0] - 'a');
    return 0;
}

/* Plays m (legal) on p. */
static void make(struct position *p, move m)
{
    int from = m & 63, to = m >> 6 & 63, promo = m >> 12 & 7, flags = m >> 15;
    int us = p->side, them = us ^ 1, type = p->on[from];
    if (p->on[to] != NONE)
        take(p, them, p->on[to], to);
    take(p, us, type, from);
    put(p, us, promo ? promo : type, to);
    if (flags & MOVE_EP)
        take(p, them, PAWN, to ^ 8);
    if (flags & MOVE_CASTLE) {
        int rook_from = to > from ? to + 1 : to - 2, rook_to = to > from ? to - 1 : to + 1;
        take(p, us, ROOK, rook_from);
        put(p, us, ROOK, rook_to);
    }
    p->ep = type == PAWN && (to ^ from) == 16 ? (from + to) / 2 : -1;
    p->castle &= CASTLE_KEEP[from] & CASTLE_KEEP[to];
    p->side = them;
}

/* The standard test positions (the start position, Kiwipete, and positions 3 to 6 of the
 * Chess Programming Wiki's perft results page) with their known node counts, depths 1 to 6
 * (0 where not listed). */
struct test_position {
    const char *name, *fen;
    uint64_t nodes[7];
};

static const struct test_position POSITIONS[] = {
    {"start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     {1, 20, 400, 8902, 197281, 4865609, 119060324}},
    {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     {1, 48, 2039, 97862, 4085603, 193690690, 0}},
    {"pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
     {1, 14, 191, 2812, 43238, 674624, 11030083}},
    {"pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
     {1, 6, 264, 9467, 422333, 15833292, 706045033}},
    {"pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
     {1, 44, 1486, 62379, 2103487, 89941194, 0}},
    {"pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
     {1, 46, 2079, 89890, 3894594, 164075551, 0}},
};
#define N_POSITIONS (int)(sizeof POSITIONS / sizeof POSITIONS[0])

#endif
