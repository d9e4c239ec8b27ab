#!/usr/bin/env bash
# scripts/frontier.sh: rebuild the shipped store from nothing, with magichunt's own search.
#
#   scripts/frontier.sh [STORE] [TIME]        defaults: results/frontier.json, 40m
#
# Hunts all 128 targets, each ratcheting down from the popcount, with seed 2026 on all cores
# for TIME, then compares the store with the published records. The store must not exist:
# the point is to start empty, so every magic in it is one the hunter reached on its own
# (mutation starts only from magics already in the store). results/best.json was made with
# `scripts/frontier.sh results/best.json 40m` (README, "The shipped store").
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-results/frontier.json}
time=${2:-40m}
if [[ -e $store ]]; then
  echo "frontier.sh: $store exists; give a new path (the point is to start from an empty store)" >&2
  exit 2
fi
cargo build --release --locked --quiet
target/release/magichunt hunt --store "$store" --seed 2026 --time "$time" --quiet
target/release/magichunt compare --store "$store"
