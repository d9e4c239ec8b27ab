#!/usr/bin/env bash
# Leave magichunt hunting overnight: nice'd, logging to a file beside the store, restarted
# if it ever dies, stopped cleanly by Ctrl-C (or SIGTERM), which the hunt answers by saving.
#
#   scripts/overnight.sh                          # the open targets, results/mine.json (git ignores it)
#   scripts/overnight.sh --store /data/best.json  # another store
#   scripts/overnight.sh -- --piece rook          # other hunt arguments instead of the preset
#
# Environment: MAGICHUNT (the binary; default: build with cargo and use target/release),
# NICE (niceness, default 10), RESTART_DELAY (seconds between restarts, default 10),
# SAVE_RETRY_DELAY and SAVE_RETRY_MAX (a hunt that could not save, on a full disk say, is
# retried after SAVE_RETRY_DELAY seconds, default 60, doubling up to SAVE_RETRY_MAX, default
# 3600; the store on disk is its last checkpoint meanwhile).
set -u

store="results/mine.json"
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --store) store="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "overnight.sh: unknown argument '$1' (expected --store PATH or -- HUNT-ARGS)" >&2; exit 2 ;;
    esac
done
[ ${#extra[@]} -eq 0 ] && extra=(--preset overnight)

cd "$(dirname "$0")/.." || exit 2
bin="${MAGICHUNT:-}"
if [ -z "$bin" ]; then
    cargo build --release --locked --quiet || exit 2
    bin="target/release/magichunt"
fi
mkdir -p "$(dirname "$store")"
log="${store%.json}.log"

setsid=""
command -v setsid >/dev/null && setsid="setsid"
stopping=0
child=0
on_signal() {
    stopping=1
    # The hunt saves and exits 130 on the first SIGINT.
    [ "$child" -ne 0 ] && kill -INT "$child" 2>/dev/null
}
trap on_signal INT TERM

echo "overnight: hunting into $store, log $log (Ctrl-C stops and saves)"
retry="${SAVE_RETRY_DELAY:-60}"
while [ "$stopping" -eq 0 ]; do
    echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) start: $bin hunt --store $store --quiet ${extra[*]}" >>"$log"
    from=$(wc -l <"$log")
    # Apart from the terminal (setsid): its Ctrl-C reaches only this script, which passes on
    # exactly one SIGINT (two would abort the hunt without saving).
    $setsid nice -n "${NICE:-10}" "$bin" hunt --store "$store" --quiet "${extra[@]}" >>"$log" 2>&1 &
    child=$!
    # `wait` returns early when a trapped signal arrives; wait again for the saved exit.
    wait "$child"
    code=$?
    while kill -0 "$child" 2>/dev/null; do
        wait "$child"
        code=$?
    done
    child=0
    echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) exit $code" >>"$log"
    [ "$stopping" -eq 1 ] && break
    # A save that failed (a full disk, a quota) is worth retrying once there is room again;
    # any other exit 2 (a refused store, a store in use, bad arguments) is not.
    why=$(tail -n +"$((from + 1))" "$log" | grep -m 1 '^magichunt: cannot save')
    case "$code" in
        0) echo "overnight: the hunt finished every target; see $log"; exit 0 ;;
        2) if [ -z "$why" ]; then
               echo "overnight: the hunt refused to run (exit 2); see $log" >&2
               exit 2
           fi
           echo "overnight: the hunt could not save (${why#magichunt: }); the store keeps its last checkpoint; retrying in ${retry}s" | tee -a "$log" >&2
           sleep "$retry" &
           wait $!
           retry=$(awk -v d="$retry" -v m="${SAVE_RETRY_MAX:-3600}" 'BEGIN { d *= 2; print (d > m ? m : d) }')
           continue ;;
    esac
    retry="${SAVE_RETRY_DELAY:-60}"
    echo "overnight: the hunt died (exit $code); restarting in ${RESTART_DELAY:-10}s" | tee -a "$log" >&2
    sleep "${RESTART_DELAY:-10}" &
    wait $!
done
echo "overnight: stopped; the store is saved. Summary in $log"
exit 0
