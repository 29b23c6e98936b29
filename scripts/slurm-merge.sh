#!/bin/bash
# Merges the shards written by slurm-array.sh (or k8s-indexed-job.yaml) into OUTDIR/all.csv,
# in input order, with a combined summary OUTDIR/all.json.
#SBATCH --job-name=sudoku-batch-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=256M
#SBATCH --output=sudoku-batch-merge-%j.log
set -euo pipefail
outdir=${1:?usage: slurm-merge.sh OUTDIR}
summaries=()
for json in "$outdir"/shard-*.json; do summaries+=(--shard-summary "$json"); done
status=0
"${SUDOKU_BATCH:-sudoku-batch}" merge "$outdir"/shard-*.csv -o "$outdir/all.csv" \
    --summary "$outdir/all.json" "${summaries[@]}" || status=$?
[ "$status" -le 1 ] || exit "$status"
