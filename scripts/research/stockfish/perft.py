#!/usr/bin/env python3
"""perft.py ROUNDS DEPTHS BIN...: an interleaved perft of the standard positions by each Stockfish
binary (built by build.sh), every count checked against the known one; CPU seconds (user +
system) per binary per round on one core (CPU, default 1), medians and quartiles, and the ratio
to the first binary within each round. Round 0 warms up and is not counted."""
import os, resource, subprocess, sys, statistics
POS = [("startpos", "startpos", [20,400,8902,197281,4865609,119060324]),
 ("kiwipete", "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48,2039,97862,4085603,193690690]),
 ("pos3", "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14,191,2812,43238,674624,11030083,178633661]),
 ("pos4", "fen r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6,264,9467,422333,15833292,706045033]),
 ("pos5", "fen rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44,1486,62379,2103487,89941194]),
 ("pos6", "fen r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46,2079,89890,3894594,164075551])]
rounds = int(sys.argv[1]); depths = [int(d) for d in sys.argv[2].split(",")]; bins = sys.argv[3:]
cmds = "".join(f"position {p}\ngo perft {d}\n" for (_, p, _), d in zip(POS, depths)) + "quit\n"
want = [c[d-1] for (_, _, c), d in zip(POS, depths)]
cpu = {b: [] for b in bins}
def used():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
for r in range(rounds + 1):
    k = r % len(bins)
    for b in bins[k:] + bins[:k]:
        t0 = used()
        out = subprocess.run(["taskset", "-c", os.environ.get("CPU", "1"), b], input=cmds, capture_output=True, text=True).stdout
        t = used() - t0
        got = [int(l.split(":")[1]) for l in out.splitlines() if l.startswith("Nodes searched")]
        if got != want:
            sys.exit(f"{b}: perft counts {got}, not {want}")
        if r: cpu[b].append(t)   # round 0 warms up
def q(v): v = sorted(v); return statistics.quantiles(v, n=4, method="inclusive") if len(v) > 1 else [v[0]] * 3
print(f"perft {depths} (start, kiwipete, pos3..pos6): {sum(want)} leaves, every count exact; {rounds} rounds after a warm-up, CPU seconds")
base = bins[0]
for b in bins:
    c = q(cpu[b]); rr = q([x / y for x, y in zip(cpu[b], cpu[base])])
    print(f"{os.path.basename(b):24} {c[1]:7.3f} s ({c[0]:.3f} .. {c[2]:.3f})   ratio {rr[1]:.3f} ({rr[0]:.3f} .. {rr[2]:.3f})")
