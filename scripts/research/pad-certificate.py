#!/usr/bin/env python3
"""A large valid LRAT certificate, to measure the checker on one (docs/trust.md, issue 32).

Pads a real certificate with redundant steps that each copy a clause of the CNF (its literals
rotated; the one hint is that clause, so the step is a RUP consequence), then the real proof
with its learned ids shifted past the padding. With `delete`, every padding step deletes the
one before it (the clauses alive stay few); with `keep`, none is deleted (as in magichunt's own
certificates, trimmed to the steps the empty clause needs).

    magichunt prove --piece bishop --square h8 --bits 4 --emit-cnf h8.cnf
    scripts/research/pad-certificate.py h8.cnf results/proofs/bishop-h8-4.lrat.gz big.lrat.gz \\
        1000000000 delete
    mkdir -p s/proofs && cp results/best.json s/ && cp big.lrat.gz s/proofs/bishop-h8-4.lrat.gz
    MAGICHUNT_CACHE=off /usr/bin/time -v magichunt prove --piece bishop --square h8 --bits 4 \\
        --store s/best.json --check-certificates

The fourth argument is the size of gzip wanted (about). It needs `gzip` on PATH; 1 GB takes
some minutes.
"""
import gzip
import subprocess
import sys
import zlib


def main():
    if len(sys.argv) != 6 or sys.argv[5] not in ("delete", "keep"):
        sys.exit(__doc__)
    cnf_path, cert, out, target, mode = sys.argv[1:]
    delete = mode == "delete"
    clauses = [l.split()[:-1] for l in open(cnf_path) if not l.startswith(("c", "p"))]
    n = len(clauses)

    def padding(start, count):
        buf = []
        for i in range(start, start + count):
            idx = n + 1 + i
            c = (i * 7919) % n
            lits = clauses[c]
            r = i % len(lits)
            buf.append(f"{idx} {' '.join(lits[r:] + lits[:r])} 0 {c + 1} 0\n")
            if delete and i > 0:
                buf.append(f"{idx} d {idx - 1} 0\n")
        return "".join(buf).encode()

    sample = padding(0, 200_000)
    ratio = len(sample) / len(zlib.compress(sample, 6))
    steps = int(int(target) * ratio / (len(sample) / 200_000))
    print(f"{steps} padding steps ({len(sample) / 200_000:.1f} bytes each, gzip ratio {ratio:.2f})",
          file=sys.stderr)
    proc = subprocess.Popen(["gzip", "-6"], stdin=subprocess.PIPE, stdout=open(out, "wb"))
    text = 0
    done = 0
    while done < steps:
        k = min(200_000, steps - done)
        chunk = padding(done, k)
        proc.stdin.write(chunk)
        text += len(chunk)
        done += k
    for line in gzip.open(cert, "rt"):
        parts = line.split()
        new = [str(int(parts[0]) + steps)]
        if parts[1] == "d":
            new.append("d")
            new += [str(int(x) + steps) if int(x) > n else x for x in parts[2:]]
        else:
            zeros = 0
            for x in parts[1:]:
                v = int(x)
                if v == 0:
                    zeros += 1
                elif zeros == 1 and v > n:
                    v += steps
                new.append(str(v))
        line = " ".join(new) + "\n"
        proc.stdin.write(line.encode())
        text += len(line)
    proc.stdin.close()
    proc.wait()
    print(f"{text} bytes of LRAT", file=sys.stderr)


if __name__ == "__main__":
    main()
