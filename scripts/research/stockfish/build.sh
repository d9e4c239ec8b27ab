#!/usr/bin/env bash
# build.sh STOCKFISH OUT NAME [EXPORT-ARGS...]: copies the Stockfish checkout STOCKFISH to
# OUT/NAME-src, prepares it with patch.py and builds OUT/stockfish-NAME with its magics on x86
# without AVX2 (where Stockfish uses magics) and no embedded network. With EXPORT-ARGS the
# lookups are magichunt's, from `magichunt export --format c --with-lookup --prefix mh_
# EXPORT-ARGS` (e.g. --packed results/packed-indexed.json); without, Stockfish's own.
#
#   scripts/research/stockfish/build.sh ~/Stockfish /tmp/sf own
#   scripts/research/stockfish/build.sh ~/Stockfish /tmp/sf byte --packed results/packed-indexed.json
#   cp /tmp/sf/stockfish-own /tmp/sf/stockfish-own2     # the control
#   python3 scripts/research/stockfish/perft.py 10 6,5,6,5,5,5 /tmp/sf/stockfish-{own,own2,byte}
set -euo pipefail
sf=$1 out=$2 name=$3; shift 3
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
rm -rf "${out:?}/$name-src" && cp -r "$sf" "$out/$name-src"
cd "$out/$name-src/src"
flags=-DNNUE_EMBEDDING_OFF
if (($#)); then
  python3 "$here/scripts/research/stockfish/patch.py" . --magichunt
  (cd "$here" && cargo run --release --quiet -- export --format c --with-lookup --prefix mh_ "$@" \
    --out "$out/$name-src/src/magichunt.h")
  flags="$flags -DUSE_MAGICHUNT"
else
  python3 "$here/scripts/research/stockfish/patch.py" .
fi
make -j2 all ARCH=x86-64-sse41-popcnt EXTRACXXFLAGS="$flags" > "$out/build-$name.log" 2>&1
cp stockfish "$out/stockfish-$name"
echo "built $out/stockfish-$name"
