#!/usr/bin/env bash
# parallel.sh: run hunt, exhaust or prove shards over many machines with GNU parallel and
# ssh, then merge them into the main store (SAT certificates are copied beside it).
#
# Usage:
#   scripts/parallel.sh hunt --tasks N [--piece P] [--square SQ] [--time D] [--seed BASE] [OPTIONS]
#   scripts/parallel.sh exhaust --piece P --square SQ --bits B --shards M [OPTIONS]
#   scripts/parallel.sh prove --piece P --square SQ --bits B --shards M [--method M] [OPTIONS]
#
# Options:
#   --sshloginfile FILE  hosts, one GNU parallel sshlogin a line (e.g. `8/me@box1`);
#                        `:` is this machine. Default: this machine only.
#   --jobs N             shards at once on each host (default 1: one shard uses all cores)
#   --threads N          threads per shard (default: magichunt's own)
#   --task-bits N        exhaust: cut the period into 2^N subtrees (the same N for every shard)
#   --order low|high     exhaust: the order the bits are fixed in (default: magichunt's own,
#                        high for the rooks of ranks 1 to 4, low otherwise)
#   --joblog FILE        GNU parallel's job log (default SHARD_DIR/RUN.joblog)
#   --resume             continue a broken run: skip the shards the joblog lists as
#                        succeeded, run the failed and missing ones
#   --store PATH         main store, merged into at the end [MH_STORE, default results/mine.json]
#   --shard-dir DIR      shard stores, joblog, markers [MH_SHARD_DIR, default results/shards]
#   --time, --seed       hunt: time per shard (default 1h); task i uses seed BASE*1000+i (default 1)
#   --method M           prove: auto, sat or exhaust [MH_METHOD, default auto]; SAT needs
#                        a power of two of shards
# The binary is $MAGICHUNT, else target/release/magichunt in this repo, else `magichunt`.
#
# Every path (this script, the binary, the stores) must be the same on every host, as on
# a shared filesystem; they are made absolute here. A shard that is done exits at once:
# an exhaust part whose store says so, a hunt shard that has its .done marker.
set -euo pipefail

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; }
self=$(realpath "$0")

# Internal: one hunt shard, run by GNU parallel on some host.
if [[ ${1:-} == _hunt-shard ]]; then
  bin=$2 shard_dir=$3 base=$4 i=$5
  shift 5
  shard=$shard_dir/hunt-s$base-$i.json
  if [[ -e $shard.done ]]; then
    echo "hunt shard $i: already done ($shard.done), nothing to do"
    exit 0
  fi
  "$bin" hunt --seed "$((base * 1000 + i))" --store "$shard" "$@"
  touch "$shard.done"
  exit 0
fi

mode=${1:-}
case $mode in
  hunt | exhaust | prove) shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

piece=${MH_PIECE:-} square=${MH_SQUARE:-} bits=${MH_BITS:-} n=${MH_SHARDS:-}
time=${MH_TIME:-1h} base=${MH_SEED:-1} threads=${MH_THREADS:-} method=${MH_METHOD:-auto}
store=${MH_STORE:-results/mine.json} shard_dir=${MH_SHARD_DIR:-results/shards}
logins=() jobs=1 joblog="" resume=() task_bits=${MH_TASK_BITS:-} order=${MH_ORDER:-}
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --resume) resume=(--resume-failed); shift; continue ;;
  esac
  (($# >= 2)) || { echo "parallel.sh: $1 needs a value" >&2; exit 2; }
  case $1 in
    --piece) piece=$2 ;;
    --square) square=$2 ;;
    --bits) bits=$2 ;;
    --shards | --tasks) n=$2 ;;
    --time) time=$2 ;;
    --seed) base=$2 ;;
    --threads) threads=$2 ;;
    --store) store=$2 ;;
    --shard-dir) shard_dir=$2 ;;
    --sshloginfile) logins=(--sshloginfile "$(realpath "$2")") ;;
    --jobs) jobs=$2 ;;
    --method) method=$2 ;;
    --task-bits) task_bits=$2 ;;
    --order) order=$2 ;;
    --joblog) joblog=$2 ;;
    *) echo "parallel.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift 2
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "parallel.sh: give the number of shards (--tasks or --shards)" >&2; exit 2; }

root=$(cd "$(dirname "$self")/.." && pwd)
if [[ -z ${MAGICHUNT:-} ]]; then
  MAGICHUNT=magichunt
  [[ -x $root/target/release/magichunt ]] && MAGICHUNT=$root/target/release/magichunt
fi
[[ $MAGICHUNT == */* ]] && MAGICHUNT=$(realpath "$MAGICHUNT")
mkdir -p "$shard_dir" "$(dirname "$store")"
shard_dir=$(realpath "$shard_dir") store=$(realpath "$store")
((${#logins[@]})) || logins=(--sshlogin :)
extra=()
[[ -n $threads ]] && extra=(--threads "$threads")

if [[ $mode != hunt ]]; then
  [[ -n $piece && -n $square && -n $bits ]] || { echo "parallel.sh: $mode needs --piece, --square and --bits" >&2; exit 2; }
  run=$mode-$piece-$square-${bits}b-of$n
  shard=$shard_dir/$mode-$piece-$square-${bits}b-{}of$n.json
  sub=(exhaust ${task_bits:+--task-bits "$task_bits"} ${order:+--order "$order"})
  if [[ $mode == prove ]]; then
    [[ -z $task_bits ]] || { echo "parallel.sh: --task-bits is for exhaust, not prove" >&2; exit 2; }
    [[ -z $order ]] || { echo "parallel.sh: --order is for exhaust, not prove" >&2; exit 2; }
    sub=(prove --method "$method")
  fi
  cmd=("$MAGICHUNT" "${sub[@]}" --piece "$piece" --square "$square" --bits "$bits" --shard "{}/$n" --store "$shard")
else
  run=hunt-s$base
  shard=$shard_dir/hunt-s$base-{}.json
  cmd=("$self" _hunt-shard "$MAGICHUNT" "$shard_dir" "$base" {} --piece "${piece:-all}"
    --square "${square:-all}" --time "$time")
fi
joblog=${joblog:-$shard_dir/$run.joblog}

status=0
parallel --quote --jobs "$jobs" "${logins[@]}" --joblog "$joblog" "${resume[@]}" \
  --tagstring "$run/{}" --line-buffer "${cmd[@]}" "${extra[@]}" ::: $(seq 1 "$n") || status=$?
if ((status)); then
  echo "parallel.sh: $run: GNU parallel exit $status (1-100: that many shards failed); see $joblog, rerun with --resume" >&2
fi

# Merge whatever exists: the merge itself decides whether all exhaust parts make a proof.
inputs=()
[[ -e $store ]] && inputs+=("$store")
for ((i = 1; i <= n; i++)); do
  f=${shard//\{\}/$i}
  [[ -e $f ]] && inputs+=("$f")
done
if ((${#inputs[@]})); then
  flock "$shard_dir/.merge.lock" "$MAGICHUNT" merge "${inputs[@]}" --out "$store"
fi
exit "$status"
