#!/usr/bin/env bash
# scripts/evidence.sh: give the shipped exhaustive searches their evidence by searching them
# again with an `exhaust` that records a residue (issue 23).
#
#   scripts/evidence.sh [--bin PATH] [--threads N] [rooks|bishops|all]
#
# Each search of results/best.json's `exhaust` list (the rank 7/8 rook proofs and rook h7 at
# 10 bits first, minutes each; then the two-bits-below bishops, 15 min to 1.2 CPU-hours each)
# runs into its own store in results/campaign/, the store that settled it first. A store
# whose part has no residue yet is searched again from the start (`--recheck`); one whose part
# has a residue resumes from its checkpoint, or is skipped when done. So the script is
# resumable: run it again after Ctrl-C, a kill or a reboot. The results go into the shipped
# store with
#
#   magichunt merge results/best.json results/campaign/rook-*.json --out results/best.json
#
# (the shipped store first, so that its entries keep their first found_at; only stores whose
# parts all carry a residue: the bishops' once searched again), which keeps, of two finished
# copies of a part, the one with a residue (and refuses two residues that differ). Then
# `magichunt audit` makes the proofs count here. --bin runs a fixed binary (a long run should not pick up a rebuild).
# Run it at low priority on a shared machine: `nice -n 19 scripts/evidence.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="" threads=2 which=all
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    rooks | bishops | all) which=$1; shift ;;
    -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "evidence.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z $bin ]]; then
  cargo build --release --locked --quiet
  bin=target/release/magichunt
fi
# Cheapest first (nodes of the first run), so that results come early.
rooks=(
  "rook f7 8" "rook e7 8" "rook h7 9" "rook g7 8" "rook d7 8" "rook e8 9" "rook g8 9"
  "rook h8 10" "rook d8 9" "rook c7 8" "rook c8 9" "rook b7 8" "rook h7 10" "rook a7 9"
  "rook b8 9" "rook a8 10"
)
bishops=(
  "bishop h2 3" "bishop b8 3" "bishop g2 3" "bishop b2 3" "bishop g8 3" "bishop a2 3"
  "bishop h1 4" "bishop a8 4" "bishop a1 4" "bishop h8 4" "bishop b7 3" "bishop g1 3"
  "bishop a7 3" "bishop h7 3" "bishop b1 3" "bishop g7 3"
)
case $which in
  rooks) questions=("${rooks[@]}") ;;
  bishops) questions=("${bishops[@]}") ;;
  all) questions=("${rooks[@]}" "${bishops[@]}") ;;
esac
for q in "${questions[@]}"; do
  read -r piece square bits <<<"$q"
  store=results/campaign/$piece-$square-$bits.json
  recheck=()
  if [[ -f $store ]] && ! grep -q '"residue"' "$store"; then
    recheck=(--recheck)
  fi
  echo "== $piece $square at $bits bits -> $store ${recheck[*]}"
  status=0
  "$bin" exhaust --piece "$piece" --square "$square" --bits "$bits" --store "$store" \
    --threads "$threads" "${recheck[@]}" || status=$?
  case $status in
    0) ;;
    130) echo "evidence: interrupted (resumable: run the script again)" >&2; exit 130 ;;
    *) echo "evidence: $piece $square at $bits bits failed (exit $status)" >&2; exit "$status" ;;
  esac
done
