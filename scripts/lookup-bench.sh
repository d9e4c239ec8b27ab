#!/usr/bin/env bash
# The lookup benchmark: magichunt's exported tables against what engines use instead, in one
# run, alternating, on one core. Backends (scripts/lookup-bench/backends.h): fancy (the
# store's magics, 2^bits per square; the yardstick), packed (one shared array of 8-byte
# entries), byte (the one-byte packed layout), fixed (a fixed-shift packed table, looked up
# with the shift in the code), pext (PEXT bitboards, when the compiler targets BMI2) and hq
# (hyperbola quintessence with a 512-byte rank table). Workloads: random (square, occupancy)
# pairs; the replay of the lookups a perft of the standard positions asks for, recorded by
# the same program; and the perft itself. Before any timing, every backend is checked against
# the reference on every blocker subset and by perft (exact known counts), and the run stops
# if one is wrong.
#
#   scripts/lookup-bench.sh [ROUNDS]        # default 15 interleaved rounds
#
# Prints ns per lookup (per leaf for perft), the median and quartiles over the rounds, and the
# ratio to fancy in the same round (median and quartiles), and the bytes each backend's data
# takes (nm -S of the exported tables' object; sizeof for pext and hq).
#
# Environment: STORE (default results/best.json), PACKED (results/packed-pool.json), INDEXED
# (results/packed-indexed.json: skipped with a note when absent or not exportable), FIXED
# (results/packed-fixed.json, likewise), CPU (the core for taskset, default 1; empty: no
# taskset), CC (default cc), CFLAGS (default -O2 -march=native), CHECK_DEPTHS (default
# 5,4,6,5,4,4: start, kiwipete, pos3 .. pos6), TRACE_DEPTHS (default 5,4,5,4,4,4: the perft
# whose lookups are replayed, 5.9 M lookups), PERFT_DEPTHS (default 4,3,5,4,3,3: the timed
# perft, 1.5 M leaves). KEEP=DIR keeps the headers, the binary and the trace there.
set -euo pipefail
rounds=${1:-15}
here=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
read -r -a cflags <<<"${CFLAGS:--O2 -march=native}"
store=${STORE:-$here/results/best.json}
packed=${PACKED:-$here/results/packed-pool.json}
indexed=${INDEXED:-$here/results/packed-indexed.json}
fixed=${FIXED:-$here/results/packed-fixed.json}
cpu=${CPU-1}
if [[ -n ${KEEP:-} ]]; then
    tmp=$KEEP
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi

bin=$here/target/release/magichunt
[[ -x $bin ]] || (cd "$here" && cargo build --release --quiet)
export_c() { # PREFIX OUT ARGS...: the C header with lookups, prefix PREFIX
    local prefix=$1 out=$2
    shift 2
    "$bin" export --format c --with-lookup --prefix "$prefix" --out "$tmp/$out" "$@" 2>"$tmp/$out.err"
}
bytes_of() { # HEADER PREFIX: bytes of data in the object that implements HEADER (nm -S)
    printf '#define %s_IMPLEMENTATION\n#include "%s"\n' "$2" "$1" |
        "$cc" "${cflags[@]}" -I"$tmp" -c -x c - -o "$tmp/$1.o"
    nm -S -t d --defined-only "$tmp/$1.o" | awk 'NF == 4 && $3 ~ /^[BbDdRr]$/ {s += $2} END {print s + 0}'
}

export_c fa_ fancy.h --store "$store"
export_c pk_ packed.h --packed "$packed"
defs=(-DFANCY_BYTES="$(bytes_of fancy.h FA)" -DPACKED_BYTES="$(bytes_of packed.h PK)")
if [[ -f $indexed ]] && export_c by_ indexed.h --packed "$indexed"; then
    defs+=(-DHAVE_BYTE -DBYTE_BYTES="$(bytes_of indexed.h BY)")
else
    echo "note: no one-byte table ($indexed absent or not exportable): byte skipped"
fi
if [[ -f $fixed ]] && export_c fx_ fixed.h --packed "$fixed"; then
    defs+=(-DHAVE_FIXED -DFIXED_BYTES="$(bytes_of fixed.h FX)")
else
    echo "note: no fixed-shift table ($fixed absent or not exportable): fixed skipped"
fi
grep -qw bmi2 /proc/cpuinfo 2>/dev/null || echo "note: this CPU has no BMI2: pext skipped"

"$cc" "${cflags[@]}" -I"$tmp" "${defs[@]}" "$here/scripts/lookup-bench/main.c" -o "$tmp/lookup-bench"
run=("$tmp/lookup-bench")
[[ -n $cpu ]] && run=(taskset -c "$cpu" "${run[@]}")

echo "$cc ${cflags[*]}; tables: $(basename "$store") (fancy), $(basename "$packed") (packed)$(
    [[ " ${defs[*]} " == *" -DHAVE_BYTE "* ]] && echo ", $(basename "$indexed") (byte)")$(
    [[ " ${defs[*]} " == *" -DHAVE_FIXED "* ]] && echo ", $(basename "$fixed") (fixed)"); core ${cpu:-any}"
"${run[@]}" check "${CHECK_DEPTHS:-5,4,6,5,4,4}"
"${run[@]}" record "$tmp/trace.bin" "${TRACE_DEPTHS:-5,4,5,4,4,4}" | tail -1
"${run[@]}" bench "$tmp/trace.bin" "$rounds" "${PERFT_DEPTHS:-4,3,5,4,3,3}"
