"""Side by side: rustoku.solve in a Python loop vs sudoku_batch.solve on the whole list (one
thread each, then sudoku_batch on 2), best of 3. Needs rustoku (pip install rustoku) in the same
environment as sudoku_batch; run from the repo root."""
import csv
import time

import rustoku

import sudoku_batch as sb

sets = {
    "top1465": [l.split()[0] for l in open("data/magictour_top1465.txt") if l.strip()],
    "kaggle 1000": [r["puzzle"] for r in csv.DictReader(open("data/kaggle3m_radcliffe_first1000.csv"))],
}


def best(fn, n):
    return n / min(_time(fn) for _ in range(3))


def _time(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


for name, puzzles in sets.items():
    loop = best(lambda: [rustoku.solve(p) for p in puzzles], len(puzzles))
    one = best(lambda: sb.solve(puzzles, threads=1), len(puzzles))
    two = best(lambda: sb.solve(puzzles, threads=2), len(puzzles))
    assert [rustoku.solve(p) for p in puzzles] == sb.solve(puzzles).solution_strings()
    print(f"{name}: rustoku loop {loop:,.0f}/s; sudoku_batch threads=1 {one:,.0f}/s "
          f"({one / loop:.1f}x), threads=2 {two:,.0f}/s ({two / loop:.1f}x)")
