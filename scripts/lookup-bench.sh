#!/usr/bin/env bash
# Lookup micro-benchmark of the generated C header: the header of a revision before the
# single-header layout (static tables in every file) against the current one, in one file and
# split over two (lookups in one, tables in the other: extern data, as in a multi-file engine).
# Runs the three builds interleaved ROUNDS times and prints the median of their medians, in
# nanoseconds per pair of lookups (rook + bishop), for independent and dependent lookups.
#
#   scripts/lookup-bench.sh [ROUNDS]        # default 5
#
# Environment: BEFORE (a revision whose tests/golden/magics.h is the old layout; default
# 2a7bacf), CC (default cc), CFLAGS (default -O2). The current header is exported from the
# golden fixture store by target/release/magichunt (built if missing).
set -euo pipefail
rounds=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
before=${BEFORE:-2a7bacf}
cc=${CC:-cc}
read -r -a cflags <<<"${CFLAGS:--O2}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bin=$here/target/release/magichunt
[[ -x $bin ]] || (cd "$here" && cargo build --release --quiet)
mkdir -p "$tmp/old" "$tmp/new"
git -C "$here" show "$before:tests/golden/magics.h" >"$tmp/old/magics.h"
"$bin" export --format c --with-lookup --store "$here/tests/golden/store.json" \
    --out "$tmp/new/magics.h" 2>/dev/null
src=$here/scripts/lookup-bench
"$cc" "${cflags[@]}" -I"$tmp/old" "$src/bench.c" -o "$tmp/before"
"$cc" "${cflags[@]}" -I"$tmp/new" "$src/bench.c" -o "$tmp/one-file"
"$cc" "${cflags[@]}" -I"$tmp/new" -DSPLIT "$src/bench.c" "$src/impl.c" -o "$tmp/two-files"

builds=(before one-file two-files)
for ((i = 0; i < rounds; i++)); do
    for b in "${builds[@]}"; do "$tmp/$b" >"$tmp/$b.$i"; done
done

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "ns per rook+bishop lookup pair, median of $rounds rounds (each a median of 21 runs); $cc ${cflags[*]}"
printf '%-10s %12s %12s\n' build throughput latency
for b in "${builds[@]}"; do
    t=$(cat "$tmp/$b".* | awk '$1 == "throughput_ns" {print $2}' | median)
    l=$(cat "$tmp/$b".* | awk '$1 == "latency_ns" {print $2}' | median)
    printf '%-10s %12s %12s\n' "$b" "$t" "$l"
done
