#!/usr/bin/env python3
"""Where the entries of packed tables are: slots written per square, side by side.

    scripts/research/slots-per-square.py results/packed-fixed.json \\
        results/published/annuss-fixed-shift-2017.json

Reads packed tables (every entry with its `offset`), builds every square's slots from its own
reference attacks (plain `(occ & mask) * magic` or black `(occ | ~mask) * magic`, shifted by
64 - bits), and prints, for the tables in the order given:

1. per table: the array's size, the slots written (rooks + bishops), the holes (free slots
   inside the array: size minus slots), and the squares whose magic is the first table's;
2. the slots each square writes, as Markdown rows per rank, `first / second / ...`, rooks then
   bishops, with the sums.

It shares no code with magichunt (the geometry of scripts/research/first-fit-order.py);
pure Python, a few seconds a table.
"""
import importlib.util
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("ffo", os.path.join(here, "first-fit-order.py"))
ffo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ffo)


def load(path):
    table = json.load(open(path))
    black = table.get("formula") == "black"
    out = {}
    for e in table["entries"]:
        magic, bits = int(e["magic"], 16), int(e["bits"])
        s = ffo.square(e["square"])
        slots = ffo.slots(e["piece"], s, magic, bits, black)
        out[(e["piece"], s)] = (magic, int(e["offset"]), slots)
    return out


def main():
    paths = sys.argv[1:]
    if not paths:
        sys.exit(__doc__)
    tables = [load(p) for p in paths]
    for path, t in zip(paths, tables):
        taken = {}
        for (piece, s), (magic, offset, slots) in t.items():
            for i, a in slots.items():
                if taken.setdefault(offset + i, a) != a:
                    sys.exit(f"{path}: {piece} {s} overlaps another square")
        size = max(taken) + 1
        used = {p: sum(len(v[2]) for k, v in t.items() if k[0] == p) for p in ("rook", "bishop")}
        same = sum(1 for k, v in t.items() if tables[0].get(k, (None,))[0] == v[0])
        print(
            f"{path}: {size} entries, {len(taken)} slots written ({used['rook']} rook + "
            f"{used['bishop']} bishop), {size - len(taken)} holes; {same} magics as in {paths[0]}"
        )
    for piece in ("rook", "bishop"):
        sums = [sum(len(v[2]) for k, v in t.items() if k[0] == piece) for t in tables]
        print(f"\n**{piece}s** (sums: {' / '.join(map(str, sums))}):\n")
        print("| rank | a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|---|")
        for rank in range(7, -1, -1):
            cells = []
            for f in range(8):
                k = (piece, rank * 8 + f)
                cells.append(" / ".join(str(len(t[k][2])) if k in t else "-" for t in tables))
            print(f"| {rank + 1} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
