/* The slider lookups the lookup benchmark times, each as a pair of static inline functions
 * NAME_rook(square, occupied) and NAME_bishop(square, occupied) (squares a1 = 0 .. h8 = 63):
 *
 *   ref     the slow ray walk (the reference every other backend is checked against)
 *   fancy   magichunt's export of a store, 2^bits entries per square (fancy.h, prefix fa_)
 *   packed  magichunt's export of a packed table, one shared array of 8-byte entries
 *           (packed.h, prefix pk_)
 *   byte    magichunt's export of a one-byte packed table (indexed.h, prefix by_), when the
 *           build defines HAVE_BYTE
 *   fixed   magichunt's export of a fixed-shift packed table (fixed.h, prefix fx_) looked up
 *           with the shift written into the code (64 - 12 for rooks, 64 - 9 for bishops), as
 *           the engines that ship such tables do; when the build defines HAVE_FIXED
 *   pext    PEXT bitboards: per square 2^popcount(mask) entries indexed by pext(occ, mask);
 *           when the compiler targets BMI2
 *   hq      hyperbola quintessence for files and diagonals, and a 512-byte table for ranks
 *
 * pext and hq are written here from their definitions. Every table is filled by
 * backends_init(), from the reference. */
#ifndef LOOKUP_BENCH_BACKENDS_H
#define LOOKUP_BENCH_BACKENDS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FA_IMPLEMENTATION
#include "fancy.h"
#define PK_IMPLEMENTATION
#include "packed.h"
#ifdef HAVE_BYTE
#define BY_IMPLEMENTATION
#include "indexed.h"
#endif
#ifdef HAVE_FIXED
#define FX_IMPLEMENTATION
#include "fixed.h"
#endif
#ifndef FANCY_BYTES
#define FANCY_BYTES 0
#define PACKED_BYTES 0
#define BYTE_BYTES 0
#define FIXED_BYTES 0
#endif
#ifdef __BMI2__
#include <immintrin.h>
#define HAVE_PEXT 1
#endif

static inline int lsb(uint64_t b) { return __builtin_ctzll(b); }
static inline uint64_t bit(int s) { return (uint64_t)1 << s; }

/* ---- the reference: walk each ray until the first occupied square (included) ---- */

static uint64_t ray_walk(int square, uint64_t occupied, const int dirs[4][2])
{
    uint64_t attacks = 0;
    for (int d = 0; d < 4; d++) {
        int f = square % 8 + dirs[d][0], r = square / 8 + dirs[d][1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            attacks |= bit(r * 8 + f);
            if (occupied & bit(r * 8 + f))
                break;
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return attacks;
}

static const int ROOK_DIRS[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
static const int BISHOP_DIRS[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static uint64_t ref_rook(int sq, uint64_t occ) { return ray_walk(sq, occ, ROOK_DIRS); }
static uint64_t ref_bishop(int sq, uint64_t occ) { return ray_walk(sq, occ, BISHOP_DIRS); }

/* The relevant mask: the empty-board attacks less the edge squares a ray ends on. */
static uint64_t relevant_mask(int sq, const int dirs[4][2])
{
    uint64_t m = 0;
    for (int d = 0; d < 4; d++) {
        int f = sq % 8 + dirs[d][0], r = sq / 8 + dirs[d][1];
        while (f + dirs[d][0] >= 0 && f + dirs[d][0] < 8 && r + dirs[d][1] >= 0 &&
               r + dirs[d][1] < 8) {
            m |= bit(r * 8 + f);
            f += dirs[d][0];
            r += dirs[d][1];
        }
    }
    return m;
}

/* ---- magichunt's exports ---- */

static inline uint64_t fancy_rook(int sq, uint64_t occ) { return fa_rook_attacks(sq, occ); }
static inline uint64_t fancy_bishop(int sq, uint64_t occ) { return fa_bishop_attacks(sq, occ); }
static inline uint64_t packed_rook(int sq, uint64_t occ) { return pk_rook_attacks(sq, occ); }
static inline uint64_t packed_bishop(int sq, uint64_t occ) { return pk_bishop_attacks(sq, occ); }
#ifdef HAVE_BYTE
static inline uint64_t byte_rook(int sq, uint64_t occ) { return by_rook_attacks(sq, occ); }
static inline uint64_t byte_bishop(int sq, uint64_t occ) { return by_bishop_attacks(sq, occ); }
#endif
#ifdef HAVE_FIXED
static inline uint64_t fixed_rook(int sq, uint64_t occ)
{
    const struct fx_magic_entry *e = &FX_ROOK_MAGICS[sq];
    return fx_rook_table[e->offset + (uint32_t)(((occ & e->mask) * e->magic) >> 52)];
}
static inline uint64_t fixed_bishop(int sq, uint64_t occ)
{
    const struct fx_magic_entry *e = &FX_BISHOP_MAGICS[sq];
    return fx_bishop_table[e->offset + (uint32_t)(((occ & e->mask) * e->magic) >> 55)];
}
#endif

/* ---- PEXT: the index is the masked occupancy's bits gathered to the bottom ---- */

#ifdef HAVE_PEXT
#define PEXT_ENTRIES (102400 + 5248)
struct pext_square {
    uint64_t mask;
    uint32_t offset;
};
static struct pext_square PEXT_ROOK[64], PEXT_BISHOP[64];
static uint64_t pext_table[PEXT_ENTRIES];

static inline uint64_t pext_rook(int sq, uint64_t occ)
{
    return pext_table[PEXT_ROOK[sq].offset + _pext_u64(occ, PEXT_ROOK[sq].mask)];
}
static inline uint64_t pext_bishop(int sq, uint64_t occ)
{
    return pext_table[PEXT_BISHOP[sq].offset + _pext_u64(occ, PEXT_BISHOP[sq].mask)];
}

static uint32_t pext_fill(struct pext_square *t, const int dirs[4][2], uint32_t offset)
{
    for (int sq = 0; sq < 64; sq++) {
        uint64_t mask = relevant_mask(sq, dirs), occ = 0;
        t[sq].mask = mask;
        t[sq].offset = offset;
        do {
            pext_table[offset + _pext_u64(occ, mask)] = ray_walk(sq, occ, dirs);
            occ = (occ - mask) & mask;
        } while (occ);
        offset += (uint32_t)1 << __builtin_popcountll(mask);
    }
    return offset;
}
#endif

/* ---- hyperbola quintessence ----
 * On one line through the slider's square s (a file or a diagonal, without s itself) let o
 * be the occupied squares. o - s sets every square from s up to the nearest blocker above
 * it, clears that blocker, and leaves the rest of o as it was; the same on the reversed line
 * does it downward. The two agree beyond the nearest blockers (both are o there) and at s,
 * so their xor is exactly the squares between the two nearest blockers, both included, less
 * s; the line's mask drops the borrow that runs off the line when nothing blocks:
 *
 *     attacks = ((o - s) ^ reverse(reverse(o) - reverse(s))) & line
 *
 * On a file or a diagonal every square lies on a rank of its own, so reversing the order of
 * the ranks (a byte swap) reverses the line. A rank cannot be reversed that way; its attacks
 * come from a table of the slider's file and the rank's six inner squares (the edge squares
 * never change what a rank slider attacks): 8 x 64 bytes. */

struct hq_square {
    uint64_t file, diag, anti; /* the lines through the square, without the square */
};
static struct hq_square HQ[64];
static uint8_t HQ_RANK[8][64];

static inline uint64_t hq_line(uint64_t occ, uint64_t s, uint64_t mask)
{
    uint64_t o = occ & mask;
    uint64_t up = o - s;
    uint64_t down = __builtin_bswap64(__builtin_bswap64(o) - __builtin_bswap64(s));
    return (up ^ down) & mask;
}
static inline uint64_t hq_rook(int sq, uint64_t occ)
{
    int shift = sq & 56;
    uint64_t rank = (uint64_t)HQ_RANK[sq & 7][(occ >> (shift + 1)) & 63] << shift;
    return hq_line(occ, bit(sq), HQ[sq].file) | rank;
}
static inline uint64_t hq_bishop(int sq, uint64_t occ)
{
    return hq_line(occ, bit(sq), HQ[sq].diag) | hq_line(occ, bit(sq), HQ[sq].anti);
}

static void hq_init(void)
{
    static const int file_dirs[4][2] = {{0, 1}, {0, -1}, {0, 1}, {0, -1}};
    static const int diag_dirs[4][2] = {{1, 1}, {-1, -1}, {1, 1}, {-1, -1}};
    static const int anti_dirs[4][2] = {{-1, 1}, {1, -1}, {-1, 1}, {1, -1}};
    for (int sq = 0; sq < 64; sq++) {
        HQ[sq].file = ray_walk(sq, 0, file_dirs);
        HQ[sq].diag = ray_walk(sq, 0, diag_dirs);
        HQ[sq].anti = ray_walk(sq, 0, anti_dirs);
    }
    for (int f = 0; f < 8; f++)
        for (int inner = 0; inner < 64; inner++)
            HQ_RANK[f][inner] = (uint8_t)ref_rook(f, (uint64_t)inner << 1);
}

/* ---- the list, and the check of every backend against the reference ---- */

#define BACKENDS_MAX 8
struct backend {
    const char *name;
    uint64_t (*rook)(int, uint64_t);
    uint64_t (*bishop)(int, uint64_t);
    size_t bytes; /* the data its lookups read: tables, magics, masks, offsets (the exports'
                     as nm -S counts their objects, measured by lookup-bench.sh) */
};

static struct backend BACKENDS[BACKENDS_MAX];
static int n_backends;

static void add_backend(const char *name, uint64_t (*r)(int, uint64_t),
                        uint64_t (*b)(int, uint64_t), size_t bytes)
{
    BACKENDS[n_backends++] = (struct backend){name, r, b, bytes};
}

/* Fills every table; adds ref first, then the timed backends, fancy (the yardstick) first. */
static void backends_init(void)
{
    fa_init_attack_tables();
    pk_init_attack_tables();
    hq_init();
    add_backend("ref", ref_rook, ref_bishop, 0);
    add_backend("fancy", fancy_rook, fancy_bishop, FANCY_BYTES);
    add_backend("packed", packed_rook, packed_bishop, PACKED_BYTES);
#ifdef HAVE_BYTE
    by_init_attack_tables();
    add_backend("byte", byte_rook, byte_bishop, BYTE_BYTES);
#endif
#ifdef HAVE_FIXED
    fx_init_attack_tables();
    add_backend("fixed", fixed_rook, fixed_bishop, FIXED_BYTES);
#endif
#ifdef HAVE_PEXT
    uint32_t end = pext_fill(PEXT_ROOK, ROOK_DIRS, 0);
    if (pext_fill(PEXT_BISHOP, BISHOP_DIRS, end) != PEXT_ENTRIES) {
        fprintf(stderr, "lookup-bench: PEXT tables of the wrong size\n");
        exit(2);
    }
    add_backend("pext", pext_rook, pext_bishop,
                sizeof pext_table + sizeof PEXT_ROOK + sizeof PEXT_BISHOP);
#endif
    add_backend("hq", hq_rook, hq_bishop, sizeof HQ + sizeof HQ_RANK);
}

/* Every blocker subset of every square's mask, with random bits outside it: every backend
 * against the reference. Returns the number of mismatches (printed). */
static long backends_check(void)
{
    long bad = 0;
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (int piece = 0; piece < 2; piece++)
        for (int sq = 0; sq < 64; sq++) {
            const int(*dirs)[2] = piece ? BISHOP_DIRS : ROOK_DIRS;
            uint64_t mask = relevant_mask(sq, dirs), sub = 0;
            do {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                uint64_t occ = sub | (s & ~mask);
                uint64_t want = ray_walk(sq, occ, dirs);
                for (int k = 1; k < n_backends; k++) {
                    uint64_t got = piece ? BACKENDS[k].bishop(sq, occ) : BACKENDS[k].rook(sq, occ);
                    if (got != want && bad++ < 10)
                        fprintf(stderr, "lookup-bench: %s %s %d occ %016llx: %016llx, not %016llx\n",
                                BACKENDS[k].name, piece ? "bishop" : "rook", sq,
                                (unsigned long long)occ, (unsigned long long)got,
                                (unsigned long long)want);
                }
                sub = (sub - mask) & mask;
            } while (sub);
        }
    return bad;
}

#endif
