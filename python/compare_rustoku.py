"""Side by side: rustoku.solve in a Python loop vs sudoku_batch.solve on the whole list (one
thread each, then sudoku_batch on 2), best of 3, same solutions asserted. Needs rustoku
(pip install rustoku) in the same environment as sudoku_batch; run from the repo root.

Extra line files (one puzzle per line) given as arguments are measured too, for example the
49,151-puzzle 17-clue list, which is not shipped in data/:

    python python/compare_rustoku.py /path/to/sudoku17.txt
"""
import csv
import sys
import time
from pathlib import Path

import rustoku

import sudoku_batch as sb


def lines(path):
    return [l.split()[0] for l in open(path) if l.strip()]


sets = {
    "top1465": lines("data/magictour_top1465.txt"),
    "kaggle 1000": [r["puzzle"] for r in csv.DictReader(open("data/kaggle3m_radcliffe_first1000.csv"))],
}
for extra in sys.argv[1:]:
    sets[Path(extra).name] = lines(extra)


def best(fn, n):
    """(puzzles per second of the fastest of 3 runs, the last run's result)."""
    times, result = [], None
    for _ in range(3):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return n / min(times), result


for name, puzzles in sets.items():
    loop, theirs = best(lambda: [rustoku.solve(p) for p in puzzles], len(puzzles))
    one, ours = best(lambda: sb.solve(puzzles, threads=1), len(puzzles))
    two, _ = best(lambda: sb.solve(puzzles, threads=2), len(puzzles))
    assert ours.counts() == {"solved": len(puzzles)}
    assert theirs == ours.solution_strings()
    print(f"{name} ({len(puzzles):,} puzzles): rustoku loop {loop:,.0f}/s; "
          f"sudoku_batch threads=1 {one:,.0f}/s ({one / loop:.1f}x), "
          f"threads=2 {two:,.0f}/s ({two / loop:.1f}x)", flush=True)
