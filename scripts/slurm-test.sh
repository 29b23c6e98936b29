#!/bin/bash
# Proves the documented Slurm path on a real Slurm: installs Debian's slurm-wlm and munge when
# missing, starts a one-node cluster (munged, slurmctld, slurmd as plain daemons, no systemd),
# submits scripts/slurm-array.sh as a 4-task array on a generated 200,000-puzzle file, re-runs
# one task alone, merges with scripts/slurm-merge.sh, checks that a missing shard makes the
# merge fail, checks that a shard whose last rows were cut makes the merge fail with no
# all.csv, checks that the merged file equals one `solve` run apart from solve_ns, and that
# the merged summary has the span and the summed solver CPU time, and that a task stopped by
# SIGTERM (the warning signal before a time limit) resumes to the same rows.
# Stops every daemon it started. Needs root (it writes /etc/munge and /run/munge).
#
#   scripts/slurm-test.sh            # builds the release binary first
#   SUDOKU_BATCH=path/to/binary scripts/slurm-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
say() { echo "slurm-test: $*"; }
fail() { echo "slurm-test: FAILED: $*" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/tmp/slurm-test-apt.log 2>&1 ||
        { cat /tmp/slurm-test-apt.log >&2; fail "apt-get install slurm-wlm munge"; }
fi
if [[ -z ${SUDOKU_BATCH:-} ]]; then
    cargo build --release --quiet
    SUDOKU_BATCH=$root/target/release/sudoku-batch
fi
export SUDOKU_BATCH
[[ -x $SUDOKU_BATCH ]] || fail "no binary at $SUDOKU_BATCH"

work=$(mktemp -d /tmp/slurm-test.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    set +e
    [[ -n ${SLURM_CONF:-} ]] && scancel --quiet --user="$(id -un)" 2>/dev/null
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    sleep 1
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

# munge: a key of our own unless one exists, the daemon as its user.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[[ -s /etc/munge/munge.key ]] || mungekey --create --keyfile=/etc/munge/munge.key
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 700 /etc/munge
chmod 600 /etc/munge/munge.key
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- munged || fail "munged would not start"
    for _ in $(seq 50); do pgrep -u munge -x munged >/dev/null && break; sleep 0.1; done
    mapfile -t -O "${#pids[@]}" pids < <(pgrep -u munge -x munged)
fi
munge -n </dev/null | unmunge >/dev/null || fail "munge does not work"

# A one-node cluster: this machine, its CPUs and memory, no accounting, no cgroups.
node=$(hostname -s)
cpus=$(nproc)
mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 512))
mkdir -p "$work/state" "$work/spool" "$work/out"
cat >"$work/slurm.conf" <<CONF
ClusterName=sudokutest
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$node CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld would not start; $(tail -5 "$work/slurmctld.log" 2>/dev/null)"
for _ in $(seq 50); do [[ -s $work/slurmctld.pid ]] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
slurmd -f "$SLURM_CONF" || fail "slurmd would not start; $(tail -5 "$work/slurmd.log" 2>/dev/null)"
for _ in $(seq 50); do [[ -s $work/slurmd.pid ]] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmd.pid")")
for _ in $(seq 100); do
    sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
    sleep 0.3
done
sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)' ||
    fail "the node did not come up: $(sinfo 2>&1); $(tail -5 "$work/slurmd.log")"
say "cluster up: $(sinfo -h -o '%P %D %T %c')"

# Waits for a job (and all its array tasks) to leave the queue; fails if any task failed.
wait_job() {
    local jid=$1
    for _ in $(seq 1200); do
        [[ -z $(squeue -h -j "$jid" 2>/dev/null) ]] && break
        sleep 0.5
    done
    [[ -z $(squeue -h -j "$jid" 2>/dev/null) ]] || fail "job $jid did not finish"
}

input=$work/puzzles.txt
"$SUDOKU_BATCH" generate -n 200000 --seed 2026 --clues 30 -q -o "$input"
[[ $(wc -l <"$input") -eq 200000 ]] || fail "generate did not make 200000 puzzles"
out=$work/out
cd "$work"
shards=4
jid=$(sbatch --parsable --array=1-$shards -c 1 "$root/scripts/slurm-array.sh" "$input" "$out" $shards)
wait_job "$jid"
for ((k = 1; k <= shards; k++)); do
    [[ -f $out/shard-$k.csv ]] || fail "task $k wrote no $out/shard-$k.csv: $(cat "$work"/sudoku-batch-*_"$k".log)"
done
say "array job $jid wrote $shards shards"

# Re-run one task alone, as after a node failure: it must stay shard 2/4.
rm -f "$out/shard-2.csv" "$out/shard-2.json"
jid=$(sbatch --parsable --array=2 -c 1 "$root/scripts/slurm-array.sh" "$input" "$out" $shards)
wait_job "$jid"
[[ -f $out/shard-2.csv && ! -f $out/shard-1.csv.partial ]] || fail "the re-run task did not write shard 2"
cmp -s <(cut -d, -f1 "$out/shard-2.csv" | sed -n 2p) <(echo 1) ||
    fail "the re-run task is not shard 2/4 (first index $(cut -d, -f1 "$out/shard-2.csv" | sed -n 2p))"
say "re-run task $jid kept shard 2/$shards"

# A merge with a shard missing fails and writes nothing.
mv "$out/shard-3.csv" "$work/shard-3.csv"
jid=$(sbatch --parsable "$root/scripts/slurm-merge.sh" "$out" $shards)
wait_job "$jid"
[[ ! -f $out/all.csv ]] || fail "merge with shard 3 missing wrote $out/all.csv"
state=$(scontrol show job "$jid" 2>/dev/null | grep -o 'JobState=[A-Z]*' || true)
[[ $state != JobState=COMPLETED ]] || fail "merge with shard 3 missing completed"
mv "$work/shard-3.csv" "$out/shard-3.csv"
say "merge with a missing shard failed, as it must ($state)"

# A merge with a shard whose last rows were cut (whole lines: no torn row) fails and writes
# nothing: the shard's sidecar says how many rows and bytes its run wrote.
cp "$out/shard-4.csv" "$work/shard-4.csv"
head -n -100 "$work/shard-4.csv" >"$out/shard-4.csv"
jid=$(sbatch --parsable "$root/scripts/slurm-merge.sh" "$out" $shards)
wait_job "$jid"
[[ ! -f $out/all.csv ]] || fail "merge with shard 4 cut wrote $out/all.csv"
state=$(scontrol show job "$jid" 2>/dev/null | grep -o 'JobState=[A-Z]*' || true)
[[ $state != JobState=COMPLETED ]] || fail "merge with shard 4 cut completed"
grep -q "shard-4.csv: .* bytes, but its run wrote" "$work"/sudoku-batch-merge-"$jid".log ||
    fail "merge with shard 4 cut did not name it: $(cat "$work"/sudoku-batch-merge-"$jid".log)"
cp "$work/shard-4.csv" "$out/shard-4.csv"
say "merge with a cut-off shard failed and wrote no all.csv, as it must ($state)"

jid=$(sbatch --parsable "$root/scripts/slurm-merge.sh" "$out" $shards)
wait_job "$jid"
[[ -f $out/all.csv ]] || fail "merge wrote no all.csv: $(cat "$work"/sudoku-batch-merge-*.log)"
for key in span_seconds solver_cpu_seconds first_start_unix last_end_unix; do
    grep -q "\"$key\": [0-9]" "$out/all.json" || fail "all.json has no $key: $(cat "$out/all.json")"
done
say "all.json: $(grep -E '"(span_seconds|solver_cpu_seconds|wall_seconds)"' "$out/all.json" | tr -d ' \n')"

# A task stopped by SIGTERM (what --signal=B:TERM@120 sends before the time limit) flushes its
# rows, says so and exits 143; the same submission resumes it to the rows of one run. Each
# block of 1,000 copies of this unsolvable grid (a fuzzing find, about 1.5 ms each) takes the
# solver over a second, so the stop lands mid-run.
slow=".........................54613.........9...........613.613...8...........9......."
{ for i in $(seq 6); do sed -n "$((i * 10)),$((i * 10 + 9))p" "$input"; for _ in $(seq 1000); do echo "$slow"; done; done; } >"$work/slow.txt"
mkdir -p "$work/stop"
jid=$(sbatch --parsable --array=1 -c 1 "$root/scripts/slurm-array.sh" "$work/slow.txt" "$work/stop" 1)
for _ in $(seq 100); do
    [[ $(squeue -h -j "$jid" -o %T 2>/dev/null) == RUNNING ]] && break
    sleep 0.1
done
sleep 2
scancel --batch --signal=TERM "$jid"
wait_job "$jid"
log=$(cat "$work"/sudoku-batch-"$jid"_1.log)
[[ -f $work/stop/shard-1.csv.partial && ! -f $work/stop/shard-1.csv ]] ||
    fail "the stopped task left no shard-1.csv.partial: $log"
grep -q "SIGTERM" <<<"$log" || fail "the stopped task did not say it was stopping: $log"
kept=$(($(wc -l <"$work/stop/shard-1.csv.partial") - 1))
((kept >= 10)) || fail "the stopped task kept $kept rows; the 10 before the first slow puzzle were done"
state=$(scontrol show job "$jid" 2>/dev/null | grep -o 'JobState=[A-Z]*' || true)
say "task stopped by SIGTERM kept $(($(wc -l <"$work/stop/shard-1.csv.partial") - 1)) rows ($state)"
jid=$(sbatch --parsable --array=1 -c 1 "$root/scripts/slurm-array.sh" "$work/slow.txt" "$work/stop" 1)
wait_job "$jid"
[[ -f $work/stop/shard-1.csv ]] || fail "the resumed task did not finish: $(cat "$work"/sudoku-batch-"$jid"_1.log)"
"$SUDOKU_BATCH" solve "$work/slow.txt" -q --shard 1/1 -o "$work/slow-one.csv" || [[ $? -le 1 ]]
strip() { cut -d, -f7 --complement "$1"; }
cmp -s <(strip "$work/stop/shard-1.csv") <(strip "$work/slow-one.csv") ||
    fail "the resumed task's rows differ from one run"
say "the stopped task resumed to the rows of one run"

# The merged file equals one run, apart from solve_ns (column 7) and file names.
"$SUDOKU_BATCH" solve "$input" -q --shard 1/1 -o "$work/one.csv" || [[ $? -le 1 ]]
if ! cmp -s <(strip "$out/all.csv") <(strip "$work/one.csv"); then
    diff <(strip "$out/all.csv") <(strip "$work/one.csv") | head -5 >&2
    fail "the merged file differs from one run"
fi
say "merged $(($(wc -l <"$out/all.csv") - 1)) rows equal one solve run (apart from solve_ns)"
say "passed in $(($(date +%s) - started)) s"
