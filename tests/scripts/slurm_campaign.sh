#!/usr/bin/env bash
# A campaign on a real Slurm, on this machine: starts munged, slurmctld and slurmd (Debian's
# slurm-wlm and munge) from a configuration written into a temporary folder, then
#   1. submits scripts/slurm/nqcount-array.sbatch's campaign of n = 17 in 8 shards (the job array
#      and its dependent merge-and-audit job), and sends SIGTERM to one running shard's batch
#      script (scancel --batch --signal=TERM, as a preemption does): it must save its journal,
#      requeue itself and finish on its second run, resumed;
#   2. beside it, a one-shard campaign of n = 17 on the scalar kernel with a one-minute time
#      limit, whose --signal warning stops it (SIGTERM, journal saved, scontrol requeue); once
#      requeued, its time limit is raised, and it must finish from its journal. Its first run is
#      held to a tenth of a CPU (throttle, below) until the warning stops it, so that it is
#      still counting when the warning comes, up to half a minute late, on any CPU, while the
#      count costs seconds of CPU, not the minute or more that a board large enough to outlast
#      the warning at full speed took from the stages that run beside this test;
#   3. checks the merge's total and unique against engine/count/queens.csv and that the audit
#      passed;
# then stops the daemons and removes the folder, leaving nothing running. Exit 0 when all
# passed, 1 with a line saying what failed, 77 when Slurm or munge is not installed.
#   tests/scripts/slurm_campaign.sh NQCOUNT SBATCH_SCRIPT QUEENS_CSV
#
# What this machine lacks, and the configuration does without: cgroups that Slurm may manage
# (a container's), so processes are tracked by their parent (proctrack/linuxproc) and tasks are
# not confined (task/none); no accounting database (accounting_storage/none). Slurm holds a
# requeued job for two minutes before it may start again; the test moves its start to now
# (scontrol update StartTime=now) rather than wait.
set -uo pipefail

nqcount=${1:?usage: slurm_campaign.sh NQCOUNT SBATCH_SCRIPT QUEENS_CSV}
script=${2:?usage}
queens=${3:?usage}
if [ "$(id -u)" != 0 ]; then
  echo "slurm_campaign: needs root (the daemons run as root, on ports of their own)"
  exit 77
fi
for program in jq /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sbatch squeue scontrol; do
  if ! command -v "$program" >/dev/null; then
    echo "slurm_campaign: $program is not installed (apt-get install slurm-wlm munge)"
    exit 77
  fi
done

fail() {
  echo "slurm_campaign: FAILED: $*"
  for log in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/run/*.out; do
    [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
  done
  exit 1
}

tmp=$(mktemp -d)
export SLURM_CONF=$tmp/slurm.conf
pids=()
throttler=""
cleanup() {
  # (the throttler is this script's child until waited for, so its id is still its own)
  if [ -n "$throttler" ]; then
    kill -TERM "$throttler" 2>/dev/null
    wait "$throttler" 2>/dev/null
  fi
  scancel --quiet --user=root 2>/dev/null
  for f in "$tmp"/slurmd.pid "$tmp"/slurmctld.pid "$tmp"/munge/munged.pid; do
    [ -s "$f" ] && pids+=("$(cat "$f")")
  done
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do  # each daemon gone before the folder goes
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# munge: its own key, socket and files, run as root (--force).
mkdir -m 700 "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/run"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$tmp/munge/munge.key"
/usr/sbin/munged --force --socket="$tmp/munge/munge.sock" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
  --seed-file="$tmp/munge/seed" || fail "munged did not start"

host=$(hostname -s)
port=$((20000 + ($$ % 20000) * 2))
cat > "$SLURM_CONF" << EOF
ClusterName=nqtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=sched_interval=2,bf_interval=2
ReturnToService=2
MpiDefault=none
KillWait=10
MinJobAge=600
JobRequeue=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
/usr/sbin/slurmctld -i || fail "slurmctld did not start"
/usr/sbin/slurmd -N "$host" || fail "slurmd did not start"
for _ in $(seq 100); do
  [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo -h -o %t)" = idle ] || fail "the node did not come up: $(sinfo -h 2>&1)"

cd "$tmp/run" || fail "no run folder"
export NQ_BIN=$nqcount NQ_DIR=$tmp/run
# throttle PATTERN: holds the process whose command line has PATTERN stopped for 90 ms of every
# 100 (SIGSTOP, SIGCONT), the one running now or the next to start, until this function gets
# SIGTERM; it leaves the process running. Its waits are reads that time out, not sleeps.
throttle() {
  local pid="" never
  mkfifo "$tmp/never" && exec {never}<> "$tmp/never"
  trap '[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null; exit 0' TERM
  while :; do
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
      pid=$(pgrep -f -- "$1" | head -n 1)
      [ -n "$pid" ] || { read -r -t 0.1 -u "$never"; continue; }
    fi
    kill -STOP "$pid" 2>/dev/null
    read -r -t 0.09 -u "$never"
    kill -CONT "$pid" 2>/dev/null
    read -r -t 0.01 -u "$never"
  done
}

# 2. The time-limited shard first, so that it holds a CPU of the node from the start, throttled
#    until it is requeued.
limited=$(NQ_N=17 NQ_SHARDS=1 NQ_EXTRA="--kernel scalar" sbatch --parsable --array=0 --cpus-per-task=1 --time=1 \
  --signal=B:TERM@55 "$script") || fail "sbatch of the time-limited shard"
throttle "nqcount-n17-of1-0.ckpt" &
throttler=$!
# 1. The campaign: 8 shards of n = 17 (the scalar kernel, so that a shard runs for seconds), and
#    the merge and audit after them.
submitted=$(NQ_N=17 NQ_SHARDS=8 NQ_EXTRA="--kernel scalar" \
  NQ_SBATCH="--cpus-per-task=1 --time=10" "$script") || fail "submitting the campaign"
echo "$submitted"
array=$(sed -n 's/.*job array \([0-9]*\) .*/\1/p' <<< "$submitted")
final=$(sed -n 's/.*merge and audit: job \([0-9]*\).*/\1/p' <<< "$submitted")
if [ -z "$array" ] || [ -z "$final" ]; then fail "no job ids in: $submitted"; fi

# SIGTERM to the batch script of the first shard seen running with its journal made (so its
# trap is set and it has counted a little).
stem=$tmp/run/nqcount-n17-of8
victim=""
for _ in $(seq 300); do
  for task in $(squeue -h -j "$array" -t R -o %K 2>/dev/null); do
    if [ -e "$stem-$task.ckpt" ]; then victim=$task; break 2; fi
  done
  sleep 0.1
done
[ -n "$victim" ] || fail "no shard of array $array was seen running"
sleep 0.5
# (scancel may report an error when the script has already requeued the job by the time it
# answers; what happened is checked below, from the queue and the shard's output.)
scancel --batch --signal=TERM "${array}_$victim" 2>/dev/null
echo "slurm_campaign: SIGTERM to shard $victim (${array}_$victim)"

# Each requeued job is moved to now (Slurm's requeue delay); the time-limited shard also gets
# room to finish.
requeued_victim=0 requeued_limited=0
deadline=$((SECONDS + 300))
while [ "$SECONDS" -lt "$deadline" ]; do
  for job in "${array}_$victim" "${limited}_0"; do
    state=$(squeue -h -j "$job" -o "%T %r" 2>/dev/null)
    if [[ $state == "PENDING BeginTime" ]]; then
      if [ "$job" = "${limited}_0" ]; then
        requeued_limited=1
        kill -TERM "$throttler" 2>/dev/null
        wait "$throttler" 2>/dev/null
        throttler=""
        scontrol update JobId="$job" StartTime=now TimeLimit=10 || fail "scontrol update $job"
      else
        requeued_victim=1
        scontrol update JobId="$job" StartTime=now || fail "scontrol update $job"
      fi
    fi
  done
  [ -z "$(squeue -h 2>/dev/null)" ] && break
  sleep 0.1
done
[ -z "$(squeue -h)" ] || fail "jobs still queued after 5 minutes: $(squeue -h)"
[ "$requeued_victim" = 1 ] || fail "shard $victim was not requeued after its SIGTERM"
[ "$requeued_limited" = 1 ] || fail "the time-limited shard was not requeued"

# The shards' own words: stopped, requeued, then done from the journal.
for out in "$tmp/run/nqcount-shard-${array}_$victim.out" "$tmp/run/nqcount-shard-${limited}_0.out"; do
  grep -q "stopped: progress is in" "$out" || fail "$out: no stop"
  grep -q "done," "$out" || fail "$out: not done after the requeue"
done
for json in "$stem-$victim.json" "$tmp/run/nqcount-n17-of1-0.json"; do
  resumed=$(jq -r .subproblems_resumed "$json")
  [ "${resumed:-0}" -gt 0 ] || fail "$json: nothing resumed from the journal"
done

# 3. The merge's counts against the table, and the audit.
merged=$stem.json
[ -s "$merged" ] || fail "no merged result (the final job's output: $(cat "$tmp"/run/nqcount-merge-*.out))"
want=$(grep '^17,' "$queens")
got="17,$(jq -r .total "$merged"),$(jq -r .unique "$merged")"
[ "$got" = "$want" ] || fail "merged n,total,unique $got; the table says $want"
[ "$(jq -r '.mismatches | length' "$stem.audit.json")" = 0 ] || fail "the audit found differences"
[ "$(jq -r .sampled "$stem.audit.json")" -gt 0 ] || fail "the audit sampled nothing"
echo "slurm_campaign: passed in $SECONDS s: $got, audited $(jq -r .sampled "$stem.audit.json") tasks"
