#!/usr/bin/env python3
"""Is a packed table a first-fit table? (docs/log/2026-11-24-packing-calibration.md; issue 34)

    scripts/research/first-fit-order.py results/published/annuss-fixed-shift-2017.json
    scripts/research/first-fit-order.py results/packed-pool.json --order

Reads a packed table (every entry with its `offset`), builds every square's slots from its own
reference attacks (plain `(occ & mask) * magic` or black `(occ | ~mask) * magic`, shifted by
64 - bits; a slot may take a second square only with the same attack set) and prints:

1. the size first-fit reaches when the squares are placed in the order of their offsets;
2. the squares that sit past their first fit in that order: by how many slots, and how many
   offsets where they would fit they skip;
3. whether some order places every square at its first fit (found greedily: placing a square
   only blocks offsets, so a square at its first fit stays so; the greedy is stuck exactly when
   no such order exists), and with --order that order.

The packer's annealing searches orders decoded first-fit: when an order exists, the table lies
in its search space. It shares no code with magichunt; pure Python, a few seconds a table.
"""
import json
import sys

M64 = (1 << 64) - 1
ROOK = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP = [(1, 1), (1, -1), (-1, 1), (-1, -1)]


def square(name):
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def attacks(s, occ, dirs):
    a, f0, r0 = 0, s % 8, s // 8
    for df, dr in dirs:
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            a |= 1 << (r * 8 + f)
            if occ >> (r * 8 + f) & 1:
                break
            f, r = f + df, r + dr
    return a


def mask(s, dirs):
    m, f0, r0 = 0, s % 8, s // 8
    for df, dr in dirs:
        f, r = f0 + df, r0 + dr
        while 0 <= f + df < 8 and 0 <= r + dr < 8:
            m |= 1 << (r * 8 + f)
            f, r = f + df, r + dr
    return m


def slots(piece, s, magic, bits, black):
    """{index: attack set} of one magic, every subset of the mask (carry-rippler)."""
    dirs = ROOK if piece == "rook" else BISHOP
    m, sub, out = mask(s, dirs), 0, {}
    while True:
        key = (sub | (~m & M64)) if black else sub
        i = ((key * magic) & M64) >> (64 - bits)
        a = attacks(s, sub, dirs)
        if out.setdefault(i, a) != a:
            sys.exit(f"{piece} {s}: magic {magic:#x} is not valid")
        sub = (sub - m) & m
        if sub == 0:
            return out


def fits(held, pattern, base):
    return all(held.get(base + i, a) == a for i, a in pattern)


def first_fit(held, pattern, below=None):
    """Lowest offset where `pattern` fits; with `below`, every fitting offset under it."""
    base, found = 0, []
    while below is None or base < below:
        if fits(held, pattern, base):
            if below is None:
                return base
            found.append(base)
        base += 1
    return found


def main():
    args = [a for a in sys.argv[1:] if a != "--order"]
    if len(args) != 1:
        sys.exit(__doc__)
    table = json.load(open(args[0]))
    squares = []
    for e in table["entries"]:
        black = e.get("formula", table.get("formula", "plain")) == "black"
        pat = slots(e["piece"], square(e["square"]), int(e["magic"], 16), e["bits"], black)
        lo = min(pat)
        squares.append((e["offset"] + lo, sorted((i - lo, a) for i, a in pat.items()),
                        f"{e['piece']} {e['square']}"))
    size = max(b + p[-1][0] + 1 for b, p, _ in squares)
    print(f"{args[0]}: {len(squares)} squares, {size} entries")
    held, end = {}, 0
    for base, pat, name in sorted(squares):
        b = first_fit(held, pat)
        for i, a in pat:
            held[b + i] = a
        end = max(end, b + pat[-1][0] + 1)
    print(f"first-fit in the order of the offsets: {end} entries")
    held, past = {}, []
    for base, pat, name in sorted(squares):
        if not fits(held, pat, base):
            sys.exit(f"{name} overlaps another square: not a valid packed table")
        b = first_fit(held, pat)
        if b != base:
            skipped = first_fit(held, pat, below=base)
            past.append(f"{name} by {base - b} ({len(skipped)} fitting offsets skipped)")
        for i, a in pat:
            held[base + i] = a
    print(f"past their first fit in that order: {len(past)}")
    for p in past:
        print(f"  {p}")
    held, left, order = {}, list(range(len(squares))), []
    progress = True
    while left and progress:
        progress = False
        for k in list(left):
            base, pat, _ = squares[k]
            if all(not fits(held, pat, b) for b in range(base)):
                for i, a in pat:
                    held[base + i] = a
                left.remove(k)
                order.append(k)
                progress = True
    if left:
        print(f"no order places every square at its first fit: {len(left)} never are "
              f"({', '.join(squares[k][2] for k in left[:8])}{', ...' if len(left) > 8 else ''})")
    else:
        print("an order places every square at its first fit: the table is first-fit decodable")
        if "--order" in sys.argv:
            print(", ".join(f"{squares[k][2]} at {squares[k][0]}" for k in order))


if __name__ == "__main__":
    main()
