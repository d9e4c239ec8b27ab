#!/usr/bin/env bash
# Runs `magichunt bench` and the yardstick (bench/yardstick: our own plain C magic finder, built
# in a temporary copy) side by side, interleaved, and prints medians and ratios: the figures for
# the README.
#
#   scripts/bench.sh [REPS]          # default 5 repetitions of each
#
# Environment: YARDSTICK (a folder with a Makefile that builds `baseline`; default
# bench/yardstick in this repo), MAGICHUNT (default: cargo build --release and
# target/release/magichunt).
set -euo pipefail
reps=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
yard_src=${YARDSTICK:-$here/bench/yardstick}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp -r "$yard_src"/. "$tmp/yard"
make -s -C "$tmp/yard" >/dev/null
if [[ -z ${MAGICHUNT:-} ]]; then
    (cd "$here" && cargo build --release --quiet)
    MAGICHUNT=$here/target/release/magichunt
fi
cores=$(nproc)

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
field() { awk -v k="$1" '$0 ~ "^"k" " {print $NF}'; }
json() { sed -e "s/.*\"$1\":\([^,}]*\).*/\1/"; }

for ((i = 0; i < reps; i++)); do
    "$tmp/yard/baseline" rook 0 11 40000000 1 >"$tmp/yr.$i" || true
    "$tmp/yard/baseline" bishop 27 8 80000000 1 >"$tmp/yb.$i" || true
    "$tmp/yard/baseline" all "$((i + 1))" | tail -1 >"$tmp/ya.$i"
    "$MAGICHUNT" bench --json --reps 1 --threads 1 >"$tmp/m1.$i"
    if ((cores > 1)); then "$MAGICHUNT" bench --json --reps 1 --threads "$cores" >"$tmp/mn.$i"; fi
done

y_rook_t=$(cat "$tmp"/yr.* | field "tested per second" | median)
y_rook_d=$(cat "$tmp"/yr.* | field "drawn per second" | median)
y_rook_c=$(cat "$tmp"/yr.* | field "checks per tested candidate" | median)
y_bish_t=$(cat "$tmp"/yb.* | field "tested per second" | median)
y_bish_d=$(cat "$tmp"/yb.* | field "drawn per second" | median)
y_all=$(cat "$tmp"/ya.* | awk '{for (i = 1; i < NF; i++) if ($i == "elapsed") print $(i + 2)}' | median)

report() { # label files
    local label=$1; shift
    local r rt rc b bt a br
    r=$(cat "$@" | json rook_a1_11_per_s | median)
    rt=$(cat "$@" | json rook_a1_11_tested_per_s | median)
    rc=$(cat "$@" | json rook_a1_11_checks_per_tested | median)
    b=$(cat "$@" | json bishop_d4_8_per_s | median)
    bt=$(cat "$@" | json bishop_d4_8_tested_per_s | median)
    a=$(cat "$@" | json all128_s | median)
    br=$(cat "$@" | json bishop_reduced_s | median)
    awk -v l="$label" -v r="$r" -v rt="$rt" -v rc="$rc" -v b="$b" -v bt="$bt" -v a="$a" -v br="$br" \
        -v yr="$y_rook_t" -v yb="$y_bish_t" -v ya="$y_all" 'BEGIN {
        printf "magichunt, %s\n", l
        printf "  rook_a1_11_per_s    %6.2f M/s (tested %6.2f M/s, %.1f checks/tested)  %.2fx the yardstick tested/s\n", r/1e6, rt/1e6, rc, r/yr
        printf "  bishop_d4_8_per_s   %6.2f M/s (tested %6.2f M/s)  %.2fx the yardstick tested/s\n", b/1e6, bt/1e6, b/yb
        printf "  all128_s            %8.4f s  (yardstick / magichunt = %.1fx)\n", a, ya/a
        printf "  bishop_reduced_s    %8.3f s\n", br
    }'
    echo "$r" >"$tmp/rate.$label"
}

echo "medians of $reps runs on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v t="$y_rook_t" -v d="$y_rook_d" -v c="$y_rook_c" -v b="$y_bish_t" -v bd="$y_bish_d" -v a="$y_all" 'BEGIN {
    printf "yardstick (1 thread)\n"
    printf "  rook a1 11 bits     %6.2f M/s tested (%6.2f M/s drawn, %.1f checks/tested)\n", t/1e6, d/1e6, c
    printf "  bishop d4 8 bits    %6.2f M/s tested (%6.2f M/s drawn)\n", b/1e6, bd/1e6
    printf "  all 128 popcount    %8.4f s\n", a
}'
report "1 thread" "$tmp"/m1.*
if ((cores > 1)); then
    report "$cores threads" "$tmp"/mn.*
    awk -v one="$(cat "$tmp/rate.1 thread")" -v all="$(cat "$tmp/rate.$cores threads")" -v n="$cores" \
        'BEGIN { printf "scaling: %d threads give %.2fx the rook candidates/s of 1 thread\n", n, all/one }'
fi
