/*
 * yardstick.c - magichunt's own plain magic finder, the speed reference of scripts/bench.sh.
 *
 * This is the search a careful programmer writes without tuning anything, so that magichunt's
 * speed can be stated as a ratio against it, measured on the same machine in the same run.
 * It is single-threaded and deliberately plain:
 *
 *   board      squares 0..63 in LERF order (a1 = 0, b1 = 1, ..., h8 = 63);
 *   mask       the empty-board attack set minus the board edges the piece does not stand on;
 *   index      ((occ & mask) * magic) >> (64 - bits), occ running over every subset of mask;
 *   candidate  the AND of three draws of a seeded xorshift64* generator (about 8 bits set);
 *   filter     a candidate is only tested if the top byte of mask * magic has at least
 *              FILTER_MIN (6 unless given) bits set: the traditional cheap pre-filter;
 *   test       every subset, in carry-rippler (ascending) order, is put in a slot table; two
 *              subsets may share a slot when their attack sets are equal, and the test stops
 *              at the first slot asked to hold two different attack sets;
 *   table      a slot counts as used by the current candidate when it carries that
 *              candidate's number, so the table is never cleared between candidates
 *              (except once, when the 32-bit number wraps).
 *
 * The attack sets come from a slow reference (walking the rays square by square); a magic
 * found is verified again from scratch, with a fresh table and freshly walked attacks.
 *
 * Command line (the interface of the yardstick magichunt's figures were first measured
 * against, which scripts/bench.sh parses):
 *
 *   baseline <rook|bishop> <square 0..63> <bits> <max_candidates> <seed> [filter_min]
 *   baseline all <seed> [max_candidates_per_square]
 *
 * Exit status: 0 found (all found), 1 not found, 2 usage error, 3 a found magic failed the
 * independent verification (a bug).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t bb; /* a bitboard: bit n is square n */

#define DEFAULT_FILTER_MIN 6
#define DEFAULT_ALL_LIMIT 100000000ULL

/* ------------------------------------------------------------------ bits and chance */

static int count_bits(bb x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
#endif
}

/* xorshift64* (Vigna): one word of state, never zero. */
static bb rand_state;

static void rand_seed(bb seed)
{
    /* Scramble the seed (murmur3's finaliser) so that 0, 1, 2, ... start far apart. */
    bb x = seed + 0x2545F4914F6CDD1DULL;
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    rand_state = x ? x : 0x9E3779B97F4A7C15ULL;
}

static bb rand_next(void)
{
    rand_state ^= rand_state >> 12;
    rand_state ^= rand_state << 25;
    rand_state ^= rand_state >> 27;
    return rand_state * 0x2545F4914F6CDD1DULL;
}

/* A sparse candidate: each bit is set with probability 1/8. */
static bb rand_sparse(void)
{
    bb a = rand_next();
    bb b = rand_next();
    return a & b & rand_next();
}

/* ------------------------------------------------------------------ slow reference */

enum piece { ROOK, BISHOP };

static const int STEP[2][4][2] = {
    /* (file, rank) steps */
    { { 0, 1 }, { 0, -1 }, { 1, 0 }, { -1, 0 } },   /* rook: along files and ranks */
    { { 1, 1 }, { -1, 1 }, { 1, -1 }, { -1, -1 } }, /* bishop: along diagonals */
};

/* Squares attacked from sq when the squares in blockers are occupied (a blocker is attacked
 * and stops the ray). */
static bb reference_attacks(enum piece p, int sq, bb blockers)
{
    bb seen = 0;
    for (int ray = 0; ray < 4; ray++) {
        int file = sq % 8, rank = sq / 8;
        for (;;) {
            file += STEP[p][ray][0];
            rank += STEP[p][ray][1];
            if (file < 0 || file > 7 || rank < 0 || rank > 7)
                break;
            bb here = (bb)1 << (rank * 8 + file);
            seen |= here;
            if (blockers & here)
                break;
        }
    }
    return seen;
}

#define RANK_1 0x00000000000000FFULL
#define RANK_8 0xFF00000000000000ULL
#define FILE_A 0x0101010101010101ULL
#define FILE_H 0x8080808080808080ULL

/* The relevant occupancy mask: a square on the edge the ray runs into cannot change the
 * attack set (nothing lies behind it), so edges are dropped, except the rank and file the
 * piece itself stands on (a rook on a1 still slides along rank 1 and file a). */
static bb relevant_mask(enum piece p, int sq)
{
    bb own_rank = RANK_1 << (8 * (sq / 8));
    bb own_file = FILE_A << (sq % 8);
    bb edges = ((RANK_1 | RANK_8) & ~own_rank) | ((FILE_A | FILE_H) & ~own_file);
    return reference_attacks(p, sq, 0) & ~edges;
}

/* ------------------------------------------------------------------ one square's search */

struct counters {
    bb drawn;  /* candidates drawn from the generator */
    bb tested; /* candidates that passed the filter and went through the slot check */
    bb checks; /* subsets placed in the table (one multiply, shift and slot look-up each) */
};

struct square_search {
    enum piece piece;
    int square, bits, filter_min;
    bb mask;
    size_t subsets;     /* 2^popcount(mask) */
    bb *blockers;       /* every subset of mask, carry-rippler order ... */
    bb *attacks;        /* ... and its attack set from the slow reference */
    bb *slot_attacks;   /* 2^bits: the attack set a slot holds ... */
    uint32_t *slot_user; /* ... valid only if the slot carries the current candidate number */
    uint32_t candidate; /* number of the candidate being tested */
};

static void *alloc_zeroed(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (p == NULL) {
        fputs("yardstick: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static void search_setup(struct square_search *s, enum piece p, int sq, int bits, int filter_min)
{
    s->piece = p;
    s->square = sq;
    s->bits = bits;
    s->filter_min = filter_min;
    s->mask = relevant_mask(p, sq);
    s->subsets = (size_t)1 << count_bits(s->mask);
    s->blockers = alloc_zeroed(s->subsets, sizeof *s->blockers);
    s->attacks = alloc_zeroed(s->subsets, sizeof *s->attacks);
    bb subset = 0;
    for (size_t i = 0; i < s->subsets; i++) {
        s->blockers[i] = subset;
        s->attacks[i] = reference_attacks(p, sq, subset);
        subset = (subset - s->mask) & s->mask; /* next subset of mask */
    }
    s->slot_attacks = alloc_zeroed((size_t)1 << bits, sizeof *s->slot_attacks);
    s->slot_user = alloc_zeroed((size_t)1 << bits, sizeof *s->slot_user);
    s->candidate = 0;
}

static void search_teardown(struct square_search *s)
{
    free(s->blockers);
    free(s->attacks);
    free(s->slot_attacks);
    free(s->slot_user);
}

/* Puts every subset in the slot table under magic; 1 if no slot got two different attack
 * sets. */
static int slots_hold(struct square_search *s, bb magic, struct counters *c)
{
    s->candidate++;
    if (s->candidate == 0) { /* the numbering wrapped: forget every old user once */
        memset(s->slot_user, 0, ((size_t)1 << s->bits) * sizeof *s->slot_user);
        s->candidate = 1;
    }
    const uint32_t me = s->candidate;
    const int shift = 64 - s->bits;
    for (size_t i = 0; i < s->subsets; i++) {
        size_t slot = (size_t)((s->blockers[i] * magic) >> shift);
        if (s->slot_user[slot] != me) {
            s->slot_user[slot] = me;
            s->slot_attacks[slot] = s->attacks[i];
        } else if (s->slot_attacks[slot] != s->attacks[i]) {
            c->checks += i + 1;
            return 0;
        }
    }
    c->checks += s->subsets;
    return 1;
}

/* Draws up to limit candidates; 1 and *found set at the first magic. */
static int search_square(struct square_search *s, bb limit, struct counters *c, bb *found)
{
    for (bb n = 0; n < limit; n++) {
        bb magic = rand_sparse();
        c->drawn++;
        if (count_bits((s->mask * magic) >> 56) < s->filter_min)
            continue;
        c->tested++;
        if (slots_hold(s, magic, c)) {
            *found = magic;
            return 1;
        }
    }
    return 0;
}

/* Independent second opinion on a magic: a fresh table, attack sets walked again. */
static int magic_is_valid(enum piece p, int sq, int bits, bb magic)
{
    bb mask = relevant_mask(p, sq);
    size_t slots = (size_t)1 << bits;
    bb *held = alloc_zeroed(slots, sizeof *held);
    unsigned char *taken = alloc_zeroed(slots, 1);
    int valid = 1;
    bb subset = 0;
    do {
        bb att = reference_attacks(p, sq, subset);
        size_t slot = (size_t)(((subset & mask) * magic) >> (64 - bits));
        if (!taken[slot]) {
            taken[slot] = 1;
            held[slot] = att;
        } else if (held[slot] != att) {
            valid = 0;
            break;
        }
        subset = (subset - mask) & mask;
    } while (subset != 0);
    free(held);
    free(taken);
    return valid;
}

/* ------------------------------------------------------------------ clocks and output */

static double seconds_on(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double wall_now(void) { return seconds_on(CLOCK_MONOTONIC); }
static double cpu_now(void) { return seconds_on(CLOCK_PROCESS_CPUTIME_ID); }

static const char *piece_name(enum piece p) { return p == ROOK ? "rook" : "bishop"; }

static void square_name(int sq, char name[3])
{
    name[0] = (char)('a' + sq % 8);
    name[1] = (char)('1' + sq / 8);
    name[2] = '\0';
}

static double per_second(bb count, double seconds) { return seconds > 0 ? (double)count / seconds : 0.0; }

/* ------------------------------------------------------------------ command line */

static int usage(void)
{
    fputs("usage: baseline <rook|bishop> <square 0..63> <bits> <max_candidates> <seed> [filter_min]\n"
          "       baseline all <seed> [max_candidates_per_square]\n",
          stderr);
    return 2;
}

/* A decimal (or 0x hexadecimal) unsigned number and nothing else. */
static int read_number(const char *text, bb *value)
{
    char *end;
    if (*text < '0' || *text > '9')
        return 0;
    *value = strtoull(text, &end, 0);
    return *end == '\0';
}

/* baseline <rook|bishop> <square> <bits> <max_candidates> <seed> [filter_min] */
static int one_square(int argc, char **argv)
{
    enum piece p;
    if (strcmp(argv[1], "rook") == 0)
        p = ROOK;
    else if (strcmp(argv[1], "bishop") == 0)
        p = BISHOP;
    else
        return usage();
    bb sq, bits, limit, seed, filter_min = DEFAULT_FILTER_MIN;
    if (!read_number(argv[2], &sq) || sq > 63)
        return usage();
    if (!read_number(argv[3], &bits) || bits < 1 || bits > 24)
        return usage();
    if (!read_number(argv[4], &limit) || !read_number(argv[5], &seed))
        return usage();
    if (argc == 7 && (!read_number(argv[6], &filter_min) || filter_min > 8))
        return usage();

    struct square_search s;
    struct counters c = { 0, 0, 0 };
    bb magic = 0;
    char name[3];
    square_name((int)sq, name);
    rand_seed(seed);
    search_setup(&s, p, (int)sq, (int)bits, (int)filter_min);

    double wall0 = wall_now(), cpu0 = cpu_now();
    int found = search_square(&s, limit, &c, &magic);
    double wall = wall_now() - wall0, cpu = cpu_now() - cpu0;

    printf("piece %s square %s (%d) mask 0x%016llx popcount %d bits %d seed %llu filter_min %d\n",
           piece_name(p), name, (int)sq, (unsigned long long)s.mask, count_bits(s.mask), (int)bits,
           (unsigned long long)seed, (int)filter_min);
    printf("candidates drawn %llu\n", (unsigned long long)c.drawn);
    printf("candidates tested %llu\n", (unsigned long long)c.tested);
    printf("subset checks %llu\n", (unsigned long long)c.checks);
    printf("checks per tested candidate %.3f\n", c.tested ? (double)c.checks / (double)c.tested : 0.0);
    printf("elapsed seconds %.6f\n", wall);
    printf("cpu seconds %.6f\n", cpu);
    /* Rates per CPU second of this process, so that other jobs on the machine matter less. */
    printf("drawn per second %.0f\n", per_second(c.drawn, cpu));
    printf("tested per second %.0f\n", per_second(c.tested, cpu));
    printf("checks per second %.0f\n", per_second(c.checks, cpu));
    search_teardown(&s);
    if (!found) {
        printf("magic none\n");
        return 1;
    }
    int valid = magic_is_valid(p, (int)sq, (int)bits, magic);
    printf("magic 0x%016llx verified %s\n", (unsigned long long)magic, valid ? "ok" : "FAILED");
    return valid ? 0 : 3;
}

/* baseline all <seed> [max_candidates_per_square]: all 128 targets at popcount bits, one
 * generator stream for the whole run. */
static int all_squares(int argc, char **argv)
{
    bb seed, limit = DEFAULT_ALL_LIMIT;
    if (!read_number(argv[2], &seed) || (argc == 4 && !read_number(argv[3], &limit)))
        return usage();
    rand_seed(seed);
    struct counters sum = { 0, 0, 0 };
    int failures = 0;
    double wall0 = wall_now(), cpu0 = cpu_now();
    for (int pi = 0; pi < 2; pi++) {
        enum piece p = pi == 0 ? ROOK : BISHOP;
        for (int sq = 0; sq < 64; sq++) {
            int bits = count_bits(relevant_mask(p, sq));
            struct square_search s;
            struct counters c = { 0, 0, 0 };
            bb magic = 0;
            char name[3];
            square_name(sq, name);
            search_setup(&s, p, sq, bits, DEFAULT_FILTER_MIN);
            int found = search_square(&s, limit, &c, &magic);
            int valid = found && magic_is_valid(p, sq, bits, magic);
            search_teardown(&s);
            failures += !valid;
            printf("%s %s bits %d magic 0x%016llx drawn %llu tested %llu checks %llu %s\n", piece_name(p),
                   name, bits, (unsigned long long)magic, (unsigned long long)c.drawn,
                   (unsigned long long)c.tested, (unsigned long long)c.checks,
                   !found ? "NOT-FOUND" : valid ? "ok" : "VERIFY-FAILED");
            sum.drawn += c.drawn;
            sum.tested += c.tested;
            sum.checks += c.checks;
        }
    }
    double wall = wall_now() - wall0, cpu = cpu_now() - cpu0;
    /* scripts/bench.sh reads the number two fields after "elapsed" on this last line. */
    printf("total squares 128 failures %d drawn %llu tested %llu checks %llu elapsed seconds %.6f "
           "cpu seconds %.6f\n",
           failures, (unsigned long long)sum.drawn, (unsigned long long)sum.tested,
           (unsigned long long)sum.checks, wall, cpu);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "all") == 0)
        return all_squares(argc, argv);
    if (argc == 6 || argc == 7)
        return one_square(argc, argv);
    return usage();
}
