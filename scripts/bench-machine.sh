#!/usr/bin/env bash
# Runs the standard benchmark on this machine and appends the rows to
# data/results/<hostname>.csv (the header is written once; earlier rows are never rewritten).
#
# The standard benchmark is `sudoku-batch bench` with its defaults: the built-in graded suite
# (easy, moderate, hard, hardest), every solver, 1 thread and all logical cores, 1 s warm-up,
# at least 3 s and 3 timed passes per configuration, permute seed 1, first-solution mode.
# Extra arguments are passed to `bench` (for example `--solvers bands` or `--unique`).
#
# Usage: scripts/bench-machine.sh [BENCH OPTIONS]...
set -euo pipefail

cd "$(dirname "$0")/.."

# The file is named after the host; anything but letters, digits, '.', '_' and '-' becomes '_'.
host="$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')"
results="data/results/${host}.csv"
mkdir -p data/results

# A plain release build (no target-cpu=native), so machines compare like for like; the CPU
# features the build could use are recorded in every row (cpu_features_used).
cargo build --release --quiet
echo "benchmarking on ${host}; appending to ${results}" >&2
target/release/sudoku-batch bench --csv "${results}" "$@"
echo "appended to ${results}; compare machines with:" >&2
echo "  target/release/sudoku-batch report data/results/*.csv --svg docs/bench.svg" >&2
