#!/usr/bin/env python3
"""Lists the `crate::` edges between the modules of src/ and reports the cycles among them.

Imports should run one way (a shared helper lives in the room below all its users), so a
cycle is a helper in the wrong room. Run from the repository root:

    scripts/module-cycles.py                      # top-level modules, tests included
    scripts/module-cycles.py --no-tests           # leave out tests.rs files and #[cfg(test)] parts
    scripts/module-cycles.py --depth 2 --edges    # one level deeper (export::tables, ...), every edge

An edge is any `use crate::X...` or `crate::X::...` path in a file of module A naming an item
of module X (crate-root re-exports such as `crate::Square` count as their module). Exit 0
when there is no cycle, 1 otherwise (each cycle listed with the files that make its edges).
"""
import os, re, sys, argparse

def module_of(path):
    rel = os.path.relpath(path, "src")[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return rel

def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(l.split("//")[0] if not l.strip().startswith("//") else "" for l in text.splitlines())

def expand_use(tree):
    """Expands a use tree `a::{b, c::{d}}` into paths."""
    tree = tree.strip()
    m = re.match(r"^([\w:]*?)(::)?\{(.*)\}$", tree, re.S)
    if not m:
        return [tree.split(" as ")[0].strip()]
    prefix, body = m.group(1), m.group(3)
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "{": depth += 1
        if ch == "}": depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur); cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            for sub in expand_use(p):
                out.append(prefix + "::" + sub if prefix else sub)
    return out

ROOT_REEXPORTS = {}

def refs(path, no_tests):
    text = open(path).read()
    if no_tests:
        if os.path.basename(path) == "tests.rs":
            return []
        i = text.find("#[cfg(test)]")
        if i >= 0:
            text = text[:i]
    text = strip_comments(text)
    out = []
    for m in re.finditer(r"\buse\s+crate::(.*?);", text, re.S):
        out += expand_use(m.group(1))
    for m in re.finditer(r"(?<![\w:])crate::((?:\w+::)*\w+)", text):
        out.append(m.group(1))
    return out

def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--depth", type=int, default=1, help="module depth: 1 = top-level modules")
    ap.add_argument("--no-tests", action="store_true", help="leave out tests.rs files and #[cfg(test)] parts")
    ap.add_argument("--edges", action="store_true", help="print every edge")
    a = ap.parse_args()
    files = []
    for d, _, fs in os.walk("src"):
        files += [os.path.join(d, f) for f in fs if f.endswith(".rs")]
    mods = {tuple(module_of(f)) for f in files}
    # crate-root re-exports (`pub use x::Y;` in lib.rs)
    lib = strip_comments(open("src/lib.rs").read())
    for m in re.finditer(r"pub use\s+(.*?);", lib, re.S):
        for p in expand_use(m.group(1)):
            segs = p.split("::")
            ROOT_REEXPORTS[segs[-1]] = segs[:-1]
    def resolve(segs):
        if segs and segs[0] in ROOT_REEXPORTS and (segs[0],) not in mods:
            segs = ROOT_REEXPORTS[segs[0]] + segs[1:]
        # longest prefix that is a module
        for n in range(len(segs), 0, -1):
            if tuple(segs[:n]) in mods:
                return segs[:n]
        return None
    edges = {}
    for f in sorted(files):
        src = module_of(f)
        if not src:
            continue
        for r in refs(f, a.no_tests):
            tgt = resolve(r.split("::"))
            if not tgt:
                continue
            s, t = "::".join(src[:a.depth]), "::".join(tgt[:a.depth])
            if s != t and not ("::".join(src).startswith(t + "::") or "::".join(tgt).startswith(s + "::")):
                edges.setdefault(s, {}).setdefault(t, set()).add(os.path.relpath(f, "src"))
    if a.edges:
        for s in sorted(edges):
            for t in sorted(edges[s]):
                print(f"{s} -> {t}   ({', '.join(sorted(edges[s][t]))})")
    # Tarjan
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
    nodes = set(edges) | {t for s in edges for t in edges[s]}
    sys.setrecursionlimit(10000)
    def strong(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1:
                sccs.append(sorted(comp))
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    if not sccs:
        print("no cycles")
        return 0
    for comp in sccs:
        print("cycle among: " + ", ".join(comp))
        for s in comp:
            for t in sorted(edges.get(s, {})):
                if t in comp:
                    print(f"  {s} -> {t}   ({', '.join(sorted(edges[s][t]))})")
    return 1

sys.exit(main())
