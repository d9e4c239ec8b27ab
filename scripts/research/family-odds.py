#!/usr/bin/env python3
"""How often a random magic keeps each family of rook h3's subsets collision-free at 10 bits.

The families are the rank part R (the 64 subsets of b3..g3) and then F x R with F over the
first k file squares (h4, then h5, h6, h7), without h2. P(valid) for random 64-bit magics does
not depend on any search order, so it bounds what a search that fixes the bits a family needs
(and no more) could prune: see docs/log/2026-11-24-low-masks.md, "Left for the next step".

    scripts/research/family-odds.py [CHUNKS]    # CHUNKS x 100,000 magics (default 20), seed 1

Needs numpy. About 3 s a chunk.
"""
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("family-odds.py needs numpy (python3 -m pip install numpy, or apt install python3-numpy)")

FILE = [31, 39, 47, 55]  # h4 h5 h6 h7, nearest to h3 first
RANK = [22, 21, 20, 19, 18, 17]  # g3 f3 e3 d3 c3 b3, nearest first
BITS = 10


def subsets(squares):
    for k in range(1 << len(squares)):
        yield sum(1 << s for i, s in enumerate(squares) if k >> i & 1)


def nearest(occ, squares):
    """Index of the nearest blocker on a ray (len(squares) when none): the attack's class."""
    return next((i for i, s in enumerate(squares) if occ >> s & 1), len(squares))


def family(k):
    pairs = [(f | r, nearest(f, FILE) * 8 + nearest(r, RANK))
             for f in subsets(FILE[:k]) for r in subsets(RANK)]
    occ, att = zip(*pairs)
    return np.array(occ, dtype=np.uint64), np.array(att, dtype=np.uint64)


def valid(magics, occ, att):
    """Per magic: no slot holds two subsets with different attack sets."""
    with np.errstate(over="ignore"):
        idx = (magics[:, None] * occ[None, :]) >> np.uint64(64 - BITS)
    key = np.sort(idx * np.uint64(64) + att[None, :], axis=1)
    same_slot = (key[:, 1:] >> np.uint64(6)) == (key[:, :-1] >> np.uint64(6))
    return ~np.any(same_slot & (key[:, 1:] != key[:, :-1]), axis=1)


def main():
    try:
        chunks = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    except ValueError:
        sys.exit(f"family-odds.py: CHUNKS must be a whole number, not {sys.argv[1]!r}")
    if chunks < 1:
        sys.exit("family-odds.py: CHUNKS must be at least 1")
    rng = np.random.default_rng(1)
    families = [family(k) for k in range(len(FILE) + 1)]
    kept = np.zeros(len(families), dtype=np.int64)
    n = 0
    for _ in range(chunks):
        magics = rng.integers(0, 2**64, size=100_000, dtype=np.uint64)
        n += len(magics)
        alive = np.ones(len(magics), dtype=bool)
        for k, fam in enumerate(families):
            alive &= valid(magics, *fam)
            kept[k] += alive.sum()
    names = ["R", "h4 x R", "h4 h5 x R", "h4 h5 h6 x R", "h4 h5 h6 h7 x R"]
    for name, (occ, _), c in zip(names, families, kept):
        print(f"{name:16} {len(occ):5} subsets  P(valid) = {c / n:.3e}  ({c} of {n})")


if __name__ == "__main__":
    main()
