/* An independent check of `exhaust --order low`, written from the definition in
 * src/exhaust/mod.rs's documentation and docs/speed.md ("Low bits first"), not from its code:
 * its own geometry (masks, carry-rippler subsets, attacks ray by ray), one value at a time,
 * one subset at a time, where magichunt tests every value of a level at once with rotated bit
 * sets; attack sets compared as bitboards.
 *
 * The mask squares s_0 > s_1 > ... (highest first) cut the period's bits into levels: level i
 * holds the bits of m from 64 - s_(i-1) (0 for the first) up to 64 - s_i, and its subsets are
 * the non-empty subsets whose lowest square is s_i, whose indices depend on those bits and the
 * ones below only. The period is cut into 2^T tasks by its LOW T bits (task t: m mod 2^T = t);
 * in a task a level's free bits are its bits at or above T. The walk enters level 0, and a
 * level entered tries every value of its free bits (one node each: the node count is the
 * number of values tried, over every level entered); a value whose subsets all find an empty
 * slot or one holding their attack set (the table holds the empty subset at slot 0 and the
 * subsets of the levels above, at their values) enters the next level with them placed, and
 * at the last level is a magic. So the node count of a task is exhaust's to the node, and the
 * tasks of a block add up to the block's nodes in the store's residue.
 *
 *   cc -O3 -march=native -o lowfirst-check scripts/research/lowfirst-check.c
 *   ./lowfirst-check rook e7 8 18             # magics and nodes of the period, 2^18 tasks
 *   ./lowfirst-check rook e7 8 18 0 4096      # tasks 0 to 4095 only
 *   ./lowfirst-check rook e7 8 18 - < list    # the tasks listed on stdin (check-store.py)
 *   ./lowfirst-check --list bishop d8 5 12    # also one line per magic found, "magic 0x..."
 *   ./lowfirst-check bishop d8 5 0 brute      # the whole period, and brute force beside it
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n, bits, shift, levels, period, list;
static uint64_t occ[4096], att[4096]; /* the non-empty subsets, level by level */
static uint64_t empty_att;
static int lv_first[64], lv_count[64], lv_from[64], lv_width[64], lv_hi[64];
static uint64_t slot_att[4096]; /* 0: empty (no square has an empty attack set) */
static uint64_t nodes, magics;
/* The magics found, kept for brute force to compare with (at most `keep`). */
static uint64_t *found;
static size_t nfound, keep;

static uint64_t ray_walk(int sq, uint64_t blockers, int rook, int edges_only) {
    static const int rd[2][4][2] = {{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}},
                                    {{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};
    uint64_t out = 0;
    for (int k = 0; k < 4; k++) {
        int f = sq % 8 + rd[rook][k][0], r = sq / 8 + rd[rook][k][1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            int nf = f + rd[rook][k][0], nr = r + rd[rook][k][1];
            if (edges_only && !(nf >= 0 && nf < 8 && nr >= 0 && nr < 8))
                break; /* the relevant mask leaves out the last square of each ray */
            out |= 1ULL << (r * 8 + f);
            if (!edges_only && (blockers >> (r * 8 + f) & 1))
                break;
            f = nf;
            r = nr;
        }
    }
    return out;
}

static void magic_found(uint64_t m) {
    magics++;
    if (list)
        printf("magic 0x%016llx\n", (unsigned long long)m);
    if (nfound < keep)
        found[nfound++] = m;
}

/* Level i under m (the bits below the level's free bits fixed, by the task and the levels
 * above). */
static void level(int i, uint64_t m) {
    const int first = lv_first[i], count = lv_count[i], from = lv_from[i];
    const uint64_t values = (uint64_t)1 << lv_width[i];
    int undo[4096];
    for (uint64_t v = 0; v < values; v++) {
        nodes++;
        uint64_t mv = lv_width[i] ? m | v << from : m;
        int placed = 0, ok = 1;
        for (int k = first; k < first + count; k++) {
            int s = (int)((occ[k] * mv) >> shift);
            uint64_t held = slot_att[s];
            if (held == 0) {
                slot_att[s] = att[k];
                undo[placed++] = s;
            } else if (held != att[k]) {
                ok = 0;
                break;
            }
        }
        if (ok) {
            if (i + 1 == levels)
                magic_found(mv);
            else
                level(i + 1, mv);
        }
        while (placed)
            slot_att[undo[--placed]] = 0;
    }
}

static void task(uint64_t t) {
    memset(slot_att, 0, sizeof slot_att);
    slot_att[0] = empty_att;
    level(0, t);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        list = 1;
        argv++;
        argc--;
    }
    if (argc < 5) {
        fprintf(stderr, "usage: %s [--list] rook|bishop SQUARE BITS TASK_BITS [brute | - | FROM TO]\n",
                argv[0]);
        return 2;
    }
    int rook = strcmp(argv[1], "rook") == 0;
    if (!rook && strcmp(argv[1], "bishop") != 0) {
        fprintf(stderr, "lowfirst-check: not a piece: %s\n", argv[1]);
        return 2;
    }
    const char *s = argv[2];
    if (strlen(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
        fprintf(stderr, "lowfirst-check: not a square: %s\n", s);
        return 2;
    }
    int sq = (s[1] - '1') * 8 + (s[0] - 'a');
    bits = atoi(argv[3]);
    int task_bits = atoi(argv[4]);
    if (bits < 1 || bits > 12) {
        fprintf(stderr, "lowfirst-check: bits must be 1 to 12\n");
        return 2;
    }
    shift = 64 - bits;
    uint64_t mask = ray_walk(sq, 0, rook, 1);
    period = 64 - __builtin_ctzll(mask);
    if (task_bits < 0 || task_bits > period || task_bits > 40) {
        fprintf(stderr, "lowfirst-check: task bits must be 0 to %d\n", period < 40 ? period : 40);
        return 2;
    }
    /* The levels, highest mask square first; each level's subsets in carry-rippler order. */
    int squares[64], nsq = 0;
    for (int q = 63; q >= 0; q--)
        if (mask >> q & 1)
            squares[nsq++] = q;
    levels = nsq;
    n = 0;
    for (int i = 0; i < nsq; i++) {
        int lo = i == 0 ? 0 : 64 - squares[i - 1], hi = 64 - squares[i];
        int from = lo > task_bits ? lo : task_bits;
        if (from > hi)
            from = hi;
        lv_hi[i] = hi;
        lv_from[i] = from;
        lv_width[i] = hi - from;
        if (lv_width[i] > 40) {
            fprintf(stderr, "lowfirst-check: a level of %d free bits is beyond this walk\n",
                    lv_width[i]);
            return 2;
        }
        lv_first[i] = n;
        uint64_t sub = 0;
        do { /* carry-rippler over the mask, keeping the subsets whose lowest square is s_i */
            if (sub && __builtin_ctzll(sub) == squares[i]) {
                occ[n] = sub;
                att[n] = ray_walk(sq, sub, rook, 0);
                n++;
            }
            sub = (sub - mask) & mask;
        } while (sub);
        lv_count[i] = n - lv_first[i];
    }
    empty_att = ray_walk(sq, 0, rook, 0);
    int brute = argc == 6 && strcmp(argv[5], "brute") == 0;
    int listed = argc == 6 && strcmp(argv[5], "-") == 0;
    uint64_t from = 0, to = 1ULL << task_bits;
    if (argc == 7) {
        char *e1, *e2;
        from = strtoull(argv[5], &e1, 10);
        to = strtoull(argv[6], &e2, 10);
        if (*e1 || *e2 || from >= to || to > 1ULL << task_bits) {
            fprintf(stderr, "lowfirst-check: a task range is FROM TO with FROM < TO <= 2^%d\n",
                    task_bits);
            return 2;
        }
    } else if (argc != 5 && !brute && !listed) {
        fprintf(stderr, "lowfirst-check: after TASK_BITS, 'brute', '-' or a task range FROM TO\n");
        return 2;
    }
    if (brute) {
        if (period > 34) {
            fprintf(stderr, "lowfirst-check: brute force only up to periods of 2^34\n");
            return 2;
        }
        keep = (size_t)1 << 24;
        found = malloc(keep * sizeof *found);
        if (!found) {
            fprintf(stderr, "lowfirst-check: out of memory\n");
            return 2;
        }
    }
    if (listed) {
        unsigned long long t;
        int got;
        while ((got = scanf("%llu", &t)) == 1) {
            if (t >= 1ULL << task_bits) {
                fprintf(stderr, "lowfirst-check: task %llu is not below 2^%d\n", t, task_bits);
                return 2;
            }
            task(t);
        }
        if (got != EOF) {
            fprintf(stderr, "lowfirst-check: stdin holds something other than task numbers\n");
            return 2;
        }
        printf("%s %s at %d bits: period 2^%d, 2^%d tasks, %d subsets: %llu magics, %llu nodes"
               " (the listed tasks only)\n",
               argv[1], argv[2], bits, period, task_bits, n + 1, (unsigned long long)magics,
               (unsigned long long)nodes);
        return 0;
    }
    for (uint64_t t = from; t < to; t++)
        task(t);
    printf("%s %s at %d bits: period 2^%d, 2^%d tasks, %d subsets: %llu magics, %llu nodes",
           argv[1], argv[2], bits, period, task_bits, n + 1, (unsigned long long)magics,
           (unsigned long long)nodes);
    if (from != 0 || to != 1ULL << task_bits)
        printf(" (tasks %llu to %llu only)", (unsigned long long)from,
               (unsigned long long)to - 1);
    printf("\n");
    if (brute) {
        /* Every m of the period by the definition, the empty subset too; the same magics as
         * the walk's, one by one. */
        uint64_t count = 0, same = nfound == magics;
        qsort(found, nfound, sizeof *found, cmp_u64);
        for (uint64_t m = 0; m < 1ULL << period; m++) {
            int ok = 1;
            memset(slot_att, 0, sizeof(uint64_t) << bits);
            slot_att[0] = empty_att;
            for (int k = 0; k < n && ok; k++) {
                int idx = (int)((occ[k] * m) >> shift);
                if (slot_att[idx] && slot_att[idx] != att[k])
                    ok = 0;
                slot_att[idx] = att[k];
            }
            if (ok) {
                if (count >= nfound || found[count] != m)
                    same = 0;
                count++;
            }
        }
        int agree = count == magics && same;
        printf("brute force: %llu magics%s\n", (unsigned long long)count,
               agree ? ", the walk's own" : "  MISMATCH");
        return agree ? 0 : 1;
    }
    return 0;
}
