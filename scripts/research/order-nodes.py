#!/usr/bin/env python3
"""How many nodes a bit-by-bit search for a magic visits, for several orders of the bits.

A node fixes some bits of the magic `m` (modulo the period 2^P). The unknown bits are always
one window [lo, hi), so a subset `X`'s product is `B + S * d` with `B = X * known`,
`S = X << lo` (mod 2^64) and `d` the window's value: its index is a step function of `d`.

A node is pruned when no value of the window can avoid a collision that is already certain:
- `exact`: two subsets whose indices no longer depend on `d` sit in one slot with different
  attack sets. Fixing the bits from the lowest up with this test is exhaust's tree.
- `sweep`: as `exact`, and the subsets whose index steps once over the window are placed by
  cutting the window at their steps; the node dies when every piece holds a collision.

Orders: `low` (bits 0 up: exhaust's order), `high` (bits P-1 down: the carries of the unknown
low bits are bounded), `low:K` (bits 0 to K-1, then from the top down to K: outside in).

The node count of each order's binary tree is estimated with Knuth's random probes (a walk
from the root that picks a surviving child at random; the product of the branchings is an
unbiased estimate of the tree's size). `--exact` counts the tree by depth-first search
instead, which checks the estimate on small questions. See docs/speed.md.

    scripts/research/order-nodes.py rook h3 10 --order low high low:9 --probes 400
    scripts/research/order-nodes.py bishop d8 4 --order low high --exact

Needs numpy.
"""
import argparse
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("order-nodes.py needs numpy (python3 -m pip install numpy, or apt install python3-numpy)")

M64 = (1 << 64) - 1
SLOT = 54  # the index is bits 54.. of the product for 10 bits; set from --bits below


def square(name):
    if len(name) != 2 or name[0] not in "abcdefgh" or name[1] not in "12345678":
        raise ValueError(f"not a square: {name!r}")
    return (ord(name[1]) - ord("1")) * 8 + ord(name[0]) - ord("a")


def rays(piece):
    if piece == "rook":
        return [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if piece == "bishop":
        return [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    raise ValueError(f"not a piece: {piece!r} (rook or bishop)")


def attacks(piece, sq, occ):
    """The slow reference: walk each ray until a blocker or the edge."""
    f0, r0 = sq % 8, sq // 8
    att = 0
    for df, dr in rays(piece):
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            att |= 1 << (r * 8 + f)
            if occ >> (r * 8 + f) & 1:
                break
            f, r = f + df, r + dr
    return att


def relevant_mask(piece, sq):
    f0, r0 = sq % 8, sq // 8
    mask = 0
    for df, dr in rays(piece):
        f, r = f0 + df, r0 + dr
        while 0 <= f + df < 8 and 0 <= r + dr < 8:
            mask |= 1 << (r * 8 + f)
            f, r = f + df, r + dr
    return mask


class Question:
    def __init__(self, piece, sq, bits):
        mask = relevant_mask(piece, sq)
        occs, sub = [], 0
        while True:  # carry-rippler
            occs.append(sub)
            sub = (sub - mask) & mask
            if sub == 0:
                break
        atts = [attacks(piece, sq, o) for o in occs]
        ids = {a: i for i, a in enumerate(sorted(set(atts)))}
        self.occ = np.array(occs, dtype=np.uint64)
        self.att = np.array([ids[a] for a in atts], dtype=np.int64)
        self.classes = len(ids)
        self.bits = bits
        self.shift = 64 - bits
        self.period = 64 - (mask & -mask).bit_length() + 1

    def collides(self, idx, att):
        """Some slot holds two different attack classes."""
        key = np.sort(idx.astype(np.int64) * self.classes + att)
        slot = key // self.classes
        return bool(np.any((slot[1:] == slot[:-1]) & (key[1:] != key[:-1])))

    def alive(self, known, lo, hi, sweep):
        """False when every value of the unknown window [lo, hi) meets a certain collision."""
        with np.errstate(over="ignore"):
            base = self.occ * np.uint64(known)
            slope = self.occ << np.uint64(lo) if lo < 64 else np.zeros_like(self.occ)
        width = hi - lo
        idx = base >> np.uint64(self.shift)
        if width == 0:
            return not self.collides(idx, self.att)
        room = (np.uint64(1) << np.uint64(self.shift)) - (base & np.uint64((1 << self.shift) - 1))
        span = (1 << width) - 1
        # the product moves by slope * span over the window: exact when that stays in the slot
        limit = (room - np.uint64(1)) // np.uint64(span)
        exact = slope <= limit
        if self.collides(idx[exact], self.att[exact]):
            return False
        if not sweep:
            return True
        # one step: slope * span < room + 2^shift, with slope > limit
        room2 = room + (np.uint64(1) << np.uint64(self.shift)) - np.uint64(1)
        one = ~exact & (slope <= room2 // np.uint64(span)) & (slope > 0)
        if not one.any():
            return True
        cut = np.array([-(-int(r) // int(s)) for r, s in zip(room[one], slope[one])], dtype=np.uint64)
        i_one = idx[one]
        a = np.concatenate([self.att[exact], self.att[one]])
        wrap = np.uint64((1 << self.bits) - 1)
        for start in [0] + sorted(set(cut.tolist())):
            moved = (i_one + (cut <= np.uint64(start)).astype(np.uint64)) & wrap
            if not self.collides(np.concatenate([idx[exact], moved]), a):
                return True
        return False


def path(q, order):
    """The bits in the order they are fixed, each with the window left unknown after it."""
    p = q.period
    if order == "low":
        seq = list(range(p))
    elif order == "high":
        seq = list(range(p - 1, -1, -1))
    elif order.startswith("low:"):
        k = int(order[4:])
        if not 0 <= k <= p:
            raise ValueError(f"low:K needs K in 0..{p}")
        seq = list(range(k)) + list(range(p - 1, k - 1, -1))
    else:
        raise ValueError(f"not an order: {order!r} (low, high, low:K)")
    steps, fixed = [], set()
    for b in seq:
        fixed.add(b)
        unknown = [x for x in range(p) if x not in fixed]
        lo, hi = (min(unknown), max(unknown) + 1) if unknown else (0, 0)
        assert hi - lo == len(unknown), "the unknown bits must stay one window"
        steps.append((b, lo, hi))
    return steps


def knuth(q, steps, probes, rng, sweep):
    total, sq = 0.0, 0.0
    for _ in range(probes):
        known, weight, est = 0, 1.0, 1.0
        for b, lo, hi in steps:
            kids = [v for v in (known, known | 1 << b) if q.alive(v, lo, hi, sweep)]
            if not kids:
                break
            weight *= len(kids)
            est += weight
            known = kids[rng.integers(len(kids))]
        total += est
        sq += est * est
    mean = total / probes
    err = ((sq / probes - mean * mean) / max(probes - 1, 1)) ** 0.5
    return mean, err


def exact_count(q, steps, sweep):
    count, magics, stack = 1, 0, [(0, 0)]
    while stack:
        known, depth = stack.pop()
        if depth == len(steps):
            magics += 1
            continue
        b, lo, hi = steps[depth]
        for v in (known, known | 1 << b):
            if q.alive(v, lo, hi, sweep):
                count += 1
                stack.append((v, depth + 1))
    return count, magics


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("piece")
    ap.add_argument("square")
    ap.add_argument("bits", type=int)
    ap.add_argument("--order", nargs="+", default=["low", "high"])
    ap.add_argument("--test", choices=["exact", "sweep", "both"], default="both")
    ap.add_argument("--probes", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact", action="store_true", help="count the tree by depth-first search")
    args = ap.parse_args()
    try:
        q = Question(args.piece, square(args.square), args.bits)
        plans = [(o, path(q, o)) for o in args.order]
    except ValueError as e:
        sys.exit(f"order-nodes.py: {e}")
    if not 1 <= args.bits <= 16 or args.probes < 1:
        sys.exit("order-nodes.py: bits must be 1 to 16 and probes at least 1")
    tests = ["exact", "sweep"] if args.test == "both" else [args.test]
    print(f"{args.piece} {args.square} at {args.bits} bits: {len(q.occ)} subsets, "
          f"{q.classes} attack sets, period 2^{q.period}")
    for order, steps in plans:
        for test in tests:
            if test == "sweep" and order == "low":
                continue  # nothing steps once when only high bits are unknown
            rng = np.random.default_rng(args.seed)
            if args.exact:
                n, magics = exact_count(q, steps, test == "sweep")
                print(f"  {order:8} {test:6} nodes {n:,}, magics {magics:,} (depth-first)")
            else:
                mean, err = knuth(q, steps, args.probes, rng, test == "sweep")
                print(f"  {order:8} {test:6} nodes {mean:.3e} +- {err:.1e} ({args.probes} probes)")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
