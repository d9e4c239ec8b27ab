#!/usr/bin/env bash
# submit.sh: submit a hunt, exhaust or prove job array plus the merge that runs after it.
#
# Usage:
#   scripts/slurm/submit.sh hunt --tasks N [hunt.sbatch options] [-- sbatch options]
#   scripts/slurm/submit.sh exhaust --piece P --square SQ --bits B --shards M
#                           [exhaust.sbatch options] [-- sbatch options]
#   scripts/slurm/submit.sh prove --piece P --square SQ --bits B --shards M [--method M]
#                           [exhaust.sbatch options] [-- sbatch options]
#     (prove runs exhaust.sbatch with --method, default auto)
#
# Run it from the repo root (the jobs resolve relative paths from there). Task logs go
# to SHARD_DIR/logs/. Hunt tasks get a Slurm time limit of --time plus 10 minutes.
# sbatch options after `--` apply to the array and the merge, for example
#   scripts/slurm/submit.sh exhaust --piece rook --square a1 --bits 10 --shards 64 \
#       -- --partition=long --cpus-per-task=8 --time=2:00:00
# The merge waits with --dependency=afterok:ARRAY; set DEPENDENCY=afterany to merge
# whatever finished even when a task failed (a proof still needs every part done).
# Prints: submitted MODE array ARRAY_ID (1-N) and merge MERGE_ID
set -euo pipefail

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "$0"; }
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-}
case $mode in
  hunt | exhaust | prove) shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

n=${MH_SHARDS:-} time=${MH_TIME:-1h} shard_dir=${MH_SHARD_DIR:-results/shards}
[[ $mode == hunt ]] && n=${MH_TASKS:-}
args=() sbatch_opts=() script=$mode
if [[ $mode == prove ]]; then
  script=exhaust args=(--method "${MH_METHOD:-auto}")
fi
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --) shift; sbatch_opts=("$@"); break ;;
    --tasks) n=$2; shift 2; continue ;;
    --shards) n=$2 ;;
    --time) time=$2 ;;
    --shard-dir) shard_dir=$2 ;;
  esac
  (($# >= 2)) || { echo "submit.sh: $1 needs a value" >&2; exit 2; }
  args+=("$1" "$2")
  shift 2
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: give the number of tasks (--tasks or --shards)" >&2; exit 2; }

limit=()
if [[ $mode == hunt && $time =~ ^([0-9]+)([smhd]?)$ ]]; then
  v=${BASH_REMATCH[1]}
  case ${BASH_REMATCH[2]} in
    m) minutes=$v ;; h) minutes=$((v * 60)) ;; d) minutes=$((v * 1440)) ;; *) minutes=$(((v + 59) / 60)) ;;
  esac
  limit=(--time="$((minutes + 10))")
fi

mkdir -p "$shard_dir/logs"
array=$(sbatch --parsable --array="1-$n" --output="$shard_dir/logs/%x-%A_%a.out" "${limit[@]}" \
  "${sbatch_opts[@]}" "$here/$script.sbatch" "${args[@]}")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="${DEPENDENCY:-afterok}:$array" --job-name="magichunt-$mode-merge" \
  --output="$shard_dir/logs/%x-%j.out" "${sbatch_opts[@]}" "$here/$script.sbatch" --merge "${args[@]}")
echo "submitted $mode array $array (1-$n) and merge ${merge%%;*}"
