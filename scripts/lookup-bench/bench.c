/* Lookup micro-benchmark of an exported header (scripts/lookup-bench.sh builds it).
 *
 * Times rook_attacks + bishop_attacks over 65536 random (square, occupancy) pairs, two ways:
 * "throughput" (independent lookups, as move generation does) and "latency" (each occupancy
 * depends on the previous result, so the loads cannot overlap). Prints the median of RUNS
 * timings of each, in nanoseconds per pair of lookups.
 *
 * With -DSPLIT the implementation lives in another file (impl.c), so the tables are extern
 * data as they are in a multi-file engine; without it, this file defines them. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef SPLIT
#define MAGICHUNT_IMPLEMENTATION
#endif
#include "magics.h"

#define PAIRS 65536
#define PASSES 64
#define RUNS 21

static int squares[PAIRS];
static uint64_t occs[PAIRS];

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, RUNS, sizeof *v, by_value);
    return v[RUNS / 2];
}

int main(void)
{
    uint64_t s = 0x9e3779b97f4a7c15u, sink = 0;
    double through[RUNS], latency[RUNS];
    int i, p, r;
    init_attack_tables();
    for (i = 0; i < PAIRS; i++) {
        squares[i] = (int)(next_random(&s) & 63);
        occs[i] = next_random(&s) & next_random(&s); /* about a quarter of the squares */
    }
    for (r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        for (p = 0; p < PASSES; p++)
            for (i = 0; i < PAIRS; i++)
                sink += rook_attacks(squares[i], occs[i]) ^ bishop_attacks(squares[i], occs[i]);
        through[r] = (now_ns() - t0) / ((double)PASSES * PAIRS);
        t0 = now_ns();
        {
            uint64_t chain = 0;
            for (p = 0; p < PASSES; p++)
                for (i = 0; i < PAIRS; i++)
                    chain = rook_attacks(squares[i], occs[i] ^ (chain & 1)) ^
                            bishop_attacks(squares[i], occs[i] ^ (chain & 2));
            sink += chain;
        }
        latency[r] = (now_ns() - t0) / ((double)PASSES * PAIRS);
    }
    printf("throughput_ns %.3f\nlatency_ns %.3f\nsink %llu\n", median(through), median(latency),
           (unsigned long long)(sink & 1));
    return 0;
}
