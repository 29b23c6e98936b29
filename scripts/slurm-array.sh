#!/bin/bash
# Slurm job array: each task solves one shard of INPUT; a dependent job merges the shards.
#
#   jid=$(sbatch --parsable scripts/slurm-array.sh puzzles.csv.gz out)
#   sbatch --dependency=afterok:$jid scripts/slurm-merge.sh out
#
# sudoku-batch reads the shard from SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
# SLURM_ARRAY_TASK_COUNT (shard K = ID - MIN + 1 of COUNT), so --array can start at 0 or 1 but
# must have no step. --resume lets a requeued or preempted task continue where it stopped.
# Outside Slurm, set those three variables by hand to try it (SUDOKU_BATCH names the binary).
#SBATCH --job-name=sudoku-batch
#SBATCH --array=0-3
#SBATCH --cpus-per-task=8
#SBATCH --mem=512M
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --output=sudoku-batch-%A_%a.log
set -euo pipefail
input=${1:?usage: slurm-array.sh INPUT OUTDIR}
outdir=${2:?usage: slurm-array.sh INPUT OUTDIR}
k=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0} + 1))
mkdir -p "$outdir"
status=0
"${SUDOKU_BATCH:-sudoku-batch}" solve "$input" --resume -q \
    -j "${SLURM_CPUS_PER_TASK:-$(nproc)}" \
    -o "$outdir/shard-$k.csv" --summary "$outdir/shard-$k.json" || status=$?
# Exit 1 means "finished, some puzzles not solved": the shard is complete, so not a failure.
[ "$status" -le 1 ] || exit "$status"
