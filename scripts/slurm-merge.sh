#!/bin/bash
# Merges the N shards written by slurm-array.sh (or k8s-indexed-job.yaml) into OUTDIR/all.csv,
# in input order, with a combined summary OUTDIR/all.json. An earlier merge's all.csv and
# all.json are removed first. Fails (and writes neither) when
# a shard is missing or incomplete: a missing file is caught here; a shard cut off or
# unfinished is caught by `merge` itself from the shard's sidecar (shard-K.csv.run.json, which
# records its run's row count and size): merge then exits 1 and writes no all.csv, and this
# script fails. all.json gives the span from the first shard's start to the last one's end and
# the solver CPU time summed over the rows:
#
#   sbatch --dependency=afterok:$jid scripts/slurm-merge.sh out 4
#SBATCH --job-name=sudoku-batch-merge
#SBATCH --cpus-per-task=1
#SBATCH --mem=256M
#SBATCH --output=sudoku-batch-merge-%j.log
set -euo pipefail
usage="usage: slurm-merge.sh OUTDIR N"
outdir=${1:?$usage}
shards=${2:?$usage}
# A plain decimal number only: bash reads a leading 0 as octal, and `08` as an error.
if ! [[ $shards =~ ^[1-9][0-9]{0,8}$ ]]; then
    echo "slurm-merge.sh: N must be the number of shards, 1 or more, in plain decimal (got '$shards'); $usage" >&2
    exit 2
fi
# An earlier merge's result goes first, whatever happens next: a failed merge must not leave
# it there looking like this one's.
rm -f "$outdir/all.csv" "$outdir/all.json"
inputs=()
summaries=()
missing=0
for ((k = 1; k <= shards; k++)); do
    if [[ ! -f $outdir/shard-$k.csv ]]; then
        echo "slurm-merge.sh: shard $k/$shards is missing ($outdir/shard-$k.csv); re-run it with sbatch --array=$k" >&2
        missing=1
    fi
    inputs+=("$outdir/shard-$k.csv")
    [[ -f $outdir/shard-$k.json ]] && summaries+=(--shard-summary "$outdir/shard-$k.json")
done
((missing == 0)) || exit 1
status=0
"${SUDOKU_BATCH:-sudoku-batch}" merge "${inputs[@]}" -o "$outdir/all.csv" \
    --summary "$outdir/all.json" "${summaries[@]}" || status=$?
# Exit 1 with a merged file: complete, some puzzles not solved. Without one: merge refused
# (a shard missing, cut off or unfinished), and this job fails.
if [[ $status -gt 1 || ! -f $outdir/all.csv ]]; then
    echo "slurm-merge.sh: merge failed (exit $status)" >&2
    exit $((status > 1 ? status : 1))
fi
