#!/usr/bin/env python3
"""The tasks `magichunt bench --estimate` samples, in the order it draws them.

    scripts/research/sample-tasks.py PIECE SQUARE BITS TASK_BITS SEED K

prints the first K tasks (numbers below 2^TASK_BITS, one a line) that
`bench --estimate PIECE:SQUARE:BITS --task-bits TASK_BITS --seed SEED` draws, so that a
research walk (window-walk.c, trim-check.c) can be run on the very tasks a benchmark runs.

It is written again from src/exhaust/campaign/estimate.rs (the `Sampler`: a lazy Fisher-Yates
shuffle of 0..2^TASK_BITS, a number below n taken as the high word of a 64x64 product) and
src/search/candidates.rs (`task_rng`: the seed, the target and the bit count mixed by
splitmix64 into the seed of a xoshiro256++, seeded as rand's `seed_from_u64` does, on the
estimator's stream 0x6573_7469_6d61_7465). Checked: on rook h1 at 11 bits, 24 task bits, seed 1,
window-walk --fold on its first 6 tasks counts 669,278 nodes, the `sample_nodes` that
`bench --estimate rook:h1:11 --task-bits 24 --sample 6 --seed 1 --order fold --json` reports.
"""
import sys

M = (1 << 64) - 1
STREAM = 0x6573_7469_6d61_7465
PIECES = {"rook": 0, "bishop": 1}


def splitmix(z):
    """The splitmix64 finalizer of candidates.rs (add the golden gamma, then mix)."""
    z = (z + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


class Xoshiro256PlusPlus:
    """xoshiro256++ seeded from one word by splitmix64 (rand_xoshiro's `seed_from_u64`)."""

    def __init__(self, seed):
        self.s = []
        x = seed
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
            self.s.append(z ^ (z >> 31))

    def next_u64(self):
        s = self.s
        r = (rotl((s[0] + s[3]) & M, 23) + s[0]) & M
        t = (s[1] << 17) & M
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return r


def task_rng(seed, piece, square, bits, stream):
    h = seed ^ 0x9E3779B97F4A7C15
    for word in (piece << 8 | square, bits, stream):
        h = splitmix(h ^ word)
    return Xoshiro256PlusPlus(h)


def sample(tasks, k, rng):
    """The first k draws of the sparse Fisher-Yates shuffle of 0..tasks."""
    moved = {}
    for i in range(min(k, tasks)):
        j = i + ((rng.next_u64() * (tasks - i)) >> 64)
        at_j, at_i = moved.get(j, j), moved.get(i, i)
        moved[j] = at_i
        moved.pop(i, None)
        yield at_j


def main(argv):
    if len(argv) != 7 or argv[1] not in PIECES:
        sys.exit("usage: sample-tasks.py rook|bishop SQUARE BITS TASK_BITS SEED K")
    sq = argv[2]
    if len(sq) != 2 or sq[0] not in "abcdefgh" or sq[1] not in "12345678":
        sys.exit(f"sample-tasks.py: not a square: {sq}")
    try:
        bits, task_bits, seed, k = (int(a) for a in argv[3:7])
    except ValueError:
        sys.exit("sample-tasks.py: BITS, TASK_BITS, SEED and K are whole numbers")
    if not 0 <= task_bits <= 63 or not 0 <= seed <= M or k < 0:
        sys.exit("sample-tasks.py: TASK_BITS 0 to 63, SEED a u64, K at least 0")
    square = (int(sq[1]) - 1) * 8 + ord(sq[0]) - ord("a")
    rng = task_rng(seed, PIECES[argv[1]], square, bits, STREAM)
    for task in sample(1 << task_bits, k, rng):
        print(task)


if __name__ == "__main__":
    main(sys.argv)
