"""Rates of sudoku_batch.solve on (1_000_000, 81) uint8 arrays and 1M-str lists of the Kaggle
puzzles (threads=1 and 2), best of REPS; run from the repo root: python python/bench.py"""
import csv
import os
import sys
import time

import numpy as np

import sudoku_batch as sb

REPS = int(os.environ.get("REPS", "3"))
N = int(os.environ.get("N", "1000000"))
with open("data/kaggle3m_radcliffe_first1000.csv") as f:
    puzzles = [r["puzzle"] for r in csv.DictReader(f)]
reps = N // len(puzzles)
cells = np.repeat(sb.to_cells(puzzles), reps, axis=0)
strs = puzzles * reps


def best(fn):
    times = []
    for _ in range(REPS):
        t = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t)
        assert (r.status == sb.SOLVED).all()
    return len(r) / min(times)


for threads in (1, 2):
    print(f"uint8 array {len(cells):,} rows, threads={threads}: "
          f"{best(lambda: sb.solve(cells, threads=threads)):,.0f} puzzles/s")
    print(f"list of str {len(strs):,}, threads={threads}: "
          f"{best(lambda: sb.solve(strs, threads=threads)):,.0f} puzzles/s")
