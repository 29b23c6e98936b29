#!/usr/bin/env bash
# Measures `generate`'s rate (minimal puzzles/s) with 1 and 2 threads, checks that both runs wrote
# the same bytes, and that `verify --unique` passes every puzzle.
# Usage: scripts/generate-rate.sh [COUNT]   (default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-20000}
cargo build --release --quiet
bin=target/release/sudoku-batch
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for threads in 1 2; do
    echo "== generate -n $count --minimal --seed 1 -j $threads"
    /usr/bin/time -f "%e s wall, %U s user, %M KB peak memory" \
        "$bin" generate -n "$count" --minimal --seed 1 -j "$threads" --with-solution \
        -o "$dir/j$threads.csv"
done
cmp "$dir/j1.csv" "$dir/j2.csv"
echo "== same bytes with -j 1 and -j 2"
"$bin" verify --unique "$dir/j1.csv"
