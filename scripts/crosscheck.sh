#!/usr/bin/env bash
# scripts/crosscheck.sh: check every SAT certificate of a store with a second, independent
# checker: `rate` (github.com/krobelus/rate, a DRAT checker that re-derives every step by its
# own unit propagation, ignoring our hints), after turning each LRAT certificate into DRAT.
#
#   scripts/crosscheck.sh [STORE]        default results/best.json
#
# Needs `rate` on PATH (`cargo install rate`) and python3. For each proof whose method is SAT
# it writes the question's CNF with `magichunt prove --emit-cnf` (whose SHA-256 the proof
# records), converts the certificate, and runs rate. Exits 1 if any certificate fails.
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-results/best.json}
command -v rate >/dev/null || { echo "crosscheck.sh: rate not found (cargo install rate)" >&2; exit 2; }
bin=target/release/magichunt
[[ -x $bin ]] || cargo build --release --locked --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$(dirname "$store")
fail=0 n=0
# One line per SAT part: piece square bits formula shard shards certificate sha256.
while read -r piece square bits formula shard shards cert sha; do
  n=$((n + 1))
  "$bin" prove --piece "$piece" --square "$square" --bits "$bits" --formula "$formula" --shard "$shard/$shards" \
    --store "$store" --emit-cnf "$tmp/q.cnf" 2>/dev/null
  got=$(sha256sum "$tmp/q.cnf" | cut -d' ' -f1)
  if [[ $got != "$sha" ]]; then
    echo "FAIL $piece $square $bits part $shard/$shards: the CNF hashes to $got, the proof names $sha"
    fail=$((fail + 1)); continue
  fi
  # LRAT "id lits 0 hints 0" -> DRAT "lits 0"; deletions "id d ids 0" -> "d lits 0".
  gzip -dc "$dir/$cert" | python3 -c '
import sys
clauses = {}
for line in sys.stdin:
    t = line.split()
    if not t or t[0] == "c":
        continue
    if t[1] == "d":
        for i in t[2:-1]:
            c = clauses.pop(int(i), None)
            if c is not None:
                print("d", c, "0")
        continue
    k = t.index("0", 1)
    c = " ".join(t[1:k])
    clauses[int(t[0])] = c
    print(c + " 0" if c else "0")
' >"$tmp/q.drat"
  if out=$(rate "$tmp/q.cnf" "$tmp/q.drat" 2>&1) && grep -q "^s VERIFIED" <<<"$out"; then
    echo "ok   $piece $square $bits part $shard/$shards: $cert (rate: VERIFIED)"
  else
    echo "FAIL $piece $square $bits part $shard/$shards: $cert: $(tail -n 1 <<<"$out")"
    fail=$((fail + 1))
  fi
done < <(python3 - "$store" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for x in s.get("sat", []):
    for p in x["parts"]:
        if p.get("result") == "unsat":
            print(x["piece"], x["square"], x["bits"], x.get("formula", "plain"), p["shard"],
                  x["shards"], p["certificate"], p["cnf_sha256"])
PY
)
echo "crosscheck: $((n - fail)) of $n certificates verified by rate"
((fail == 0))
