#!/usr/bin/env python3
"""Where a `solve` run's CPU goes, by stage: the Markdown table of docs/BENCHMARKS.md.

Usage: scripts/cpu-stages.py PERF_DATA CPU_SECONDS PUZZLES

PERF_DATA is a `perf record -e cpu-clock` profile of one run (for example
`perf record -e cpu-clock -F 1999 -o P.data sudoku-batch solve FILE -q -j 1 -o OUT.csv`),
CPU_SECONDS that run's user+sys time (for example the task-clock of `perf stat`), PUZZLES
its number of records. Each sampled symbol's own time goes to the first stage whose pattern
matches it; what matches none is "alloc/free, page faults, startup, misc".
"""
import collections
import re
import subprocess
import sys

STAGES = [
    ("solving (`run_v3`, `solve_v3`, clue placement, the solution grid)",
     r"run_v3|solve_v3|place_clues|grid_avx2|solver::bands|first_round|from_clues|clue_masks"),
    ("input hash (BLAKE3, on the reading thread)", r"blake3"),
    ("reading and cutting lines (the `read` copy out of the page cache, the batch cutter)",
     r"_copy_to_iter|filemap_read|next_batch|LineSource|memchr|read_line|fill_buf|"
     r"copy_page_to_iter|filemap_get|CountingReader|gather"),
    ("parsing (`with_fields`, `line_fields`, `from_fields`, `from_bytes`)",
     r"with_fields|line_fields|from_fields|from_bytes|Body::|parse"),
    ("checking the solution", r"check_solution|all_units_complete"),
    ("verdict and timing (`judge`, two clock reads)", r"judge|stopwatch|rdtsc|Instant"),
    ("formatting rows (the worker loop, `push_csv_field`)",
     r"HeapJob|push_csv|write_row|RowFormat|itoa|fmt::|format"),
    ("copying text and rows (`memmove`)", r"memmove|memcpy"),
    ("writing (write(2): page-cache copy, ext4)",
     r"copy_folio_from_iter|ext4|generic_perform_write|block_|mpage|folio|jbd2|iomap|"
     r"__filemap_add|write_begin|write_end|balance_dirty"),
    ("summary histogram", r"hdrhistogram|Histogram"),
    ("ordering / waking threads",
     r"futex|finish_task_switch|schedule|sched_|_raw_spin|try_to_wake|crossbeam|rayon|wake|"
     r"switch_to|pick_next|enqueue|dequeue|update_curr|Sleep|park"),
]
MISC = "alloc/free, page faults, startup, misc"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    data, seconds, puzzles = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--stdio", "--sort", "sym",
         "--percent-limit", "0"],
        capture_output=True, text=True, check=True).stdout
    share = collections.Counter()
    for line in report.splitlines():
        m = re.match(r"\s+([0-9.]+)%\s+\[[.k]\]\s+(.*)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        name = next((n for n, rx in STAGES if re.search(rx, sym)), MISC)
        share[name] += pct
    total = sum(share.values()) or 1.0
    ns = seconds * 1e9 / puzzles
    print("| stage | % | ns/puzzle |")
    print("|---|---:|---:|")
    for name in [n for n, _ in STAGES] + [MISC]:
        pct = 100 * share[name] / total
        print(f"| {name} | {pct:.1f} | {pct / 100 * ns:.0f} |")
    rest = 100 - 100 * share[STAGES[0][0]] / total
    print(f"| **everything but solving** | **{rest:.1f}** | **≈ {rest / 100 * ns:.0f}** |")


if __name__ == "__main__":
    main()
