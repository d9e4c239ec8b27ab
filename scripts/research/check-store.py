#!/usr/bin/env python3
"""Check a finished `exhaust` campaign store (any order: low, high, trim or fold) with an
independent C walk (lowfirst-check.c, topdown-check.c or trim-check.c), block by block.

    scripts/research/check-store.py results/campaign/rook-d1-9.json --jobs 2

Each exhaust part keeps, for every block of its tasks in its search order (1,024 tasks for one
part of 2^18), the nodes exhaust entered there (its residue). A search run as M parts and
merged (`magichunt exhaust --shard K/M`, then `magichunt merge`) is checked part by part: part
K holds the tasks t with t mod M = K - 1, each part in its own scrambled order. This script
compiles the C walk of the store's order (scripts/research/lowfirst-check.c for low, the order
of a record that names none; topdown-check.c for high; trim-check.c for trim and, with --fold,
for fold: each written from the definition, not from magichunt's code), feeds it the tasks of a
few blocks at a time (the search order is exhaust's fixed scrambling, written again below from
its description in src/exhaust/campaign/shard.rs), and compares each range's node count with
the store's, so a disagreement is pinned to a few blocks. Each range's line, with the walk's
CPU time, is appended to the log (default results/checks/PIECE-SQUARE-BITS.txt) as soon as it
is done (the last line, once every range agrees, sums the CPU time), so an interrupted
check resumes where it stopped, whenever it is run again; ranges already in the log are not
run again.

A search that found magics is checked too. The C walk lists every magic it finds (folded: m
and P - m, each that is one by the definition), and each range's line names them. Where the
store knows the range's magics (a part that found none, or a range its list covers: a part
lists its magics from `found.from` on, see src/exhaust/campaign/found.rs), they must be the
C walk's. At the end the C walk's count over the whole period must be the store's, and every
magic the store lists must be among the C walk's; the full list is then written, one magic a
line, to --magics-out (default: the log's name with -magics.txt), which `magichunt exhaust
--add-found` reads to supply the magics the store's lists lack.

Exit 0 when every range is done and agrees, 1 on any disagreement, 2 on bad input, 3 when
ranges are left. SIGINT or SIGTERM (SIGINT also when started in the background, where it is
otherwise ignored) kills the running C walks, logs nothing for them, and exits 130 or 143.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINE = re.compile(r"^(?:part (\d+)/(\d+) )?search order (\d+) to (\d+): (\d+) nodes, (\d+) magics(?:, ([0-9.]+) CPU-s)?; "
                  r"exhaust (\d+) nodes, (\d+|\?) magics: (agree|DISAGREE)(?:; magics ((?:0x[0-9a-f]+)(?:, 0x[0-9a-f]+)*))?$")


def cpu_text(seconds):
    """CPU time in the unit that reads best: CPU-seconds, CPU-minutes or CPU-hours."""
    if seconds < 120:
        return f"{seconds:.1f} CPU-seconds"
    if seconds < 7200:
        return f"{seconds / 60:.1f} CPU-minutes"
    return f"{seconds / 3600:.1f} CPU-hours"


def parse(line):
    """A range's line of the log as ((part, first task), last task, nodes, agrees, the line,
    magics, the C walk's magics listed, the C walk's CPU seconds or None), or None. Lines
    written before the CPU time was logged (2026-12-02) have none."""
    m = LINE.match(line.strip())
    if not m:
        return None
    part = int(m.group(1) or 1)
    listed = [int(x, 16) for x in m.group(11).split(", ")] if m.group(11) else []
    cpu = float(m.group(7)) if m.group(7) else None
    return ((part, int(m.group(3))), int(m.group(4)), int(m.group(5)), m.group(10) == "agree", m.group(0),
            int(m.group(6)), listed, cpu)


# The C walk that checks each order, by the order's name in the store (none: low).
CHECKERS = {"low": "lowfirst-check", "high": "topdown-check", "trim": "trim-check", "fold": "trim-check"}
# Flags the C walk takes for an order (fold is trim-check.c's folded mode).
FLAGS = {"fold": ["--fold"]}
# The C walk lists the magics it finds when the store counts at most this many.
MOST_LISTED = 100000


def period_bits(piece, square):
    """log2 of the period: 64 less the lowest square of the piece's relevant mask (the rays
    without their last square), computed here from the rules."""
    sq = (int(square[1]) - 1) * 8 + "abcdefgh".index(square[0])
    dirs = [(1, 0), (-1, 0), (0, 1), (0, -1)] if piece == "rook" else [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    low = 64
    for df, dr in dirs:
        f, r = sq % 8 + df, sq // 8 + dr
        while 0 <= f + df < 8 and 0 <= r + dr < 8:
            low = min(low, r * 8 + f)
            f, r = f + df, r + dr
    return 64 - low


def task_of(order, period, task_bits, m):
    """The task whose subtree holds magic m: its low task bits in the low order, its top ones
    in the others; folded, the top bits of m or of P - m, whichever lies in the lower half (the
    half point is checked alone by the first task of the upper half)."""
    if task_bits == 0:
        return 0
    width = period - task_bits
    if order == "low":
        return m & ((1 << task_bits) - 1)
    if order == "fold":
        half = 1 << (period - 1)
        if m == half:
            return 1 << (task_bits - 1)
        return (m if m < half else (1 << period) - m) >> width
    return m >> width


def fail(msg):
    print(f"check-store: {msg}", file=sys.stderr)
    sys.exit(2)


def scramble(j, n):
    """exhaust's fixed bijection of 0..n: an odd multiply-add mod 2^b, then a right xorshift
    by ceil(b/2), walked until it lands below n (n <= 2: the identity)."""
    if n <= 2:
        return j
    b = (n - 1).bit_length()
    mask = (1 << b) - 1

    def mix(x):
        y = (x * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF & mask
        return y ^ (y >> ((b + 1) // 2))

    x = mix(j)
    while x >= n:
        x = mix(x)
    return x


def part_len(tasks, k, m):
    """Tasks of part k of m among `tasks` (part k holds the tasks t with t mod m = k - 1)."""
    return 0 if tasks <= k - 1 else -(-(tasks - (k - 1)) // m)


def block_len(n):
    """Tasks per residue block of a part of n tasks (at most 256 blocks)."""
    return max(1, -(-n // 256))


def load(path):
    try:
        with open(path) as f:
            store = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    records = [r for r in store.get("exhaust", []) if r.get("order", "low") in CHECKERS]
    if len(records) != 1:
        fail(f"{path}: expected one exhaust record (order low, high, trim or fold), found {len(records)}")
    rec = records[0]
    rec.setdefault("order", "low")
    shards = rec.get("shards")
    parts = sorted(rec.get("parts", []), key=lambda p: p.get("shard", 0))
    if not isinstance(shards, int) or shards < 1 or [p.get("shard") for p in parts] != list(range(1, shards + 1)) \
            or not all(p.get("done") for p in parts):
        fail(f"{path}: expected all {shards} parts finished; merge or finish the search first")
    out = []
    for p in parts:
        res = p.get("residue") or {}
        if res.get("scheme") != "magichunt-residue 1":
            fail(f"{path}: residue scheme {res.get('scheme')!r} is not one this script reads")
        try:
            nodes = [int(b.split(":")[1]) for b in res["blocks"]]
            block = int(res["block"])
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            fail(f"{path}: part {p['shard']}'s residue is not blocks of digest:nodes")
        if sum(nodes) != p.get("nodes"):
            fail(f"{path}: the blocks' nodes do not add up to part {p['shard']}'s")
        magics = p.get("magics")
        if not isinstance(magics, int) or magics < 0:
            fail(f"{path}: part {p['shard']}'s magics is not a count")
        try:
            found = p.get("found") or {"from": 0, "before": 0, "magics": []}
            own = [int(m, 16) for m in found["magics"]]
            supplied = [int(m, 16) for m in (p.get("supplied") or {}).get("magics", [])]
            start, before = int(found["from"]), int(found["before"])
        except (KeyError, TypeError, ValueError, AttributeError):
            fail(f"{path}: part {p['shard']}'s found or supplied list is not readable")
        if p.get("found") is None and magics > 0:
            start, before = None, magics  # begun before lists: nothing listed
        # The store knows a range's magics when the part found none, or when its own list
        # holds every magic from `from` on and the range begins there or later.
        whole = magics == 0 or (start is not None and before + len(own) == magics)
        out.append({"k": p["shard"], "block": block, "nodes": nodes, "magics": magics, "own": own,
                    "supplied": supplied, "from": start if whole else None})
    # The task bits are not stored: the one split whose parts have these blocks.
    fits = [n for n in range(65) if all(
        (block_len(part_len(1 << n, q["k"], shards)), -(-part_len(1 << n, q["k"], shards) // q["block"]))
        == (q["block"], len(q["nodes"])) for q in out)]
    if len(fits) != 1:
        fail(f"{path}: no single split into 2^N tasks has these parts' blocks")
    task_bits = fits[0]
    for q in out:
        q["len"] = part_len(1 << task_bits, q["k"], shards)
    return rec, shards, out, task_bits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("store")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--range-blocks", type=int, default=8, help="blocks per C run (default 8)")
    ap.add_argument("--log", help="default results/checks/PIECE-SQUARE-BITS.txt")
    ap.add_argument("--only", type=int, help="run at most this many ranges, then stop")
    ap.add_argument("--magics-out", help="where the C walk's magics go once all agree "
                    "(default: the log's name with -magics.txt; only when there are magics)")
    a = ap.parse_args()
    rec, shards, parts, task_bits = load(a.store)
    name = f"{rec['piece']}-{rec['square']}-{rec['bits']}"
    log = a.log or os.path.join(ROOT, "results", "checks", name + ".txt")
    period = period_bits(rec["piece"], rec["square"])
    counted = sum(q["magics"] for q in parts)
    listing = counted <= MOST_LISTED
    log = os.path.abspath(log)
    os.makedirs(os.path.dirname(log), exist_ok=True)
    done = {}
    if os.path.exists(log):
        for line in open(log):
            got = parse(line)
            if got:
                done[got[0]] = got
    # A range: (part, first task, end) in the part's search order, a run of --range-blocks blocks.
    ranges = [(q["k"], lo, min(lo + a.range_blocks * q["block"], q["len"]))
              for q in parts for lo in range(0, q["len"], a.range_blocks * q["block"])]
    for (k, lo), last, *_ in done.values():
        if (k, lo, last + 1) not in ranges:
            fail(f"{log} was written with another --range-blocks or split; give the ones it was begun with")
    todo = [r for r in ranges if (r[0], r[1]) not in done]
    if a.only is not None:
        todo = todo[: a.only]
    checker = CHECKERS[rec["order"]]
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, checker)
    try:
        subprocess.run(["cc", "-O3", "-march=native", "-o", exe, os.path.join(ROOT, f"scripts/research/{checker}.c")], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"cannot build {checker}.c: {e}")
    if not os.path.exists(log):
        with open(log, "w") as f:
            split = f", {shards} parts" if shards > 1 else ""
            f.write(f"# {name}: {checker}.c against {os.path.relpath(a.store, ROOT)}, 2^{task_bits} tasks{split}\n")

    stopping = threading.Event()
    stop_code = 130
    walks = set()
    walks_lock = threading.Lock()

    def kill_walks():
        # No new range begins, the running walks are killed, and their ranges are not logged
        # (a killed walk's counts are partial), so the log keeps only ranges that finished.
        stopping.set()
        with walks_lock:
            for p in walks:
                p.kill()

    def stop(signum, _frame):
        nonlocal stop_code
        stop_code = 128 + signum
        kill_walks()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def want_of(r):
        # The nodes the store counts in range r: the sum of its residue blocks.
        k, lo, hi = r
        q = parts[k - 1]
        return sum(q["nodes"][lo // q["block"]: -(-hi // q["block"])])

    def run(r):
        if stopping.is_set():
            return None
        k, lo, hi = r
        q = parts[k - 1]
        numbers = [k - 1 + scramble(j, q["len"]) * shards for j in range(lo, hi)]
        tasks = "".join(f"{t}\n" for t in numbers)
        label = f"part {k}/{shards} " if shards > 1 else ""
        flags = [*FLAGS.get(rec["order"], []), *(["--list"] if listing else [])]
        # The walk writes to files, not pipes, so that it can be reaped by os.wait4, which
        # gives its CPU time.
        with tempfile.TemporaryFile("w+") as fout, tempfile.TemporaryFile("w+") as ferr:
            with walks_lock:
                if stopping.is_set():
                    return None
                proc = subprocess.Popen([exe, *flags, rec["piece"], rec["square"], str(rec["bits"]),
                                         str(task_bits), "-"], stdin=subprocess.PIPE, stdout=fout,
                                        stderr=ferr, text=True)
                walks.add(proc)
            status = None
            try:
                try:
                    proc.stdin.write(tasks)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass  # the walk ended early: its exit code says why
                _, status, usage = os.wait4(proc.pid, 0)
            finally:
                with walks_lock:
                    if status is not None:
                        # Reaped: a later kill must not signal the pid, which may be reused.
                        proc.returncode = os.waitstatus_to_exitcode(status)
                    walks.discard(proc)
            cpu = usage.ru_utime + usage.ru_stime
            fout.seek(0)
            ferr.seek(0)
            out, err = fout.read(), ferr.read()
        if stopping.is_set():
            return None
        m = re.search(r": (\d+) magics, (\d+) nodes", out)
        if proc.returncode != 0 or not m:
            raise RuntimeError(f"{checker} on {label}search order {lo} to {hi - 1} failed "
                               f"(exit {proc.returncode}): {err.strip()}")
        got_magics, got_nodes = int(m.group(1)), int(m.group(2))
        found = sorted(int(x, 16) for x in re.findall(r"^magic (0x[0-9a-f]+)$", out, re.M))
        if listing and len(found) != got_magics:
            raise RuntimeError(f"{checker} on {label}search order {lo} to {hi - 1} counted {got_magics} magics "
                               f"but listed {len(found)}")
        want = want_of(r)
        # The store's magics of the range, where it knows them.
        if q["from"] is not None and lo >= q["from"]:
            inside = set(numbers)
            known = sorted(x for x in q["own"] + q["supplied"]
                           if task_of(rec["order"], period, task_bits, x) in inside)
        else:
            known = None
        ok = got_nodes == want and (known is None or known == found)
        tail = "; magics " + ", ".join(f"{x:#018x}" for x in found) if found else ""
        return (f"{label}search order {lo} to {hi - 1}: {got_nodes} nodes, {got_magics} magics, {cpu:.1f} CPU-s; "
                f"exhaust {want} nodes, "
                f"{'?' if known is None else len(known)} magics: {'agree' if ok else 'DISAGREE'}{tail}")

    pool = ThreadPoolExecutor(max_workers=a.jobs)
    try:
        futures = [pool.submit(run, r) for r in todo]
        # The progress line: CPU time left, at the CPU seconds a node of the ranges that logged
        # theirs, over the nodes the store counts in the ranges still running or waiting.
        timed = [(got[2], got[7]) for got in done.values() if got[7] is not None]
        pending = {(r[0], r[1]): want_of(r) for r in ranges if (r[0], r[1]) not in done}
        for fut in as_completed(futures):
            line = fut.result()
            if line is None:
                continue
            with open(log, "a") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
            print(line, flush=True)
            got = parse(line)
            pending.pop(got[0], None)
            timed.append((got[2], got[7]))
            rate = sum(c for _, c in timed) / max(1, sum(n for n, _ in timed))
            print(f"  {len(ranges) - len(pending)} of {len(ranges)} ranges logged; about "
                  f"{cpu_text(rate * sum(pending.values()))} left", flush=True)
    except RuntimeError as e:
        # A failed walk: the others are stopped too rather than waited for.
        kill_walks()
        pool.shutdown(wait=False, cancel_futures=True)
        fail(str(e))
    finally:
        pool.shutdown(wait=True)
        os.unlink(exe)
        os.rmdir(tmp)
    if stopping.is_set():
        print("check-store: stopped; the log keeps the ranges that finished, and the same command resumes",
              file=sys.stderr)
        sys.exit(stop_code)
    lines = {}
    for line in open(log):
        got = parse(line)
        if got:
            lines[got[0]] = got
    bad = [got[4] for got in lines.values() if not got[3]]
    left = [r for r in ranges if (r[0], r[1]) not in lines]
    total = sum(got[2] for got in lines.values())
    if bad:
        print(f"check-store: {len(bad)} ranges disagree:", *bad, sep="\n", file=sys.stderr)
        sys.exit(1)
    if left:
        print(f"check-store: {len(ranges) - len(left)} of {len(ranges)} ranges agree so far; run again to go on")
        sys.exit(3)
    want = sum(sum(q["nodes"]) for q in parts)
    if total != want:
        print(f"check-store: ranges add to {total} nodes, the store says {want}", file=sys.stderr)
        sys.exit(1)
    walked = sum(got[5] for got in lines.values())
    if walked != counted:
        print(f"check-store: the C walk found {walked} magics in the period, the store counts {counted}",
              file=sys.stderr)
        sys.exit(1)
    magics = sorted(x for got in lines.values() for x in got[6])
    listed = sorted(set(x for q in parts for x in q["own"] + q["supplied"]))
    if counted and listing:
        if len(magics) != walked:
            print(f"check-store: the log lists {len(magics)} of the C walk's {walked} magics (a range logged "
                  f"without them?)", file=sys.stderr)
            sys.exit(1)
        missing = sorted(set(listed) - set(magics))
        if missing:
            print(f"check-store: the store lists {len(missing)} magics the C walk did not find: "
                  + ", ".join(f"{x:#018x}" for x in missing), file=sys.stderr)
            sys.exit(1)
    if counted:
        how = f"{walked} magics (residues modulo 2^{period}), as exhaust counted"
        how += f"; the {len(listed)} the store lists among them" if listing else "; not listed (too many)"
    else:
        how = "0 magics, as exhaust found"
    summary = f"{name}: all {len(ranges)} ranges agree: {total} nodes, {how}"
    timed = [got[7] for got in lines.values() if got[7] is not None]
    if timed:
        of = "" if len(timed) == len(ranges) else f" in the {len(timed)} ranges that logged it"
        summary += f"; the C walk took {cpu_text(sum(timed))}{of}"
    if not any(line.startswith("# done") for line in open(log)):
        with open(log, "a") as f:
            if counted and listing:
                f.write(f"# magics ({walked}): " + ", ".join(f"{x:#018x}" for x in magics) + "\n")
            f.write(f"# done: {summary}\n")
    if counted and listing:
        out = a.magics_out or (log[:-4] if log.endswith(".txt") else log) + "-magics.txt"
        tmp_out = out + ".tmp"
        with open(tmp_out, "w") as f:
            f.write(f"# {name}: the {walked} magics {checker}.c found in the whole period (residues modulo "
                    f"2^{period}), {os.path.relpath(log, ROOT)}\n")
            for x in magics:
                f.write(f"{x:#018x}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_out, out)
        print(f"check-store: the C walk's magics written to {out}")
    print("check-store:", summary)


if __name__ == "__main__":
    main()
