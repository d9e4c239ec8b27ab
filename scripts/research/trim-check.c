/* An independent check of `exhaust --order trim`, written from the definition in
 * src/exhaust/trim.rs's documentation, not from its code: its own geometry (masks,
 * carry-rippler subsets, attacks ray by ray), its own fixpoint (whole passes over the active
 * subsets until one changes nothing, where magichunt walks a ring), attack sets compared as
 * bitboards.
 *
 * A node is an interval known+lo ..= known+hi of m inside the dyadic window of the t bits below
 * `known`. Over it, subset X's product runs from X*(known+lo) up by X*(hi-lo) and its index
 * takes the slots b0, b0+1, ..., b0+J. Two rules, to their fixpoint:
 *   exact: an index that does not move is placed; two attack sets in one slot kill the node;
 *   trim:  an active subset (the empty one, or one whose highest square q has
 *          2^q * (hi-lo) < K * 2^(64-bits), K = 2^min(7, bits-1)) must sit in an empty slot
 *          or one holding its attack set: lo rises to its first such value, hi falls to its
 *          last; none kills the node.
 * A survivor descends to the smallest dyadic window holding [lo, hi] and enters both halves
 * (or, at one value, the node of that value); a surviving node at one value is a magic. The
 * period is cut into 2^T tasks (its top T bits), and the node count (every node entered) must
 * equal exhaust's to the node.
 *
 *   cc -O3 -march=native -o trim-check scripts/research/trim-check.c
 *   ./trim-check rook f2 9 24 0 65536      # tasks 0 to 65535 of 2^24
 *   ./trim-check rook f2 9 24 - < list     # the tasks listed on stdin (check-store.py)
 *   ./trim-check bishop d8 5 3 brute       # the whole period, and brute force beside it
 *   ./trim-check --fold --list rook b1 10 18 - < list   # also "magic 0x..." per magic found
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static int n, bits, shift;
static uint64_t occ[4096], att[4096];
static int top[4096]; /* highest square, -1 for the empty subset */
/* The order in which subsets join: by value, so a family (one highest square) is a run, but
 * shuffled inside each run. The fixpoint does not depend on the order; a shuffled family
 * reaches it in fewer passes than a sorted one, whose neighbours differ only in low squares
 * (rook a1 at 11: about 1.6 times faster, the same nodes). */
static int joins[4096];
static uint64_t slot_att[4096];
static int kbits;
static uint64_t nodes, magics;
typedef struct { uint64_t x, a; } ent; /* a subset's occupancy and attack set */
static ent *lists; /* the active unplaced subsets, one segment per node on the path */
/* --fold: the half period [0, P/2] stands for the whole one: -m is a magic exactly when m is
 * one under the index of X*m - 1. A node keeps a value while either index could hold there:
 * products run from X*lo - 1 to X*hi, the empty subset is not active, a trim that leaves one
 * compatible slot places the subset there, and a leaf checks m and P - m by the definition. */
static int fold, period, task_bits_g;
/* --list: one line "magic 0x..." per magic found (folded: m and P - m, each that is one). */
static int list;
/* The magics found, kept for brute force to compare with (at most `keep`). */
static uint64_t *kept;
static size_t nkept, keep;

/* Counts magic m (a residue modulo the period) and, with --list, prints it. */
static void found(uint64_t m) {
    magics++;
    if (list)
        printf("magic 0x%016llx\n", (unsigned long long)m);
    if (nkept < keep)
        kept[nkept++] = m;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* m is a magic, by the definition (every subset, the empty one too). */
static int is_magic(uint64_t m) {
    static uint64_t a[4096];
    static unsigned char used[4096];
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        int idx = (int)((occ[i] * m) >> shift);
        if (used[idx] && a[idx] != att[i])
            ok = 0;
        used[idx] = 1;
        a[idx] = att[i];
    }
    memset(used, 0, sizeof used);
    return ok;
}

/* Counts (and lists) m if it is a magic, by the definition. */
static void magic_at(uint64_t m) {
    if (is_magic(m))
        found(m);
}

static uint64_t ray_walk(int sq, uint64_t blockers, int rook, int edges_only) {
    static const int rd[2][4][2] = {{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}},
                                    {{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};
    uint64_t out = 0;
    for (int k = 0; k < 4; k++) {
        int f = sq % 8 + rd[rook][k][0], r = sq / 8 + rd[rook][k][1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            int nf = f + rd[rook][k][0], nr = r + rd[rook][k][1];
            if (edges_only && !(nf >= 0 && nf < 8 && nr >= 0 && nr < 8))
                break;
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

/* active(i, w): 2^top[i] * w < 2^(kbits + shift), that is w < 2^(kbits + shift - top[i]) (all
 * widths when the exponent is 64 or more, the empty subset too); the bound per subset, set in
 * main. */
static uint64_t below[4096];
static int active(int i, uint64_t width) {
    return below[i] == 0 || width < below[i];
}

/* ceil(need / x), in 64 bits when need fits (the common case; __udivti3 took 8 % of the time) */
static uint64_t div_up(u128 need, uint64_t x) {
    if (need >> 64 == 0) {
        uint64_t v = (uint64_t)need;
        return v / x + (v % x != 0);
    }
    return (uint64_t)((need + x - 1) / x);
}
/* An empty slot holds 0: no square has an empty attack set. */
static int compatible(uint64_t slot, uint64_t a) {
    uint64_t h = slot_att[slot & ((1ULL << bits) - 1)];
    return h == 0 || h == a;
}

/* The node; lists[from .. from+len) are the parent's active unplaced subsets, `next` the first
 * subset (in value order) never active on the path. The second child (in_place) works on its
 * parent's list where it lies, since the parent needs it no more; the first works on a copy. */
static void node(uint64_t known, int t, uint64_t lo, uint64_t hi, int from, int len, int next,
                 int in_place) {
    nodes++;
    int mine = in_place ? from : from + len, count = 0;
    int undo[4096], nu = 0, alive = 1;
    const uint64_t whole = (uint64_t)1 << shift, low = whole - 1, smask = (1ULL << bits) - 1;
    if (!in_place)
        memcpy(lists + mine, lists + from, sizeof(ent) * (size_t)len);
    count = len;
    for (int changed = 1; changed && alive;) {
        changed = 0;
        while (next < n && active(next, hi - lo)) {
            int j = joins[next++];
            lists[mine + count++] = (ent){occ[j], att[j]};
        }
        int keep = 0;
        uint64_t base = known + lo, w = hi - lo;
        for (int k = 0; k < count; k++) {
            ent e = lists[mine + k];
            uint64_t x = e.x, a = e.a;
            uint64_t p0 = x * base - (uint64_t)fold;
            /* An active subset's highest square moves it less than K * 2^shift <= 2^63 over
             * the interval, so the subset itself less than 2^64 - 1: the span (one more when
             * folded) fits in 64 bits. */
            uint64_t span = x * w + (uint64_t)fold;
            uint64_t fr = p0 & low;
            uint64_t b0 = p0 >> shift;
            if (span < whole - fr) { /* exact */
                uint64_t s = b0 & smask, h = slot_att[s];
                if (h != 0 && h != a) {
                    alive = 0;
                    break;
                }
                if (h == 0) {
                    slot_att[s] = a;
                    undo[nu++] = (int)s;
                    changed = 1;
                }
                continue; /* placed: off the list */
            }
            uint64_t last = (span >> shift) + ((fr + (span & low)) >> shift); /* boundaries crossed */
            if (compatible(b0, a) && compatible(b0 + last, a)) {
                lists[mine + keep++] = e;
                continue;
            }
            uint64_t f = 0, l = last;
            while (f <= last && !compatible(b0 + f, a))
                f++;
            if (f > last) {
                alive = 0;
                break;
            }
            while (!compatible(b0 + l, a))
                l--;
            uint64_t lo0 = lo, hi0 = hi;
            u128 rem = whole - fr;
            if (f > 0) {
                /* X*(d - lo0) reaches slot b0+f (folded: the floor index, one product on) */
                u128 need = rem + (u128)(f - 1) * whole - (u128)fold;
                lo = lo0 + div_up(need, x);
            }
            if (l < last) {
                u128 need = rem + (u128)l * whole; /* X*(d - lo0) reaches slot b0+l+1 */
                uint64_t h = lo0 + div_up(need, x) - 1;
                hi = fold && h > hi0 ? hi0 : h; /* folded, the last slot may sit one lower */
            }
            if (lo != lo0 || hi != hi0) {
                changed = 1;
                base = known + lo;
                w = hi - lo;
            }
            if (lo > hi) {
                alive = 0;
                break;
            }
            if (fold && f == l) { /* one compatible slot left: placed there */
                uint64_t s = (b0 + f) & smask;
                if (slot_att[s] == 0) {
                    slot_att[s] = a;
                    undo[nu++] = (int)s;
                    changed = 1;
                }
                continue;
            }
            lists[mine + keep++] = e; /* one slot left: placed by the exact rule next pass */
        }
        count = keep;
    }
    if (alive) {
        if (t == 0 && fold) {
            uint64_t neg = ((1ULL << period) - known) & ((1ULL << period) - 1);
            magic_at(known);
            if (neg != known)
                magic_at(neg);
        } else if (t == 0) {
            found(known);
        } else {
            while (t > 0 && (lo >> (t - 1)) == (hi >> (t - 1))) {
                uint64_t half = 1ULL << (t - 1);
                if (lo >= half) {
                    known |= half;
                    lo -= half;
                    hi -= half;
                }
                t--;
            }
            if (t == 0) {
                node(known, 0, 0, 0, mine, count, next, 1);
            } else {
                uint64_t half = 1ULL << (t - 1);
                node(known, t - 1, lo, half - 1, mine, count, next, 0);
                node(known | half, t - 1, 0, hi - half, mine, count, next, 1);
            }
        }
    }
    while (nu)
        slot_att[undo[--nu]] = 0;
}

static void task(uint64_t j, int width) {
    if (fold) {
        uint64_t half_point = 1ULL << (period - 1);
        if (task_bits_g == 0) {
            magic_at(half_point);
            node(0, width, 0, half_point - 1, 0, 0, 1, 0);
            return;
        }
        uint64_t half = 1ULL << (task_bits_g - 1);
        if (j >= half) {
            nodes++; /* the task's root, empty: its values are the negations of the lower half */
            if (j == half)
                magic_at(half_point);
            return;
        }
        node(j << width, width, 0, width == 64 ? ~0ULL : (1ULL << width) - 1, 0, 0, 1, 0);
        return;
    }
    node(j << width, width, 0, width == 64 ? ~0ULL : (1ULL << width) - 1, 0, 0, 0, 0);
}

int main(int argc, char **argv) {
    while (argc > 1 && (strcmp(argv[1], "--fold") == 0 || strcmp(argv[1], "--list") == 0)) {
        if (strcmp(argv[1], "--fold") == 0)
            fold = 1;
        else
            list = 1;
        argv++;
        argc--;
    }
    if (argc < 5) {
        fprintf(stderr, "usage: %s [--fold] [--list] rook|bishop SQUARE BITS TASK_BITS [brute | - | FROM TO]\n",
                argv[0]);
        return 2;
    }
    int rook = strcmp(argv[1], "rook") == 0;
    if (!rook && strcmp(argv[1], "bishop") != 0) {
        fprintf(stderr, "trim-check: not a piece: %s\n", argv[1]);
        return 2;
    }
    const char *s = argv[2];
    if (strlen(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
        fprintf(stderr, "trim-check: not a square: %s\n", s);
        return 2;
    }
    int sq = (s[1] - '1') * 8 + (s[0] - 'a');
    bits = atoi(argv[3]);
    int task_bits = atoi(argv[4]);
    if (bits < 1 || bits > 12) {
        fprintf(stderr, "trim-check: bits must be 1 to 12\n");
        return 2;
    }
    shift = 64 - bits;
    kbits = bits - 1 < 7 ? bits - 1 : 7;
    uint64_t mask = ray_walk(sq, 0, rook, 1);
    static uint64_t pairs[4096][2];
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
        top[i] = occ[i] ? 63 - __builtin_clzll(occ[i]) : -1;
        int e = kbits + shift - top[i]; /* 0 below means every width */
        below[i] = top[i] < 0 || e >= 64 ? 0 : e <= 0 ? 1 : (uint64_t)1 << e; /* e <= 0: w = 0 only */
    }
    uint64_t rng = 0x2545f4914f6cdd1dULL; /* xorshift64, a fixed shuffle of each run */
    for (int i = 0, start = 0; i < n; i++) {
        if (i > 0 && top[i] != top[i - 1])
            start = i;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        int j = start + (int)(rng % (uint64_t)(i - start + 1));
        joins[i] = joins[j];
        joins[j] = i;
    }
    period = 64 - __builtin_ctzll(mask);
    task_bits_g = task_bits;
    if (task_bits < 0 || task_bits > period || task_bits > 40) {
        fprintf(stderr, "trim-check: task bits must be 0 to %d\n", period < 40 ? period : 40);
        return 2;
    }
    int width = period - task_bits;
    lists = malloc(sizeof(ent) * (size_t)n * (size_t)(width + 3));
    if (!lists) {
        fprintf(stderr, "trim-check: out of memory\n");
        return 2;
    }
    int brute = argc == 6 && strcmp(argv[5], "brute") == 0;
    int listed = argc == 6 && strcmp(argv[5], "-") == 0;
    uint64_t from = 0, to = 1ULL << task_bits;
    if (argc == 7) {
        char *e1, *e2;
        from = strtoull(argv[5], &e1, 10);
        to = strtoull(argv[6], &e2, 10);
        if (*e1 || *e2 || from >= to || to > 1ULL << task_bits) {
            fprintf(stderr, "trim-check: a task range is FROM TO with FROM < TO <= 2^%d\n",
                    task_bits);
            return 2;
        }
    } else if (argc != 5 && !brute && !listed) {
        fprintf(stderr, "trim-check: after TASK_BITS, 'brute', '-' or a task range FROM TO\n");
        return 2;
    }
    if (brute) {
        keep = (size_t)1 << 24;
        kept = malloc(keep * sizeof *kept);
        if (!kept) {
            fprintf(stderr, "trim-check: out of memory\n");
            return 2;
        }
    }
    if (listed) {
        unsigned long long j;
        int got;
        while ((got = scanf("%llu", &j)) == 1) {
            if (j >= 1ULL << task_bits) {
                fprintf(stderr, "trim-check: task %llu is not below 2^%d\n", j, task_bits);
                return 2;
            }
            task(j, width);
        }
        if (got != EOF) {
            fprintf(stderr, "trim-check: stdin holds something other than task numbers\n");
            return 2;
        }
        printf("%s %s at %d bits: period 2^%d, 2^%d tasks, %d subsets: %llu magics, %llu nodes"
               " (the listed tasks only)\n",
               argv[1], argv[2], bits, period, task_bits, n, (unsigned long long)magics,
               (unsigned long long)nodes);
        return 0;
    }
    for (uint64_t j = from; j < to; j++)
        task(j, width);
    printf("%s %s at %d bits: period 2^%d, 2^%d tasks, %d subsets: %llu magics, %llu nodes",
           argv[1], argv[2], bits, period, task_bits, n, (unsigned long long)magics,
           (unsigned long long)nodes);
    if (from != 0 || to != 1ULL << task_bits)
        printf(" (tasks %llu to %llu only)", (unsigned long long)from,
               (unsigned long long)to - 1);
    printf("\n");
    if (brute) {
        if (period > 34) {
            fprintf(stderr, "trim-check: brute force only up to periods of 2^34\n");
            return 2;
        }
        /* The same magics as the walk's, one by one. */
        uint64_t count = 0;
        int same = nkept == magics;
        qsort(kept, nkept, sizeof *kept, cmp_u64);
        for (uint64_t m = 0; m < 1ULL << period; m++)
            if (is_magic(m)) {
                if (count >= nkept || kept[count] != m)
                    same = 0;
                count++;
            }
        int agree = count == magics && same;
        printf("brute force: %llu magics%s\n", (unsigned long long)count,
               agree ? ", the walk's own" : "  MISMATCH");
        return agree ? 0 : 1;
    }
    return 0;
}
