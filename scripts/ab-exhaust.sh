#!/usr/bin/env bash
# A/B of two magichunt binaries on the exhaustive search of low rook masks, where a change to
# `exhaust` can win on one shape and lose on another (docs/log/2026-11-24-low-masks.md, "Placing as it checks").
# Runs both binaries interleaved on the same seeded samples of three shapes and prints, per
# shape, the median seconds a task of each, the ratio B/A, and whether their node counts agree
# (the same samples must give the same nodes: a difference is an error, exit 1).
#
#   scripts/ab-exhaust.sh OLD_BINARY NEW_BINARY [REPS]     # default 3 repetitions
#
# The shapes: rook d4 at 9 (rank squares in the middle of the mask, last level wide), h3 at 10
# (rank squares low, last level thin) and e2 at 8 (the easiest open question: a thin run
# whose levels kill most values). About 35 s a repetition and binary; time it on a quiet
# machine.
set -euo pipefail
if (($# < 2)); then
    echo "usage: $0 OLD_BINARY NEW_BINARY [REPS]" >&2
    exit 2
fi
a=$1 b=$2 reps=${3:-3}
for bin in "$a" "$b"; do
    [[ -x $bin ]] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPS must be a positive integer, not '$reps'" >&2; exit 2; }
shapes=(
    "rook:d4:9 --sample 120"
    "rook:h3:10 --task-bits 34 --sample 30000"
    "rook:e2:8 --task-bits 36 --sample 60000"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# Of side $1 (A or B) and shape $2, over the repetitions: the median seconds a task, and the
# distinct projected node counts.
per_task() { sed -e 's/.*(\([0-9.e+-]*\) s a task).*/\1/' "$tmp/$1.$2".* | median; }
nodes() { sed -e 's/.*, nodes \([0-9.e+-]*\) .*/\1/' "$tmp/$1.$2".* | sort -u | tr '\n' ' '; }

status=0
printf '%-12s %12s %12s %8s  %s\n' shape "A s/task" "B s/task" "B/A" nodes
for k in "${!shapes[@]}"; do
    read -r question rest <<<"${shapes[$k]}"
    for ((i = 0; i < reps; i++)); do
        for side in A B; do
            bin=$a
            [[ $side == B ]] && bin=$b
            # shellcheck disable=SC2086 # $rest is a list of options
            "$bin" bench --estimate "$question" $rest --seed 1 --budget 10m | tail -1 >"$tmp/$side.$k.$i"
        done
    done
    ta=$(per_task A "$k") tb=$(per_task B "$k")
    na=$(nodes A "$k") nb=$(nodes B "$k")
    agree=same
    if [[ $na != "$nb" ]]; then
        agree="DIFFER: A $na, B $nb"
        status=1
    fi
    printf '%-12s %12s %12s %8.3f  %s\n' "$question" "$ta" "$tb" "$(awk -v x="$tb" -v y="$ta" 'BEGIN {print x / y}')" "$agree"
done
exit $status
