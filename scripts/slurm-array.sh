#!/bin/bash
# Slurm job array: task K of N solves shard K/N of INPUT into OUTDIR/shard-K.csv; a dependent
# job merges the shards. The array indices ARE the shard numbers, 1..N, and N is given when the
# array is submitted, so re-running one task keeps it K/N:
#
#   N=4
#   jid=$(sbatch --parsable --array=1-$N -c 8 scripts/slurm-array.sh puzzles.csv.gz out $N)
#   sbatch --dependency=afterok:$jid scripts/slurm-merge.sh out $N
#   # later, re-run only task 2 (it resumes from out/shard-2.csv.partial if there is one):
#   sbatch --array=2 -c 8 scripts/slurm-array.sh puzzles.csv.gz out $N
#
# Each task uses the CPUs Slurm gives it (SLURM_CPUS_PER_TASK, set by `sbatch -c N`; one
# CPU when not given, so the script starts on any node). --resume lets a requeued or
# preempted task continue where it stopped. Two minutes before the time limit Slurm sends the
# batch shell SIGTERM (--signal=B:TERM@120), which passes it on: sudoku-batch flushes the rows
# so far to shard-K.csv.partial, prints its summary and exits 143; the same sbatch line again
# resumes it. A preempting scheduler's SIGTERM takes the same path. Outside Slurm, set SLURM_ARRAY_TASK_ID by hand
# to try it (SUDOKU_BATCH names the binary).
#SBATCH --job-name=sudoku-batch
#SBATCH --mem=512M
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --signal=B:TERM@120
#SBATCH --output=sudoku-batch-%A_%a.log
set -euo pipefail
usage="usage: sbatch --array=1-N slurm-array.sh INPUT OUTDIR N"
input=${1:?$usage}
outdir=${2:?$usage}
shards=${3:?$usage}
k=${SLURM_ARRAY_TASK_ID:?not in a Slurm job array (SLURM_ARRAY_TASK_ID is not set)}
# Plain decimal numbers only: bash reads a leading 0 as octal, and `08` as an error.
if ! [[ $shards =~ ^[1-9][0-9]{0,8}$ ]]; then
    echo "slurm-array.sh: N must be the number of shards, 1 or more, in plain decimal (got '$shards'); $usage" >&2
    exit 2
fi
if ! [[ $k =~ ^[1-9][0-9]{0,8}$ ]] || ((k > shards)); then
    echo "slurm-array.sh: array index $k is not a shard of 1..$shards; submit with --array=1-$shards" >&2
    exit 2
fi
if [[ -n ${SLURM_CPUS_PER_TASK:-} ]]; then
    threads=$SLURM_CPUS_PER_TASK
elif [[ -n ${SLURM_JOB_ID:-} ]]; then
    threads=1
else
    threads=$(nproc)
fi
mkdir -p "$outdir"
status=0
"${SUDOKU_BATCH:-sudoku-batch}" solve "$input" --shard "$k/$shards" --resume -q -j "$threads" \
    -o "$outdir/shard-$k.csv" --summary "$outdir/shard-$k.json" &
pid=$!
# Slurm signals this shell (B:), not its children: pass the signal on, once.
# Every signal sudoku-batch stops cleanly on, as `--signal=B:USR1@120` may send another.
for sig in TERM HUP INT USR1 USR2 XCPU; do
    # shellcheck disable=SC2064 # the signal's name is meant to be fixed now
    trap "kill -$sig \"\$pid\" 2>/dev/null" "$sig"
done
# A trapped signal ends `wait` early (status > 128): wait again for the solver's own status.
while true; do
    wait "$pid" && status=0 || status=$?
    kill -0 "$pid" 2>/dev/null || break
done
# Exit 1 means "finished, some puzzles not solved": the shard is complete, so not a failure.
[ "$status" -le 1 ] || exit "$status"
