#!/usr/bin/env bash
# scripts/audit-catch.sh: how much of a forged exhaustive part `magichunt audit --sample N`
# catches (issue 23, point 2), measured on rook f7 at 8 bits (a whole search takes seconds).
#
#   scripts/audit-catch.sh [--bin PATH] [--seeds S] [K...]
#
# For each K (default 1 26 128 256), a copy of results/campaign/rook-f7-8.json gets K of its
# 256 residue blocks forged: the node counts kept (so the record fits and merge lets it in),
# the digests changed, as by a machine that skipped those blocks. Then `audit --sample N`
# runs with S seeds (default 40) for N = 1, 2, 8, 32, and the share of audits that fail
# (exit 1) is printed beside the expected 1 - C(256-K, N) / C(256, N).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="" seeds=40 ks=()
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) ks+=("$1"); shift ;;
  esac
done
((${#ks[@]})) || ks=(1 26 128 256)
if [[ -z $bin ]]; then
  cargo build --release --locked --quiet
  bin=target/release/magichunt
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MAGICHUNT_CACHE=off
printf '%5s %4s %8s %8s\n' K N caught expected
for k in "${ks[@]}"; do
  python3 - "$k" >"$tmp/forged.json" <<'EOF'
import json, random, sys
k = int(sys.argv[1])
v = json.load(open("results/campaign/rook-f7-8.json"))
blocks = v["exhaust"][0]["parts"][0]["residue"]["blocks"]
for b in random.Random(k).sample(range(len(blocks)), k):
    digest, nodes = blocks[b].split(":")
    blocks[b] = "%016x:%s" % (int(digest, 16) ^ 0x5a5a, nodes)
json.dump(v, sys.stdout)
EOF
  for n in 1 2 8 32; do
    caught=0
    for ((seed = 1; seed <= seeds; seed++)); do
      status=0
      "$bin" audit --store "$tmp/forged.json" --sample "$n" --seed "$seed" --threads 1 \
        >/dev/null 2>&1 || status=$?
      case $status in
        0) ;;
        1) caught=$((caught + 1)) ;;
        *) echo "audit-catch: audit exited $status" >&2; exit "$status" ;;
      esac
    done
    expected=$(python3 -c "from math import comb; print(f'{1 - comb(256 - $k, $n) / comb(256, $n):.3f}')")
    printf '%5s %4s %8s %8s\n' "$k" "$n" "$(python3 -c "print(f'{$caught / $seeds:.3f}')")" "$expected"
  done
done
