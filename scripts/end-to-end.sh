#!/usr/bin/env bash
# End-to-end benchmark of `solve`: builds the release binary, makes a 1,000,000-line
# file from data/ (the puzzle column of data/kaggle3m_radcliffe_first1000.csv repeated) and the
# same puzzles in Kaggle's CSV layout (quizzes,solutions; the solutions are checked as
# references), runs `-j 1` and `-j all` on each (output to a temp file, never /dev/null), and
# prints:
#   - the end-to-end rate (puzzles / wall second; on a loaded machine also per CPU second),
#   - the pure single-thread solve rate: 1e6 / the sum over puzzles of the median `solve_ns`
#     of each distinct puzzle (each appears 1,000 times; preemption only ever makes a sample
#     larger, so the median filters it out where the plain sum of solve_ns would count it),
#   - their ratio against the ideal (threads x pure rate),
#   - the solver's share of the process CPU at -j 1 (the summary's `solve_share`).
# Usage: scripts/end-to-end.sh [BINARY]   (default: build target/release/sudoku-batch)
# Env: E2E_DIR (work directory, default a temp dir), E2E_LINES (default 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -ge 1 ]]; then
    bin=$1
else
    cargo build --release --quiet
    bin=target/release/sudoku-batch
fi
lines=${E2E_LINES:-1000000}
dir=${E2E_DIR:-$(mktemp -d)}
mkdir -p "$dir"
threads=$(nproc)

python3 - "$dir" "$lines" <<'EOF'
import csv, sys
out, n = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open("data/kaggle3m_radcliffe_first1000.csv", newline="")))
with open(f"{out}/easy.txt", "w") as t, open(f"{out}/easy.csv", "w") as c:
    c.write("quizzes,solutions\n")
    for i in range(n):
        r = rows[i % len(rows)]
        t.write(r["puzzle"] + "\n")
        c.write(f'{r["puzzle"]},{r["solution"]}\n')
EOF

# One run: prints "wall user sys maxrss_kib" and leaves the rows in $dir/out.csv.
run() {
    local input=$1 j=$2
    # A fresh output, as in a first run: replacing an existing 200 MB file makes ext4 flush the
    # new one at the rename (auto_da_alloc), about 0.1 s of wall time that is the disk's, not
    # the pipeline's (docs/BENCHMARKS.md).
    rm -f "$dir/out.csv" "$dir/out.csv.run.json"
    # The previous run's 200 MB are written back now, not by kernel threads during this run.
    sync
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" \
        "$bin" solve -q -j "$j" --summary "$dir/summary.json" -o "$dir/out.csv" "$input"
    cat "$dir/time.txt"
}

report() {
    python3 - "$dir" "$@" <<'EOF'
import csv, json, statistics, sys
from collections import defaultdict
out, layout, j, wall, user, sys_, rss = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:8])
summary = json.load(open(f"{out}/summary.json"))
per = defaultdict(list)
with open(f"{out}/out.csv", newline="") as f:
    r = csv.DictReader(f)
    for row in r:
        per[row["puzzle"]].append(int(row["solve_ns"]))
n = sum(len(v) for v in per.values())
pure_s = sum(statistics.median(v) * len(v) for v in per.values()) / 1e9
pure = n / pure_s
cpu = user + sys_
e2e = n / wall
e2e_cpu = n / (cpu / j) if cpu > 0 else 0
print(f"{layout:5} -j {j}: {n} puzzles, wall {wall:.2f} s, user+sys {cpu:.2f} s, peak RSS {rss/1024:.1f} MB")
print(f"        end to end {e2e/1e3:.0f} k/s (wall), {e2e_cpu/1e3:.0f} k/s per {j} CPU-second(s) of {j} thread(s)")
print(f"        pure single-thread solve rate {pure/1e3:.0f} k/s (median solve_ns per distinct puzzle)")
print(f"        ratio e2e / ({j} x pure): {e2e/(j*pure):.2f} (wall), {e2e_cpu/(j*pure):.2f} (CPU time; use this on a loaded machine)")
if j == 1:
    print(f"        solver share of process CPU: {summary.get('solve_share', 0):.2f} (summary), "
          f"{pure_s/cpu:.2f} (pure solve time / user+sys)")
EOF
}

uptime
for layout in txt csv; do
    for j in 1 "$threads"; do
        read -r wall user sys rss < <(run "$dir/easy.$layout" "$j")
        report "$layout" "$j" "$wall" "$user" "$sys" "$rss"
    done
done
