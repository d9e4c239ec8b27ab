/* The lookup benchmark (scripts/lookup-bench.sh builds and runs it):
 *
 *   lookup-bench check DEPTHS          every backend against the reference on every blocker
 *                                      subset, then perft of the standard positions with
 *                                      every backend: exact known node counts or exit 1
 *   lookup-bench record FILE DEPTHS    the slider lookups of those perfts, in order, to FILE
 *   lookup-bench bench FILE ROUNDS DEPTHS
 *                                      ROUNDS interleaved rounds: each backend in turn (the
 *                                      order rotates every round) times random pairs, the
 *                                      replay of FILE, and the perfts; prints ns per lookup
 *                                      (per leaf for perft) and the ratio to fancy in the same
 *                                      round, median and quartiles over the rounds
 *
 * DEPTHS is one depth per standard position (start, kiwipete, pos3 .. pos6), e.g. 5,4,6,5,4,4.
 * Every count printed to stdout is also checked; errors go to stderr with exit 2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "board.h"

/* The lookups of a perft, in order: per lookup a code (the square, plus 64 for a bishop,
 * plus 128 when the occupancy is not the previous lookup's), and the occupancies, one per
 * change (about a quarter of the lookups), so that a replay streams under 3 bytes a lookup. */
struct trace {
    size_t n, cap, n_occ, cap_occ;
    uint8_t *code;
    uint64_t *occ;
};

static void die(const char *what)
{
    fprintf(stderr, "lookup-bench: %s\n", what);
    exit(2);
}

/* ---- the recorder: fancy's answers, each question appended to RECORDED ---- */

static struct trace RECORDED;

static void record(int code, uint64_t occ)
{
    struct trace *t = &RECORDED;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1 << 20;
        if (!(t->code = realloc(t->code, t->cap)))
            die("out of memory for the trace");
    }
    if (!t->n_occ || t->occ[t->n_occ - 1] != occ) {
        if (t->n_occ == t->cap_occ) {
            t->cap_occ = t->cap_occ ? 2 * t->cap_occ : 1 << 18;
            if (!(t->occ = realloc(t->occ, t->cap_occ * sizeof *t->occ)))
                die("out of memory for the trace");
        }
        t->occ[t->n_occ++] = occ;
        code |= 128;
    }
    t->code[t->n++] = (uint8_t)code;
}
static inline uint64_t rec_rook(int sq, uint64_t occ) { return record(sq, occ), fancy_rook(sq, occ); }
static inline uint64_t rec_bishop(int sq, uint64_t occ)
{
    return record(sq | 64, occ), fancy_bishop(sq, occ);
}

/* The loop alone: what the timed loops cost without a table. */
static inline uint64_t loop_rook(int sq, uint64_t occ) { return occ + (uint64_t)sq; }
static inline uint64_t loop_bishop(int sq, uint64_t occ) { return occ ^ (uint64_t)sq; }

#define BK ref
#include "movegen.h"
#undef BK
#define BK rec
#include "movegen.h"
#undef BK
#define BK loop
#include "kernels.h"
#undef BK
#define BK fancy
#include "kernels.h"
#include "movegen.h"
#undef BK
#define BK packed
#include "kernels.h"
#include "movegen.h"
#undef BK
#ifdef HAVE_BYTE
#define BK byte
#include "kernels.h"
#include "movegen.h"
#undef BK
#endif
#ifdef HAVE_FIXED
#define BK fixed
#include "kernels.h"
#include "movegen.h"
#undef BK
#endif
#ifdef HAVE_PEXT
#define BK pext
#include "kernels.h"
#include "movegen.h"
#undef BK
#endif
#define BK hq
#include "kernels.h"
#include "movegen.h"
#undef BK

struct kernels {
    const char *name;
    uint64_t (*perft)(const struct position *, int);
    uint64_t (*random)(uint64_t, uint64_t);
    uint64_t (*replay)(const struct trace *);
};

#define KERNELS(x) {#x, perft_##x, random_##x, replay_##x}
/* The timed backends, the yardstick (fancy) first; loop has no perft. */
static const struct kernels TIMED[] = {
    KERNELS(fancy),
    KERNELS(packed),
#ifdef HAVE_BYTE
    KERNELS(byte),
#endif
#ifdef HAVE_FIXED
    KERNELS(fixed),
#endif
#ifdef HAVE_PEXT
    KERNELS(pext),
#endif
    KERNELS(hq),
    {"loop", NULL, random_loop, replay_loop},
};
#define N_TIMED (int)(sizeof TIMED / sizeof TIMED[0])

static void parse_depths(const char *s, int depths[N_POSITIONS])
{
    for (int i = 0; i < N_POSITIONS; i++) {
        char *end;
        long d = strtol(s, &end, 10);
        if (end == s || d < 1 || d > 6 || !POSITIONS[i].nodes[d] || (*end != ',' && *end))
            die("DEPTHS: one depth per position (start, kiwipete, pos3 .. pos6), each 1 to 6 "
                "with a known count (kiwipete, pos5 and pos6: up to 5), comma-separated");
        depths[i] = (int)d;
        s = *end ? end + 1 : end;
        if (i < N_POSITIONS - 1 && !*s)
            die("DEPTHS: too few depths");
    }
    if (*s)
        die("DEPTHS: too many depths");
}

static struct position position_of(int i)
{
    struct position p;
    if (from_fen(&p, POSITIONS[i].fen))
        die("a standard position's FEN does not parse");
    return p;
}

static int check(const char *spec)
{
    int depths[N_POSITIONS], bad = 0;
    parse_depths(spec, depths);
    long wrong = backends_check();
    printf("every blocker subset of every square (random bits outside the mask), %d backends "
           "against the reference: %s\n",
           n_backends - 1, wrong ? "MISMATCH" : "equal");
    bad |= wrong != 0;
    struct {
        const char *name;
        uint64_t (*perft)(const struct position *, int);
    } all[N_TIMED + 1];
    int n = 0;
    all[n].name = "ref", all[n++].perft = perft_ref;
    for (int k = 0; k < N_TIMED; k++)
        if (TIMED[k].perft)
            all[n].name = TIMED[k].name, all[n++].perft = TIMED[k].perft;
    printf("%-9s %5s %12s", "position", "depth", "known");
    for (int k = 0; k < n; k++)
        printf(" %8s", all[k].name);
    printf("\n");
    for (int i = 0; i < N_POSITIONS; i++) {
        struct position p = position_of(i);
        uint64_t want = POSITIONS[i].nodes[depths[i]];
        printf("%-9s %5d %12llu", POSITIONS[i].name, depths[i], (unsigned long long)want);
        for (int k = 0; k < n; k++) {
            uint64_t got = all[k].perft(&p, depths[i]);
            if (got != want) {
                printf(" %8llu", (unsigned long long)got);
                bad = 1;
            } else
                printf(" %8s", "exact");
        }
        printf("\n");
    }
    printf("%s\n", bad ? "check FAILED" : "check passed: every count exact with every backend");
    return bad;
}

static int record_trace(const char *path, const char *spec)
{
    int depths[N_POSITIONS];
    parse_depths(spec, depths);
    for (int i = 0; i < N_POSITIONS; i++) {
        struct position p = position_of(i);
        size_t before = RECORDED.n;
        uint64_t nodes = perft_rec(&p, depths[i]);
        if (nodes != POSITIONS[i].nodes[depths[i]])
            die("the recording perft's count is wrong");
        printf("%-9s depth %d: %llu nodes, %zu slider lookups\n", POSITIONS[i].name, depths[i],
               (unsigned long long)nodes, RECORDED.n - before);
    }
    FILE *f = fopen(path, "wb");
    uint64_t n[2] = {RECORDED.n, RECORDED.n_occ};
    if (!f || fwrite("LBTRACE2", 1, 8, f) != 8 || fwrite(n, sizeof n, 1, f) != 1 ||
        fwrite(RECORDED.code, 1, n[0], f) != n[0] ||
        fwrite(RECORDED.occ, sizeof(uint64_t), n[1], f) != n[1] || fclose(f))
        die("cannot write the trace");
    size_t rooks = 0;
    for (size_t i = 0; i < n[0]; i++)
        rooks += !(RECORDED.code[i] & 64);
    printf("%llu lookups (%zu rook, %zu bishop; %llu changes of occupancy) written to %s\n",
           (unsigned long long)n[0], rooks, (size_t)n[0] - rooks, (unsigned long long)n[1], path);
    return 0;
}

static struct trace read_trace(const char *path)
{
    struct trace t = {0};
    char magic[8];
    uint64_t n[2];
    FILE *f = fopen(path, "rb");
    if (!f || fread(magic, 1, 8, f) != 8 || memcmp(magic, "LBTRACE2", 8) ||
        fread(n, sizeof n, 1, f) != 1 || n[0] > ((uint64_t)1 << 32) || n[1] > n[0])
        die("not a trace written by lookup-bench record");
    t.n = t.cap = n[0];
    t.n_occ = t.cap_occ = n[1];
    t.code = malloc(n[0] + 1);
    t.occ = malloc((n[1] + 1) * sizeof *t.occ);
    if (!t.code || !t.occ)
        die("out of memory for the trace");
    if (fread(t.code, 1, n[0], f) != n[0] || fread(t.occ, sizeof(uint64_t), n[1], f) != n[1])
        die("the trace is cut short");
    fclose(f);
    size_t changes = 0;
    for (size_t i = 0; i < t.n; i++)
        changes += t.code[i] >> 7;
    if (changes != t.n_occ || (t.n && !(t.code[0] & 128)))
        die("the trace's occupancies do not match its codes");
    return t;
}

/* The thread's CPU time: on a shared core, the time the scheduler gave to others is not
 * counted (what they do to the caches still is). */
static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of v[0..n) (sorted in place), interpolated between neighbours. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    double at = q * (n - 1);
    int i = (int)at;
    return i + 1 < n ? v[i] + (at - i) * (v[i + 1] - v[i]) : v[i];
}

#define WORKLOADS 3
static const char *const WORKLOAD[WORKLOADS] = {"random", "perft-trace", "perft"};
#define RANDOM_PAIRS (1u << 23)

static volatile uint64_t SINK;

/* One timing of backend k on workload w, in ns per lookup (per leaf for perft), or a
 * negative value where the backend has no such workload. */
static double time_one(int k, int w, const struct trace *t, const int depths[N_POSITIONS],
                       uint64_t leaves)
{
    const struct kernels *b = &TIMED[k];
    double t0 = now_ns();
    switch (w) {
    case 0:
        SINK += b->random(RANDOM_PAIRS, 0x1234567u);
        return (now_ns() - t0) / (2.0 * RANDOM_PAIRS);
    case 1:
        SINK += b->replay(t);
        return (now_ns() - t0) / (double)t->n;
    default:
        if (!b->perft)
            return -1;
        uint64_t nodes = 0;
        for (int i = 0; i < N_POSITIONS; i++) {
            struct position p = position_of(i);
            nodes += b->perft(&p, depths[i]);
        }
        if (nodes != leaves)
            die("a timed perft counted wrong");
        return (now_ns() - t0) / (double)leaves;
    }
}

static int bench(const char *path, const char *rounds_arg, const char *spec)
{
    int depths[N_POSITIONS], rounds = atoi(rounds_arg);
    parse_depths(spec, depths);
    if (rounds < 1 || rounds > 1000)
        die("ROUNDS: 1 to 1000");
    struct trace t = read_trace(path);
    if (!t.n)
        die("the trace is empty");
    uint64_t leaves = 0;
    for (int i = 0; i < N_POSITIONS; i++)
        leaves += POSITIONS[i].nodes[depths[i]];
    double(*ns)[WORKLOADS][1000] = calloc(N_TIMED, sizeof *ns);
    if (!ns)
        die("out of memory");
    /* Round 0 warms up (caches, frequency) and is not kept. */
    for (int r = 0; r <= rounds; r++)
        for (int w = 0; w < WORKLOADS; w++)
            for (int i = 0; i < N_TIMED; i++) {
                int k = (i + r) % N_TIMED;
                double x = time_one(k, w, &t, depths, leaves);
                if (r)
                    ns[k][w][r - 1] = x;
            }
    printf("%-12s %-7s %9s %20s %22s %10s\n", "workload", "backend", "ns", "(q1 .. q3)",
           "ratio to fancy", "bytes");
    for (int w = 0; w < WORKLOADS; w++)
        for (int k = 0; k < N_TIMED; k++) {
            if (ns[k][w][0] < 0)
                continue;
            double v[1000], ratio[1000];
            for (int r = 0; r < rounds; r++) {
                v[r] = ns[k][w][r];
                ratio[r] = ns[k][w][r] / ns[0][w][r];
            }
            double q1 = quantile(v, rounds, 0.25), med = quantile(v, rounds, 0.5),
                   q3 = quantile(v, rounds, 0.75);
            double r1 = quantile(ratio, rounds, 0.25), rm = quantile(ratio, rounds, 0.5),
                   r3 = quantile(ratio, rounds, 0.75);
            size_t bytes = 0;
            for (int j = 0; j < n_backends; j++)
                if (!strcmp(BACKENDS[j].name, TIMED[k].name))
                    bytes = BACKENDS[j].bytes;
            char shown[24] = "";
            if (bytes)
                snprintf(shown, sizeof shown, "%zu", bytes);
            printf("%-12s %-7s %9.3f   (%7.3f .. %7.3f)   %6.3f (%5.3f .. %5.3f) %10s\n",
                   WORKLOAD[w], TIMED[k].name, med, q1, q3, rm, r1, r3, shown);
        }
    printf("%d rounds after a warm-up; random: %u pairs x (rook + bishop); perft-trace: %zu "
           "lookups; perft: %llu leaves (ns per leaf)\n",
           rounds, RANDOM_PAIRS, t.n, (unsigned long long)leaves);
    return 0;
}

int main(int argc, char **argv)
{
    backends_init();
    board_init();
    if (argc == 3 && !strcmp(argv[1], "check"))
        return check(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "record"))
        return record_trace(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "bench"))
        return bench(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: lookup-bench check DEPTHS | record FILE DEPTHS | bench FILE ROUNDS "
                    "DEPTHS\n");
    return 2;
}
