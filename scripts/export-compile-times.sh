#!/usr/bin/env bash
# What the Rust export costs rustc: each layout exported with --with-lookup (tables built at
# compile time by default, --runtime-fill for the OnceLock filled at run time), compiled as the
# one module of a library crate, debug and release (-O); CPU seconds of rustc (user + system),
# the median of REPS runs (default 5). docs/export.md quotes its figures.
#
#   scripts/export-compile-times.sh        # REPS=5
#   REPS=1 RUSTC=rustc scripts/export-compile-times.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-5} rustc=${RUSTC:-rustc}
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
mh=$here/target/release/magichunt
cpu() { # median CPU seconds (user + system) of REPS runs of rustc ARGS...
  local t=()
  for ((i = 0; i < reps; i++)); do
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$rustc" "$@" -D warnings >&2 || {
      echo "rustc failed on the export: $name" >&2
      exit 1
    }
    t+=("$(awk '{printf "%.2f", $1 + $2}' "$tmp/time")")
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
printf '%-60s %9s %9s %9s\n' export "source" "debug s" "release s"
while IFS='|' read -r name args; do
  # shellcheck disable=SC2086
  (cd "$here" && "$mh" export --format rust --with-lookup $args --out "$tmp/magics.rs" 2>/dev/null)
  # Tables built at compile time need no std; the run-time fill needs std's OnceLock.
  case $args in
  *--runtime-fill*) printf 'pub mod magics;\n' > "$tmp/lib.rs" ;;
  *) printf '#![no_std]\npub mod magics;\n' > "$tmp/lib.rs" ;;
  esac
  size=$(wc -c < "$tmp/magics.rs")
  debug=$(cpu --edition 2021 --crate-type lib --out-dir "$tmp" "$tmp/lib.rs")
  release=$(cpu --edition 2021 --crate-type lib -O --out-dir "$tmp" "$tmp/lib.rs")
  printf '%-60s %8dK %9s %9s\n' "$name" $((size / 1024)) "$debug" "$release"
done <<'LIST'
fancy, results/best.json, const fn (default)|--store results/best.json
fancy, results/best.json, --runtime-fill|--store results/best.json --runtime-fill
packed, results/packed-pool.json, const fn (default)|--packed results/packed-pool.json
packed, results/packed-pool.json, --runtime-fill|--packed results/packed-pool.json --runtime-fill
indexed, results/packed-indexed.json, data|--packed results/packed-indexed.json
LIST
