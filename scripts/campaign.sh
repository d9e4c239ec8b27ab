#!/usr/bin/env bash
# scripts/campaign.sh: the proof campaign. For every square whose bits are not proven
# optimal, settle one bit below the best bits known: a proof that none exists makes the square
# proven optimal, a magic found is a new record.
#
#   scripts/campaign.sh [--store PATH] [--all] [--time D] [--threads N]
#
# The store is magichunt's default one (in a checkout results/mine.json, started from the
# shipped table by the first question settled; see README, "Install") unless --store names
# another, which must exist.
#
# The questions come from `magichunt prove --campaign` (easiest first) and are settled one at
# a time by `magichunt prove` with its method `auto`: SAT with a checked certificate for
# bishops (seconds each), the exhaustive search for rooks (rank 7/8: minutes to hours each).
# Without --all it stops after the rank 7/8 rooks; with --all it goes on to the rank 1/2
# rooks, whose periods (2^55 to 2^63) no single machine finishes: each then gets --time
# (default 1h) and keeps its progress in the store, so runs add up. Every question is
# resumable: the exhaustive search checkpoints, and a settled question is skipped.
# Ctrl-C stops the current question (saved) and the campaign (exit 130).
#
# The shipped results/best.json holds what such runs settled, merged (docs/proofs.md); this
# script never writes it unless --store names it.
set -euo pipefail
cd "$(dirname "$0")/.."
store=() all=false time=1h threads=0
while (($#)); do
  case $1 in
    --store) store=(--store "$2"); shift 2 ;;
    --all) all=true; shift ;;
    --time) time=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "campaign.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
cargo build --release --locked --quiet
bin=target/release/magichunt
list=$("$bin" prove --campaign "${store[@]}")
questions=()
[[ -n $list ]] && mapfile -t questions <<<"$list"
echo "campaign: ${#questions[@]} open questions in ${store[1]:-the default store}"
for line in "${questions[@]}"; do
  read -r piece square bits method _ stage <<<"$line"
  limit=()
  if [[ $line == *"rank 1/2"* || $line == *"open rook"* ]]; then
    $all || { echo "campaign: stopping before $piece $square at $bits bits ($stage); --all goes on"; break; }
    limit=(--time "$time")
  fi
  echo "== $piece $square at $bits bits: $method"
  status=0
  "$bin" prove --piece "$piece" --square "$square" --bits "$bits" "${store[@]}" \
    --threads "$threads" "${limit[@]}" || status=$?
  case $status in
    0 | 1) ;;                         # settled, or stopped by --time with progress saved
    130) echo "campaign: interrupted" >&2; exit 130 ;;
    *) echo "campaign: $piece $square at $bits bits failed (exit $status)" >&2; exit "$status" ;;
  esac
done
"$bin" compare "${store[@]}" | grep -E '^summary'
