#!/usr/bin/env bash
# scripts/frontier.sh: rebuild the shipped store from nothing, with magichunt's own search.
#
#   scripts/frontier.sh [STORE] [TIME]        defaults: results/frontier.json, 40m
#
# Three steps on all cores, seed 2026, then a comparison with the published records:
#   1. exhaust rook h7 at 10 bits: its period is small enough to enumerate (about 6 minutes
#      here), and no search has found its one magic by sampling;
#   2. hunt all 128 targets, each ratcheting down from the popcount, for 60 % of TIME;
#   3. hunt the targets still behind the published records at the records' bits (only the
#      bit counts come from the published tables) for the rest of TIME.
# TIME is the hunting time (steps 2 and 3), in minutes ("40m"). The store must not exist:
# the point is to start empty, so every magic in it is one the hunter reached on its own
# (mutation starts only from magics already in the store). results/best.json was made with
# `scripts/frontier.sh results/best.json 40m` (README, "The shipped store").
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-results/frontier.json}
time=${2:-40m}
minutes=${time%m}
if ! [[ $minutes =~ ^[0-9]+$ && $minutes -ge 2 ]]; then
  echo "frontier.sh: TIME must be whole minutes, at least 2 (e.g. 40m), not '$time'" >&2
  exit 2
fi
if [[ -e $store ]]; then
  echo "frontier.sh: $store exists; give a new path (the point is to start from an empty store)" >&2
  exit 2
fi
cargo build --release --locked --quiet
first=$((minutes * 6 / 10))
target/release/magichunt exhaust --store "$store" --piece rook --square h7 --bits 10
target/release/magichunt hunt --store "$store" --seed 2026 --time "${first}m" --quiet
target/release/magichunt hunt --store "$store" --seed 2026 --time "$((minutes - first))m" --quiet --preset records
target/release/magichunt compare --store "$store"
