/* An independent check of `exhaust --order high`, written from the definition, not from
 * magichunt's code: its own geometry (masks, carry-rippler subsets, attacks ray by ray), its
 * own tree walk, attack sets compared as bitboards.
 *
 * A node fixes the bits of m from t up; the low t bits d are unknown. Subset X's product is
 * X*known + X*d with X*d <= X*(2^t - 1): when that cannot reach the end of the slot the product
 * is in, the subset's index is the same for every d, and a node dies when two such subsets
 * with different attack sets share a slot. The period is cut into 2^T tasks (the top T bits),
 * as exhaust cuts it, so the node count (every node entered, each task's root included) must
 * equal exhaust's to the node.
 *
 *   cc -O2 -o topdown-check scripts/research/topdown-check.c
 *   ./topdown-check rook e2 8 18          # magics and nodes of the period, 2^18 tasks
 *   ./topdown-check bishop d8 5 0 brute   # also brute force over the period (small ones)
 *   ./topdown-check rook b2 9 18 0 131072 # tasks 0 to 131071 only (run the rest elsewhere:
 *                                         # the counts of the pieces add up to the whole's)
 *   ./topdown-check rook b2 9 18 - < list # the tasks listed on stdin, one number a line
 *                                         # (check-store.py feeds it exhaust's blocks)
 *   ./topdown-check --list bishop d8 5 3  # also one line "magic 0x..." per magic found
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static int n;                  /* subsets */
static uint64_t occ[4096];     /* sorted ascending */
static uint64_t att[4096];
static int shift, bits;
static uint64_t slot_att[4096];
static unsigned char slot_used[4096], placed[4096];
static uint64_t nodes, magics;
static int list; /* --list: print each magic found */

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

static int cmp(const void *a, const void *b) {
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* `first`: every subset below it is placed (a shortcut for the scan, nothing more). */
static void node(uint64_t known, int t, int first) {
    nodes++;
    uint64_t span = t ? (t == 64 ? ~0ULL : (1ULL << t) - 1) : 0;
    int undo_slot[4096], undo_sub[4096], ns = 0, nu = 0, alive = 1;
    uint64_t low = (1ULL << shift) - 1;
    for (int i = first; i < n; i++) {
        if ((u128)occ[i] * span >= ((u128)1 << shift))
            break; /* sorted: no later subset can be exact either */
        if (placed[i])
            continue;
        uint64_t p = occ[i] * known;
        if ((u128)occ[i] * span >= (u128)(((uint64_t)1 << shift) - (p & low)))
            continue;
        int idx = (int)(p >> shift);
        if (slot_used[idx] && slot_att[idx] != att[i]) {
            alive = 0;
            break;
        }
        if (!slot_used[idx]) {
            slot_used[idx] = 1;
            slot_att[idx] = att[i];
            undo_slot[ns++] = idx;
        }
        placed[i] = 1;
        undo_sub[nu++] = i;
    }
    if (alive) {
        while (first < n && placed[first])
            first++;
        if (t == 0) {
            magics++;
            if (list)
                printf("magic 0x%016llx\n", (unsigned long long)known);
        }
        else
            for (uint64_t v = 0; v < 2; v++)
                node(known | v << (t - 1), t - 1, first);
    }
    while (ns)
        slot_used[undo_slot[--ns]] = 0;
    while (nu)
        placed[undo_sub[--nu]] = 0;
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
        fprintf(stderr, "topdown-check: not a piece: %s\n", argv[1]);
        return 2;
    }
    const char *s = argv[2];
    if (strlen(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
        fprintf(stderr, "topdown-check: not a square: %s\n", s);
        return 2;
    }
    int sq = (s[1] - '1') * 8 + (s[0] - 'a');
    bits = atoi(argv[3]);
    int task_bits = atoi(argv[4]);
    if (bits < 1 || bits > 12) {
        fprintf(stderr, "topdown-check: bits must be 1 to 12\n");
        return 2;
    }
    shift = 64 - bits;
    uint64_t mask = ray_walk(sq, 0, rook, 1);
    uint64_t pairs[4096][2];
    uint64_t sub = 0;
    n = 0;
    do { /* carry-rippler */
        pairs[n][0] = sub;
        pairs[n][1] = ray_walk(sq, sub, rook, 0);
        n++;
        sub = (sub - mask) & mask;
    } while (sub);
    qsort(pairs, n, sizeof pairs[0], cmp);
    for (int i = 0; i < n; i++) {
        occ[i] = pairs[i][0];
        att[i] = pairs[i][1];
    }
    int period = 64 - __builtin_ctzll(mask);
    if (task_bits < 0 || task_bits > period || task_bits > 40) {
        fprintf(stderr, "topdown-check: task bits must be 0 to %d\n", period < 40 ? period : 40);
        return 2;
    }
    int width = period - task_bits;
    int brute = argc == 6 && strcmp(argv[5], "brute") == 0;
    int listed = argc == 6 && strcmp(argv[5], "-") == 0;
    uint64_t from = 0, to = 1ULL << task_bits;
    if (argc == 7) {
        char *e1, *e2;
        from = strtoull(argv[5], &e1, 10);
        to = strtoull(argv[6], &e2, 10);
        if (*e1 || *e2 || from >= to || to > 1ULL << task_bits) {
            fprintf(stderr, "topdown-check: a task range is FROM TO with FROM < TO <= 2^%d\n",
                    task_bits);
            return 2;
        }
    } else if (argc != 5 && !brute && !listed) {
        fprintf(stderr, "topdown-check: after TASK_BITS, 'brute', '-' or a task range FROM TO\n");
        return 2;
    }
    if (listed) {
        unsigned long long task;
        int got;
        while ((got = scanf("%llu", &task)) == 1) {
            if (task >= 1ULL << task_bits) {
                fprintf(stderr, "topdown-check: task %llu is not below 2^%d\n", task, task_bits);
                return 2;
            }
            node((uint64_t)task << width, width, 0);
        }
        if (got != EOF) {
            fprintf(stderr, "topdown-check: stdin holds something other than task numbers\n");
            return 2;
        }
        printf("%s %s at %d bits: period 2^%d, 2^%d tasks, %d subsets: %llu magics, %llu nodes"
               " (the listed tasks only)\n",
               argv[1], argv[2], bits, period, task_bits, n, (unsigned long long)magics,
               (unsigned long long)nodes);
        return 0;
    }
    for (uint64_t task = from; task < to; task++)
        node(task << width, width, 0);
    printf("%s %s at %d bits: period 2^%d, 2^%d tasks, %d subsets: %llu magics, %llu nodes",
           argv[1], argv[2], bits, period, task_bits, n, (unsigned long long)magics,
           (unsigned long long)nodes);
    if (from != 0 || to != 1ULL << task_bits)
        printf(" (tasks %llu to %llu only)", (unsigned long long)from,
               (unsigned long long)to - 1);
    printf("\n");
    if (brute) {
        if (period > 34) {
            fprintf(stderr, "topdown-check: brute force only up to periods of 2^34\n");
            return 2;
        }
        uint64_t count = 0;
        for (uint64_t m = 0; m < 1ULL << period; m++) {
            int ok = 1, i;
            for (i = 0; i < n && ok; i++) {
                int idx = (int)((occ[i] * m) >> shift);
                if (slot_used[idx] && slot_att[idx] != att[i])
                    ok = 0;
                slot_used[idx] = 1;
                slot_att[idx] = att[i];
            }
            count += ok;
            for (int j = 0; j < n; j++)
                slot_used[(int)((occ[j] * m) >> shift)] = 0;
        }
        printf("brute force: %llu magics%s\n", (unsigned long long)count,
               count == magics ? "" : "  MISMATCH");
        return count == magics ? 0 : 1;
    }
    return 0;
}
