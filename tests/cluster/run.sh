#!/usr/bin/env bash
# tests/cluster/run.sh: integration test of scripts/slurm/ and scripts/parallel.sh on a real
# Slurm. Installs Debian's slurm-wlm, munge and parallel when missing (prints SKIP and exits 0
# when it cannot), starts munged, slurmctld and slurmd on this machine (one node, two CPUs)
# from a config generated in a temp dir, runs the exhaust workflow (bishop d8, 4 bits,
# 4 parts), the prove workflow (SAT cubes, certificates copied beside the main store) and
# the hunt workflow through Slurm and through GNU parallel, checks the merged stores, then
# stops every daemon it started and removes the temp dir.
#
# Usage: MAGICHUNT=target/release/magichunt tests/cluster/run.sh
# Env:   MAGICHUNT        binary under test (default target/release/magichunt)
#        CLUSTER_TIMEOUT  seconds to wait for each batch of jobs (default 300)
#        CLUSTER_PORT     slurmctld port, slurmd uses the next one (default 16817)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
timeout=${CLUSTER_TIMEOUT:-300} port=${CLUSTER_PORT:-16817}
bin=${MAGICHUNT:-target/release/magichunt}
if [[ $bin == */* ]]; then
  [[ -x $bin ]] || bin=$root/$bin
  bin=$(realpath "$bin")
else
  bin=$(command -v "$bin" || true)
fi
[[ -x $bin ]] || { echo "cluster: binary not found: ${MAGICHUNT:-target/release/magichunt}" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/magichunt-cluster.XXXXXX")
chmod 755 "$T"
mkdir -p "$T"/{munge,state,spool,log,slurm-run,parallel-run}
pids=()

cleanup() {
  local rc=$?
  set +e
  cd /
  if [[ -n ${ctld_pid:-} ]] && kill -0 "$ctld_pid" 2>/dev/null; then
    scancel --quiet --user="$(id -un)"
    for _ in {1..30}; do [[ -z $(squeue -h -o %i) ]] && break; sleep 0.5; done
  fi
  for ((j = ${#pids[@]} - 1; j >= 0; j--)); do # slurmd, slurmctld, munged: newest first
    kill "${pids[j]}" 2>/dev/null
    for _ in {1..50}; do kill -0 "${pids[j]}" 2>/dev/null || break; sleep 0.2; done
    kill -9 "${pids[j]}" 2>/dev/null
    wait "${pids[j]}" 2>/dev/null
  done
  if ((rc != 0)); then
    echo "cluster: failed (exit $rc); last lines of the logs:" >&2
    tail -n 15 "$T"/log/* "$T"/slurm-run/slurm-*.out "$T"/*/results/shards/logs/* >&2 2>/dev/null
  fi
  rm -rf "$T"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

skip() { echo "SKIP: cluster test: cannot install slurm-wlm/munge ($1)"; exit 0; }
for c in munged slurmctld slurmd sbatch parallel flock python3; do
  command -v "$c" >/dev/null && continue
  ((EUID == 0)) || skip "not root"
  command -v apt-get >/dev/null || skip "no apt-get"
  echo "cluster: installing slurm-wlm munge parallel"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends slurm-wlm munge parallel >"$T/log/apt" 2>&1; then
    { apt-get update -q && apt-get install -y -q --no-install-recommends slurm-wlm munge parallel; } >"$T/log/apt" 2>&1 ||
      skip "apt-get: $(grep -m1 -E '^(E|W):' "$T/log/apt" || tail -n1 "$T/log/apt")"
  fi
  break
done
echo "cluster: $(slurmd -V), $(munged -V | cut -d' ' -f1), GNU parallel $(parallel --version | head -n1 | awk '{print $3}')"

# munge, on its own key and socket
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$T/munge/munge.key"
else
  head -c 1024 /dev/urandom >"$T/munge/munge.key"
fi
chmod 600 "$T/munge/munge.key"
munged -F --force --socket="$T/munge/socket" --key-file="$T/munge/munge.key" \
  --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/seed" --log-file="$T/log/munged.log" \
  >"$T/log/munged.out" 2>&1 &
pids+=($!)
for _ in {1..50}; do [[ -S $T/munge/socket ]] && break; sleep 0.1; done

# Slurm: one node (this host, two CPUs), one partition, no accounting, no cgroups.
node=$(hostname -s)
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=magichunt-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
ctld_pid=$!
slurmd -D >"$T/log/slurmd.out" 2>&1 &
pids+=($!)
for ((s = 0; s < 60; s++)); do
  [[ $(sinfo -h -N -n "$node" -o %T 2>/dev/null) == idle ]] && break
  sleep 1
done
((s < 60)) || { echo "cluster: node $node never became idle" >&2; sinfo >&2; exit 1; }
echo "cluster: slurm up, node $node idle after ${s}s"

passed=0 failed=0
check() { # check NAME COMMAND...: run COMMAND, count it
  if "${@:2}"; then
    passed=$((passed + 1)); echo "ok - $1"
  else
    failed=$((failed + 1)); echo "FAIL - $1"
  fi
}
wait_queue() { # wait until the queue is empty, at most $timeout seconds
  local end=$((SECONDS + timeout))
  while [[ -n $(squeue -h -o %i) ]]; do
    if squeue -h -o %r | grep -q DependencyNeverSatisfied; then
      echo "cluster: a task failed, its merge can never run" >&2; squeue >&2; return 1
    fi
    ((SECONDS < end)) || { echo "cluster: jobs still queued after ${timeout}s" >&2; squeue >&2; return 1; }
    sleep 1
  done
}
completed() { # completed JOBID: every task of the job ended COMPLETED
  local states
  states=$(scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | sort -u)
  [[ $states == JobState=COMPLETED ]] || { echo "job $1: $states" >&2; return 1; }
}
store_has() { # store_has STORE PARTS PROOF: exhaust parts done for bishop d8 4/4, proof yes|no
  python3 - "$@" <<'EOF'
import json, sys
path, parts, proof = sys.argv[1], sys.argv[2], sys.argv[3] == "yes"
s = json.load(open(path))
target = lambda e: (e.get("piece"), e.get("square"), e.get("bits")) == ("bishop", "d8", 4)
done = sorted(p["shard"] for e in s.get("exhaust", []) if target(e) and e.get("shards") == 4
              for p in e["parts"] if p["done"])
has = any(target(p) and p.get("none") is True for p in s.get("proofs", []))
want = [int(k) for k in parts.split(",")]
if done != want or has != proof:
    sys.exit(f"{path}: parts {done} proof {has}, want parts {want} proof {proof}")
EOF
}
sums() { md5sum "$@" | sort; }
proven() { # proven STORE SQ BITS: a bishop proof of none whose certificates all check
  python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
ok = any((p.get("piece"), p.get("square"), p.get("bits"), p.get("none")) ==
         ("bishop", sys.argv[2], int(sys.argv[3]), True) for p in s.get("proofs", []))
sys.exit(0 if ok else f"{sys.argv[1]}: no proof for bishop {sys.argv[2]} at {sys.argv[3]} bits")
EOF
  "$bin" prove --piece bishop --square "$2" --bits "$3" --store "$1" --check-certificates
}

export MAGICHUNT=$bin
target=(--piece bishop --square d8 --bits 4 --shards 4 --threads 1)

echo "== Slurm: exhaust through sbatch directly, parts 1-3 only"
cd "$T/slurm-run"
# Each run folder holds a results/best.json, as a checkout does (the shipped store): the
# scripts merge into results/mine.json unless told otherwise, and never touch it.
shipped() { mkdir -p results && cp "$root/results/best.json" results/best.json; }
shipped
a=$(sbatch --parsable --array=1-3 "$root/scripts/slurm/exhaust.sbatch" "${target[@]}")
m=$(sbatch --parsable --dependency="afterok:$a" "$root/scripts/slurm/exhaust.sbatch" --merge "${target[@]}")
wait_queue
check "sbatch array 1-3 completed" completed "$a"
check "merge after 3 of 4 parts: parts 1-3, no proof" store_has results/mine.json 1,2,3 no
before=$(sums results/shards/exhaust-*.json)

echo "== Slurm: submit.sh exhaust, all 4 parts"
out=$("$root/scripts/slurm/submit.sh" exhaust "${target[@]}")
echo "$out"
read -r a m < <(awk '{print $4, $8}' <<<"$out")
wait_queue
check "submit.sh array and merge completed" completed "$a"
check "merge job completed" completed "$m"
check "merged store holds the proof and parts 1-4" store_has results/mine.json 1,2,3,4 yes
check "parts 1-3 were not redone" diff <(echo "$before") <(sums results/shards/exhaust-*-{1,2,3}of4.json)

echo "== Slurm: submit.sh prove, SAT in 4 cubes"
"$root/scripts/slurm/submit.sh" prove --piece bishop --square a2 --bits 3 --shards 4 --method sat --threads 1
wait_queue
check "4 part stores and their certificates" test "$(ls results/shards/proofs/bishop-a2-3-*of4.lrat.gz | wc -l)" -eq 4
check "merged store proves bishop a2 at 3 bits, certificates beside it check" proven results/mine.json a2 3

echo "== Slurm: submit.sh hunt, 2 tasks, then again"
before=$(sums results/shards/exhaust-*.json)
"$root/scripts/slurm/submit.sh" hunt --tasks 2 --time 2s --seed 7 --threads 1
wait_queue
check "hunt shards have their markers" test -e results/shards/hunt-s7-1.json.done -a -e results/shards/hunt-s7-2.json.done
check "hunt merge kept the proof" store_has results/mine.json 1,2,3,4 yes
"$root/scripts/slurm/submit.sh" hunt --tasks 2 --time 2s --seed 7 --threads 1
"$root/scripts/slurm/submit.sh" exhaust "${target[@]}"
wait_queue
check "hunt re-run skipped both shards" test "$(cat results/shards/logs/magichunt-hunt-*_* | grep -c 'already done')" -eq 2
check "exhaust re-run changed no part store" diff <(echo "$before") <(sums results/shards/exhaust-*.json)

check "the Slurm runs left results/best.json as it was" cmp -s results/best.json "$root/results/best.json"

echo "== GNU parallel: exhaust on localhost, shard 3 fails once"
cd "$T/parallel-run"
shipped
echo : >hosts
cat >flaky <<EOF
#!/usr/bin/env bash
if [[ " \$* " == *" --shard 3/4 "* && ! -e $T/parallel-run/failed-once ]]; then
  touch $T/parallel-run/failed-once; echo "flaky: shard 3 breaks" >&2; exit 1
fi
exec "$bin" "\$@"
EOF
chmod +x flaky
par=("$root/scripts/parallel.sh" exhaust "${target[@]}" --sshloginfile hosts --jobs 2 --joblog run.joblog)
check "broken run exits non-zero" bash -c '! MAGICHUNT=./flaky "$@"' _ "${par[@]}"
check "broken run: parts 1,2,4, no proof" store_has results/mine.json 1,2,4 no
before=$(sums results/shards/*.json)
MAGICHUNT=$T/parallel-run/flaky "${par[@]}" --resume
check "--resume ran only shard 3" test "$(wc -l <run.joblog)" -eq 6
check "resumed run: proof and parts 1-4" store_has results/mine.json 1,2,3,4 yes
check "parts 1,2,4 were not redone" diff <(grep -v 3of4 <<<"$before") <(sums results/shards/*-{1,2,4}of4.json)
before=$(sums results/shards/*.json)
"${par[@]}" --resume
check "second --resume started no job" test "$(wc -l <run.joblog)" -eq 6
"${par[@]}"
check "re-run without --resume changed no part store" diff <(echo "$before") <(sums results/shards/*.json)

echo "== GNU parallel: prove (method auto: SAT for a bishop) in 2 cubes"
"$root/scripts/parallel.sh" prove --piece bishop --square b2 --bits 3 --shards 2 --sshloginfile hosts --jobs 2
check "merged store proves bishop b2 at 3 bits, certificates beside it check" proven results/mine.json b2 3

echo "== GNU parallel: exhaust --order high reaches every part; prove refuses it"
"$root/scripts/parallel.sh" exhaust --piece bishop --square e8 --bits 4 --shards 2 --threads 1 --order high --sshloginfile hosts --jobs 2 --store high.json
check "both parts searched in the high order" test "$(grep -l '"order": "high"' results/shards/exhaust-bishop-e8-4b-*of2.json | wc -l)" -eq 2
check "--order with prove: refused" bash -c '! "$0" prove --piece bishop --square b2 --bits 3 --shards 2 --order high 2>/dev/null' "$root/scripts/parallel.sh"

echo "== GNU parallel: hunt, 2 tasks, then again"
hunt=("$root/scripts/parallel.sh" hunt --tasks 2 --time 2s --seed 9 --threads 1 --sshloginfile hosts --jobs 2)
"${hunt[@]}"
check "hunt shards have their markers" test -e results/shards/hunt-s9-1.json.done -a -e results/shards/hunt-s9-2.json.done
check "hunt re-run skipped both shards" test "$("${hunt[@]}" | grep -c 'already done')" -eq 2
check "store still holds the proof" store_has results/mine.json 1,2,3,4 yes
check "the parallel runs left results/best.json as it was" cmp -s results/best.json "$root/results/best.json"

echo "cluster: $passed passed, $failed failed"
((failed == 0))
