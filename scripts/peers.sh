#!/usr/bin/env bash
# Side-by-side benchmark of sudoku-batch's `bands` solver against two peers, tdoku
# (github.com/t-dillon/tdoku) and fastdoku (github.com/rocketbombs/fastdoku), both BSD-2-Clause.
# The peers are built in a work folder outside the repository (never copied into it) and
# measured on the same permuted puzzle files as ours. Run with --help for the details.
set -euo pipefail
trap 'echo "peers.sh: stopped: a command failed (exit $?) at line $LINENO" >&2' ERR

usage() {
    cat <<'EOF'
Usage: scripts/peers.sh [OPTIONS]

Builds tdoku and fastdoku in a work folder outside the repository and compares them with
sudoku-batch's `bands` solver on every puzzle set in data/ and ../shared/data/ (missing
folders are skipped, identical files counted once), single thread:

  1. Pure solver rates, puzzles per CPU second: tdoku's own `run_benchmark`, fastdoku's
     `bench` and our in-process `sudoku-batch bench`, in first-solution mode and in unique
     mode (solution limit 2; fastdoku's bench has no such mode). The solvers take turns
     (A B C A B C ...), each ratio is taken within one round, and the table gives medians and
     min-max ranges. CPU time, not wall time, so other processes on a shared machine count
     less: fastdoku and ours from the CPU seconds between a run of P and one of 2P timed
     passes, tdoku's wall-clock rate divided by the CPU share of its process.
  2. Whole-process rates (first solution): `sudoku-batch bench --external` running tdoku's
     example loop (example/solve.c), `fastdoku solve -` and `sudoku-batch solve` itself, with
     every printed solution checked.

Every solver reads the same files: each set's solvable puzzles (the puzzle column of a CSV),
capped at --take, repeated up to --min-puzzles, then put through `bench`'s random equivalence
transforms once (seed --seed) and written out as 81-character lines.

Options:
  --tdoku DIR        Build tdoku from this local checkout (copied into the work folder)
                     [default: git clone https://github.com/t-dillon/tdoku]
  --fastdoku DIR     Build fastdoku from this local checkout (copied into the work folder)
                     [default: git clone https://github.com/rocketbombs/fastdoku]
  --work DIR         Work folder: sources, builds, puzzle files, raw results. Reusing one
                     keeps the builds (make and cargo rebuild only what changed)
                     [default: a new folder from mktemp -d]
  --out FILE         Also write the Markdown report here [default: WORK/peers.md]
  --binary PATH      The sudoku-batch binary [default: target/release/sudoku-batch, built with
                     cargo build --release]
  --sets FILES       Measure these puzzle files instead (space-separated, one argument)
  --take N           At most N puzzles of a set [default: 20000]
  --min-puzzles N    Repeat a smaller set's puzzles (each copy transformed differently) to at
                     least N, so no pass is timer noise [default: 1000]
  --rounds N         Alternating rounds per set and mode [default: 3]
  --seconds S        Seconds of solving per solver, mode and round (integer) [default: 2]
  --seed N           Permutation seed [default: 1]
  --no-whole         Skip the whole-process comparison
  -h, --help         This help

Needs git (unless both checkouts are given), cmake, clang, cargo and python3; on Debian or
Ubuntu: apt-get install -y git cmake clang python3 (Rust from https://rustup.rs).
Numbers depend on the machine being otherwise idle; the report records the load average.
EOF
}

die() {
    echo "peers.sh: $*" >&2
    exit 1
}
log() { echo "peers.sh: $*" >&2; }

repo=$(cd "$(dirname "$0")/.." && pwd -P)
tdoku_src=
fastdoku_src=
work=
out=
binary=
sets_arg=
take=20000
min_puzzles=1000
rounds=3
seconds=2
seed=1
whole=1

while [[ $# -gt 0 ]]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --tdoku) [[ $# -ge 2 ]] || die "--tdoku needs a folder"; tdoku_src=$2; shift 2 ;;
        --fastdoku) [[ $# -ge 2 ]] || die "--fastdoku needs a folder"; fastdoku_src=$2; shift 2 ;;
        --work) [[ $# -ge 2 ]] || die "--work needs a folder"; work=$2; shift 2 ;;
        --out) [[ $# -ge 2 ]] || die "--out needs a file"; out=$2; shift 2 ;;
        --binary) [[ $# -ge 2 ]] || die "--binary needs a path"; binary=$2; shift 2 ;;
        --sets) [[ $# -ge 2 ]] || die "--sets needs files"; sets_arg=$2; shift 2 ;;
        --take) [[ $# -ge 2 ]] || die "--take needs a number"; take=$2; shift 2 ;;
        --min-puzzles) [[ $# -ge 2 ]] || die "--min-puzzles needs a number"; min_puzzles=$2; shift 2 ;;
        --rounds) [[ $# -ge 2 ]] || die "--rounds needs a number"; rounds=$2; shift 2 ;;
        --seconds) [[ $# -ge 2 ]] || die "--seconds needs a number"; seconds=$2; shift 2 ;;
        --seed) [[ $# -ge 2 ]] || die "--seed needs a number"; seed=$2; shift 2 ;;
        --no-whole) whole=0; shift ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
for number in "$take" "$min_puzzles" "$rounds" "$seconds" "$seed"; do
    # Plain decimal: bash arithmetic reads a leading 0 as octal.
    [[ $number =~ ^(0|[1-9][0-9]{0,19})$ ]] || die "not a whole number: $number"
done
[[ $take -ge 1 && $rounds -ge 1 && $seconds -ge 1 ]] || die "--take, --rounds and --seconds must be at least 1"

# --- tools -----------------------------------------------------------------------------------
need() {
    command -v "$1" >/dev/null 2>&1 || die "$1 not found. $2"
}
need cmake "tdoku is built with CMake: apt-get install -y cmake"
need clang "tdoku is built with clang -O3 -march=native: apt-get install -y clang"
need clang++ "tdoku is built with clang -O3 -march=native: apt-get install -y clang"
need cargo "fastdoku and sudoku-batch are Rust: install it from https://rustup.rs"
need python3 "the report is assembled with python3: apt-get install -y python3"
if [[ -z $tdoku_src || -z $fastdoku_src ]]; then
    need git "the peers are fetched with git (or give local checkouts with --tdoku/--fastdoku): apt-get install -y git"
fi

# --- work folder, never inside the repository ------------------------------------------------
if [[ -z $work ]]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")
fi
work=$(realpath -m "$work")
case "$work/" in
    "$repo"/*) die "the work folder $work is inside the repository; the peers' code must stay out of it" ;;
esac
mkdir -p "$work"
out=${out:-$work/peers.md}
log "work folder: $work"

# --- sudoku-batch ----------------------------------------------------------------------------
if [[ -z $binary ]]; then
    log "building sudoku-batch (cargo build --release)"
    (cd "$repo" && cargo build --release --quiet) || die "cargo build --release failed in $repo"
    binary=$repo/target/release/sudoku-batch
fi
[[ -x $binary ]] || die "no executable sudoku-batch at $binary"
binary=$(cd "$(dirname "$binary")" && pwd -P)/$(basename "$binary")

# --- sources ---------------------------------------------------------------------------------
# A local checkout is copied (without its build outputs) so building never writes into it; a
# fetched one is a shallow clone. Either way the copy lives in the work folder.
get_source() {
    local name=$1 url=$2 local_dir=$3 dest=$4
    if [[ -n $local_dir ]]; then
        [[ -d $local_dir ]] || die "--$name $local_dir: no such folder"
        local_dir=$(cd "$local_dir" && pwd -P)
        case "$local_dir/" in
            "$repo"/*) die "--$name $local_dir is inside the repository; keep the peers' code out of it" ;;
        esac
        mkdir -p "$dest"
        tar -C "$local_dir" --exclude=./build --exclude=./target --exclude=./.git -cf - . |
            tar -C "$dest" -xf -
        local commit
        commit=$(git -C "$local_dir" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
        echo "local checkout $local_dir ($commit)"
    elif [[ -d $dest/.git ]]; then
        echo "$url ($(git -C "$dest" rev-parse --short HEAD), already in the work folder)"
    else
        git clone --quiet --depth 1 "$url" "$dest" >&2 ||
            die "cannot clone $url (no network?); give a local checkout with --$name DIR"
        echo "$url ($(git -C "$dest" rev-parse --short HEAD))"
    fi
}

tdoku_dir=$work/tdoku
fastdoku_dir=$work/fastdoku
tdoku_origin=$(get_source tdoku https://github.com/t-dillon/tdoku "$tdoku_src" "$tdoku_dir")
fastdoku_origin=$(get_source fastdoku https://github.com/rocketbombs/fastdoku "$fastdoku_src" "$fastdoku_dir")
[[ -f $tdoku_dir/CMakeLists.txt && -f $tdoku_dir/src/run_benchmark.cc && -f $tdoku_dir/example/solve.c ]] ||
    die "$tdoku_dir does not look like tdoku (CMakeLists.txt, src/run_benchmark.cc, example/solve.c)"
[[ -f $fastdoku_dir/Cargo.toml ]] || die "$fastdoku_dir does not look like fastdoku (no Cargo.toml)"

# --- builds ----------------------------------------------------------------------------------
# tdoku: its CMake build (what BUILD.sh runs) with clang, -O3 -march=native (OPT, ARCH), then
# its example loop linked against the static library, as its README shows.
log "building tdoku (clang, -O3 -march=native)"
{
    cmake -S "$tdoku_dir" -B "$tdoku_dir/build" -DCMAKE_C_COMPILER=clang \
        -DCMAKE_CXX_COMPILER=clang++ -DOPT=O3 -DARCH=native &&
        cmake --build "$tdoku_dir/build" --target run_benchmark tdoku_static -j "$(nproc)" &&
        clang -O3 -march=native "$tdoku_dir/example/solve.c" "$tdoku_dir/build/libtdoku_static.a" \
            -o "$tdoku_dir/build/solve" -lstdc++ -lm
} >"$work/tdoku-build.log" 2>&1 || die "building tdoku failed; see $work/tdoku-build.log"
tdoku_bench=$tdoku_dir/build/run_benchmark
tdoku_solve=$tdoku_dir/build/solve

log "building fastdoku (cargo build --release, -C target-cpu=native)"
(cd "$fastdoku_dir" && RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$fastdoku_dir/target" \
    cargo build --release --quiet) >"$work/fastdoku-build.log" 2>&1 ||
    die "building fastdoku failed; see $work/fastdoku-build.log"
fastdoku=$fastdoku_dir/target/release/fastdoku
[[ -x $fastdoku ]] || die "no fastdoku binary at $fastdoku"

# --- puzzle files ----------------------------------------------------------------------------
sets=()
if [[ -n $sets_arg ]]; then
    read -r -a sets <<<"$sets_arg"
else
    for folder in "$repo/data" "$repo/../shared/data"; do
        [[ -d $folder ]] || { log "no $folder, skipped"; continue; }
        for file in "$folder"/*.txt "$folder"/*.csv; do
            [[ -f $file ]] && sets+=("$file")
        done
    done
fi
[[ ${#sets[@]} -gt 0 ]] || die "no puzzle sets found"

mkdir -p "$work/sets" "$work/raw"
declare -A seen=() taken=()
names=()
rm -f "$work/sets.tsv.new"
for file in "${sets[@]}"; do
    [[ -f $file ]] || { log "$file: missing, skipped"; continue; }
    sum=$(sha256sum "$file" | cut -c1-64)
    if [[ -n ${seen[$sum]:-} ]]; then
        log "$file: same content as ${seen[$sum]}, counted once"
        continue
    fi
    seen[$sum]=$file
    name=$(basename "$file")
    name=${name%.*}
    name=${name//[^A-Za-z0-9_.-]/_}
    while [[ -n ${taken[$name]:-} ]]; do name=${name}_2; done
    taken[$name]=1
    # The solvable puzzles (status solved or multiple under --unique; `unsolvable` ones would
    # stop tdoku's benchmark), as 81-character lines, at most --take of them.
    plain=$work/sets/$name.plain.txt
    "$binary" solve "$file" -q -j 1 --unique --columns puzzle,status -o "$work/sets/$name.status.csv" ||
        true
    [[ -s $work/sets/$name.status.csv ]] || { log "$file: no readable puzzles, skipped"; continue; }
    awk -F, -v take="$take" 'NR > 1 && ($2 == "solved" || $2 == "multiple") { print $1; if (++n == take) exit }' \
        "$work/sets/$name.status.csv" >"$plain"
    distinct=$(wc -l <"$plain")
    [[ $distinct -gt 0 ]] || { log "$file: no solvable puzzles, skipped"; continue; }
    copies=$(((min_puzzles + distinct - 1) / distinct))
    [[ $copies -ge 1 ]] || copies=1
    for ((k = 0; k < copies; k++)); do cat "$plain"; done >"$work/sets/$name.repeated.txt"
    # One pass of `bench --external` with a command that keeps its input: the file bench
    # writes for an external solver is exactly the transformed puzzles of that pass.
    permuted=$work/sets/$name.txt
    rm -f "$permuted"
    "$binary" bench "$work/sets/$name.repeated.txt" --solvers bands -j 1 --runs 1 --warmup 0 \
        --min-time 0 --max-pass 600 --permute "$seed" -q \
        --external "keep=tee '$permuted' | '$binary' solve - -q -j 1 --columns solution --no-header" \
        >"$work/sets/$name.permute.md" ||
        die "permuting $file failed; see $work/sets/$name.permute.md"
    [[ $(wc -l <"$permuted") -eq $((distinct * copies)) ]] || die "permuting $file: unexpected line count"
    rm -f "$work/sets/$name.repeated.txt" "$work/sets/$name.status.csv" "$work/sets/$name.status.csv.run.json"
    printf '%s\t%s\t%s\t%s\n' "$name" "$distinct" "$copies" "$file" >>"$work/sets.tsv.new"
    names+=("$name")
done
[[ ${#names[@]} -gt 0 ]] || die "no usable puzzle sets"
mv "$work/sets.tsv.new" "$work/sets.tsv"

# --- pure solver rates -----------------------------------------------------------------------
results=$work/raw/pure.tsv
: >"$results"
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" >>"$results"; }

# tdoku's benchmark on the file as given (-r0: no sampling or permutation of its own; -n the
# file's size, so one pass is the file once), warm-up 1 s then --seconds timed. It reports
# puzzles over wall time, which on a busy machine counts the time other processes held the CPU;
# like the others it is turned into a rate per CPU second, here by dividing by the share of the
# CPU its process got (CPU time over wall time, warm-up included, which lasts about as long as
# the timed part). Prints "rate share".
run_tdoku() { # file mode -> puzzles/s share
    local file=$1 mode=$2 n flags=() TIMEFORMAT='%R %U %S'
    n=$(wc -l <"$file")
    [[ $mode == first ]] && flags=(-f)
    { time "$tdoku_bench" -s tdoku -r0 -n "$n" -w 1 -t "$seconds" -c1 "${flags[@]}" "$file" \
        >"$work/raw/last-tdoku.txt" 2>&1; } 2>"$work/raw/last-tdoku.time" ||
        die "tdoku's run_benchmark failed on $file: $(head -c 300 "$work/raw/last-tdoku.txt")"
    awk -F, -v times="$(cat "$work/raw/last-tdoku.time")" '
        $5 == "tdoku" {
            split(times, t, " "); share = (t[2] + t[3]) / t[1]; if (share > 1) share = 1
            printf "%.1f %.3f\n", $6 / share, share; found = 1
        }
        END { exit !found }' "$work/raw/last-tdoku.txt" ||
        die "no tdoku result for $file: $(head -c 300 "$work/raw/last-tdoku.txt")"
}

# CPU seconds (user + system) of a command, its output kept in a file.
cpu_seconds() { # outfile command...
    local out=$1 TIMEFORMAT='%U %S'
    shift
    { time "$@" >"$out" 2>&1; } 2>"$out.time" || return 1
    awk '{ printf "%.3f\n", $1 + $2 }' "$out.time"
}

# Rate from two runs that differ only in their number of timed passes (P and 2P): start-up,
# loading, the checking pass and the warm-up cancel out, and CPU time does not count the time
# other processes held the CPU.
two_point() { # puzzles passes cpu1 cpu2 -> puzzles/s
    awk -v n="$1" -v p="$2" -v a="$3" -v b="$4" 'BEGIN { if (b <= a) exit 1; printf "%.1f\n", n * p / (b - a) }'
}
passes_for() { # rate puzzles -> passes lasting about --seconds / 2
    awk -v r="$1" -v n="$2" -v s="$seconds" 'BEGIN { p = int(s / 2 * r / n); if (p < 3) p = 3; if (p > 100000) p = 100000; print p }'
}

# fastdoku's bench: a verification pass, a warm-up pass, then PASSES timed passes of which it
# prints the best. Run with P and 2P passes; its best pass is kept in the raw results.
fastdoku_rate() { # output line -> puzzles/s
    awk '{ v = $2; u = $3; if (u == "ns") r = 1e9 / v; else if (u == "us") r = 1e6 / v; else exit 1; printf "%.1f\n", r }' <<<"$1"
}
fastdoku_passes() { # file -> P
    local file=$1 line rate
    line=$("$fastdoku" bench "$file" --rounds 1) || die "fastdoku bench failed on $file"
    rate=$(fastdoku_rate "$line") || die "cannot read fastdoku's output: $line"
    passes_for "$rate" "$(wc -l <"$file")"
}
run_fastdoku() { # file P -> "puzzles/s - best-pass-rate best-pass-rate"
    local file=$1 passes=$2 n cpu1 cpu2 line rate best
    n=$(wc -l <"$file")
    cpu1=$(cpu_seconds "$work/raw/last-fastdoku1.txt" "$fastdoku" bench "$file" --rounds "$passes") ||
        die "fastdoku bench failed on $file"
    cpu2=$(cpu_seconds "$work/raw/last-fastdoku2.txt" "$fastdoku" bench "$file" --rounds $((2 * passes))) ||
        die "fastdoku bench failed on $file"
    for line in "$(cat "$work/raw/last-fastdoku1.txt")" "$(cat "$work/raw/last-fastdoku2.txt")"; do
        [[ $line == *"$n puzzles, $n ok"* ]] || die "fastdoku did not solve every puzzle of $file: $line"
    done
    best=$(fastdoku_rate "$line") || die "cannot read fastdoku's output: $line"
    rate=$(two_point "$n" "$passes" "$cpu1" "$cpu2") || die "fastdoku on $file: no CPU time between P and 2P passes"
    echo "$rate - $best $best"
}

# Ours: the in-process bench on the same file as given (--no-permute), no warm-up and exactly
# P or 2P timed passes. bench's CPU share, median and best pass of the second run are kept in the raw
# results.
bands_bench() { # file mode passes csv
    local flags=()
    [[ $2 == unique ]] && flags=(--unique)
    rm -f "$4"
    "$binary" bench "$1" --solvers bands -j 1 --no-permute --warmup 0 --min-time 0 --runs "$3" \
        --max-pass 600 -q --csv "$4" "${flags[@]}"
}
bands_column() { # csv column -> value (columns before the free-text note, the 22nd, hold no commas)
    awk -F, -v c="$2" 'NR == 2 && $9 == "ok" { print $c; found = 1 } END { exit !found }' "$1"
}
bands_passes() { # file mode -> P
    local csv=$work/raw/last-bands0.csv rate
    bands_bench "$1" "$2" 3 "$csv" >/dev/null || die "sudoku-batch bench failed on $1"
    rate=$(bands_column "$csv" 12) || die "no bands result for $1"
    passes_for "$rate" "$(wc -l <"$1")"
}
run_bands() { # file mode P -> "puzzles/s cpu-share median-pass-rate best-pass-rate"
    local file=$1 mode=$2 passes=$3 n cpu1 cpu2 rate
    n=$(wc -l <"$file")
    cpu1=$(cpu_seconds "$work/raw/last-bands1.md" bands_bench "$file" "$mode" "$passes" "$work/raw/last-bands1.csv") ||
        die "sudoku-batch bench failed on $file"
    cpu2=$(cpu_seconds "$work/raw/last-bands2.md" bands_bench "$file" "$mode" $((2 * passes)) "$work/raw/last-bands2.csv") ||
        die "sudoku-batch bench failed on $file"
    bands_column "$work/raw/last-bands1.csv" 12 >/dev/null || die "no bands result for $file"
    rate=$(two_point "$n" "$passes" "$cpu1" "$cpu2") || die "bands on $file: no CPU time between P and 2P passes"
    local csv=$work/raw/last-bands2.csv
    echo "$rate $(bands_column "$csv" 21) $(bands_column "$csv" 12) $(bands_column "$csv" 14)"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# One measurement: an assignment, so a failure inside the command substitution stops the script.
measure() { # set round solver mode command...
    local value rate share median best
    value=$("${@:5}")
    read -r rate share median best <<<"$value"
    record "$1" "$2" "$3" "$4" "$rate" "${share:--}" "${median:--}" "${best:--}"
}
for name in "${names[@]}"; do
    file=$work/sets/$name.txt
    fastdoku_p=$(fastdoku_passes "$file")
    bands_first_p=$(bands_passes "$file" first)
    bands_unique_p=$(bands_passes "$file" unique)
    for ((round = 1; round <= rounds; round++)); do
        log "$name: round $round of $rounds"
        measure "$name" "$round" tdoku first run_tdoku "$file" first
        measure "$name" "$round" fastdoku first run_fastdoku "$file" "$fastdoku_p"
        measure "$name" "$round" bands first run_bands "$file" first "$bands_first_p"
        measure "$name" "$round" tdoku unique run_tdoku "$file" unique
        measure "$name" "$round" bands unique run_bands "$file" unique "$bands_unique_p"
    done
done

# --- whole-process rates ---------------------------------------------------------------------
# bench --external gives wall time (and checks every solution); the same commands are then timed
# by hand in CPU seconds (user + system of every process of the command), in turns.
whole_csv=$work/raw/whole.csv
whole_cpu=$work/raw/whole-cpu.tsv
rm -f "$whole_csv" "$whole_cpu"
declare -A whole_command=(
    [tdoku]="'$tdoku_solve' 1"
    [fastdoku]="'$fastdoku' solve - 2>/dev/null"
    [sudoku-batch]="'$binary' solve - -q -j 1 --columns solution --no-header"
)
if [[ $whole -eq 1 ]]; then
    for name in "${names[@]}"; do
        log "$name: whole-process runs"
        file=$work/sets/$name.txt
        "$binary" bench "$file" --solvers bands -j 1 --no-permute --warmup 1 \
            --min-time "$seconds" --runs "$rounds" --max-pass 600 -q --csv "$whole_csv" \
            --external "tdoku=${whole_command[tdoku]}" \
            --external "fastdoku=${whole_command[fastdoku]}" \
            --external "sudoku-batch=${whole_command[sudoku-batch]}" \
            >"$work/raw/whole-$name.md" || log "$name: a whole-process row failed; see $work/raw/whole-$name.md"
        n=$(wc -l <"$file")
        for ((round = 1; round <= rounds; round++)); do
            for solver in tdoku fastdoku sudoku-batch; do
                cpu=$(cpu_seconds "$work/raw/last-whole.txt" sh -c "exec <'$file'; ${whole_command[$solver]}") ||
                    die "$solver failed on $file: $(head -c 300 "$work/raw/last-whole.txt")"
                lines=$(wc -l <"$work/raw/last-whole.txt")
                [[ $lines -eq $n ]] || die "$solver printed $lines lines for the $n puzzles of $file"
                printf '%s\t%s\t%s\t%s\n' "$name" "$round" "$solver" \
                    "$(awk -v n="$n" -v c="$cpu" 'BEGIN { printf "%.1f", (c > 0 ? n / c : 0) }')" >>"$whole_cpu"
            done
        done
    done
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ----------------------------------------------------------------------------------
python3 - "$work" "$results" "$whole_csv" "$rounds" "$whole_cpu" <<'EOF' >"$out"
import csv, os, statistics, sys
from collections import defaultdict

work, results, whole_csv, rounds, whole_cpu = sys.argv[1:6]
sets = [line.rstrip("\n").split("\t") for line in open(os.path.join(work, "sets.tsv"))]
rate = defaultdict(dict)  # (set, solver, mode) -> {round: rate}
best = defaultdict(dict)  # (set, solver, mode) -> {round: best pass, wall clock}
shares = defaultdict(list)  # solver -> CPU shares
for line in open(results):
    name, rnd, solver, mode, value, share, median, top = line.split()
    rate[(name, solver, mode)][int(rnd)] = float(value)
    if top != "-":
        best[(name, solver, mode)][int(rnd)] = float(top)
    if share != "-":
        shares[solver].append(float(share))

def fmt(x):
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.0f}k" if x >= 1e4 else f"{x / 1e3:.1f}k"
    return f"{x:.0f}"

def spread(values, f=fmt):
    if not values:
        return "–"
    med = statistics.median(values)
    lo, hi = min(values), max(values)
    return f(med) if len(values) == 1 else f"{f(med)} ({f(lo)}–{f(hi)})"

def ratio(a, b, table=rate):
    ra, rb = table.get(a, {}), table.get(b, {})
    return [ra[k] / rb[k] for k in sorted(ra) if k in rb and rb[k] > 0]

r2 = lambda x: f"{x:.2f}"
print("## Pure solver rates, single thread (puzzles/s)")
print()
print(f"Median of {rounds} alternating rounds (min–max); ratios are bands ÷ peer within each round.")
print("Rates per CPU second: fastdoku and bands from the CPU time between a run of P and one of 2P")
print("passes of their benchmarks, tdoku its benchmark's wall-clock rate ÷ its process's CPU share.")
print("CPU share (CPU time ÷ wall time), median (min–max): " + ", ".join(
    f"{s} {statistics.median(v):.2f} ({min(v):.2f}–{max(v):.2f})" for s, v in sorted(shares.items())) + ".")
print()
print("| set | puzzles | tdoku first | fastdoku first | bands first | × tdoku | × fastdoku | × fastdoku, best passes | tdoku unique | bands unique | unique × tdoku |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, distinct, copies, path in sets:
    count = distinct if copies == "1" else f"{distinct} ×{copies}"
    cells = [
        spread(list(rate[(name, "tdoku", "first")].values())),
        spread(list(rate[(name, "fastdoku", "first")].values())),
        spread(list(rate[(name, "bands", "first")].values())),
        spread(ratio((name, "bands", "first"), (name, "tdoku", "first")), r2),
        spread(ratio((name, "bands", "first"), (name, "fastdoku", "first")), r2),
        spread(ratio((name, "bands", "first"), (name, "fastdoku", "first"), best), r2),
        spread(list(rate[(name, "tdoku", "unique")].values())),
        spread(list(rate[(name, "bands", "unique")].values())),
        spread(ratio((name, "bands", "unique"), (name, "tdoku", "unique")), r2),
    ]
    print(f"| {name} | {count} | " + " | ".join(cells) + " |")

if os.path.exists(whole_csv):
    rows = defaultdict(dict)
    notes = []
    for row in csv.DictReader(open(whole_csv, newline="")):
        name = row["dataset"][:-4] if row["dataset"].endswith(".txt") else row["dataset"]
        ok = row["status"] == "ok"
        rows[name][row["solver"]] = float(row["puzzles_per_s"]) if ok else None
        if not ok:
            notes.append(f"- {name} × {row['solver']}: {row['status']} ({row['note']})")
    print()
    print("## Whole process, first solution, single thread (puzzles/s)")
    print()
    print("`sudoku-batch bench --external`: the wall time of each program over the whole file,")
    print(f"start-up, reading and writing included, median of {rounds} passes, every solution checked;")
    print("`bands (in-process)` is the same bench's own row for reference.")
    print()
    print("| set | tdoku loop | fastdoku solve | sudoku-batch solve | × tdoku | × fastdoku | bands (in-process) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, distinct, copies, path in sets:
        r = rows.get(name, {})
        get = lambda s: r.get(s)
        cell = lambda s: fmt(get(s)) if get(s) else "–"
        div = lambda a, b: r2(get(a) / get(b)) if get(a) and get(b) else "–"
        print(f"| {name} | {cell('tdoku')} | {cell('fastdoku')} | {cell('sudoku-batch')} | "
              f"{div('sudoku-batch', 'tdoku')} | {div('sudoku-batch', 'fastdoku')} | {cell('bands')} |")
    for note in notes:
        print(note)

if os.path.exists(whole_cpu):
    cpu = defaultdict(dict)  # (set, solver) -> {round: rate}
    for line in open(whole_cpu):
        name, rnd, solver, value = line.split()
        cpu[(name, solver)][int(rnd)] = float(value)
    def cratio(name, a, b):
        ra, rb = cpu.get((name, a), {}), cpu.get((name, b), {})
        return [ra[k] / rb[k] for k in sorted(ra) if k in rb and rb[k] > 0]
    print()
    print("## Whole process, first solution, single thread (puzzles per CPU second)")
    print()
    print(f"The same three commands timed by hand, {rounds} alternating rounds: puzzles over the CPU time")
    print("(user + system) of every process of the command, median (min–max).")
    print()
    print("| set | tdoku loop | fastdoku solve | sudoku-batch solve | × tdoku | × fastdoku |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, distinct, copies, path in sets:
        print(f"| {name} | {spread(list(cpu[(name, 'tdoku')].values()))} | "
              f"{spread(list(cpu[(name, 'fastdoku')].values()))} | "
              f"{spread(list(cpu[(name, 'sudoku-batch')].values()))} | "
              f"{spread(cratio(name, 'sudoku-batch', 'tdoku'), r2)} | "
              f"{spread(cratio(name, 'sudoku-batch', 'fastdoku'), r2)} |")

print()
print("## Sets")
print()
for name, distinct, copies, path in sets:
    extra = "" if copies == "1" else f", repeated ×{copies}"
    print(f"- {name}: {path} ({distinct} solvable puzzles{extra}), work/sets/{name}.txt")
EOF

{
    echo
    echo "## How this was run"
    echo
    echo "- Started $started; load average (1, 5, 15 min) $load_before before, $load_after after;"
    echo "  $(nproc) logical cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')."
    # The commit the binary was built from, as its bench rows record it (a `--binary` may not
    # be this checkout's HEAD).
    built=$(python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))["git_commit"])' \
        "$work/raw/last-bands2.csv" 2>/dev/null || echo unknown)
    echo "- sudoku-batch: $binary ($("$binary" --version)), built from git $built."
    echo "- tdoku: $tdoku_origin; clang $(clang --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), -O3 -march=native."
    echo "- fastdoku: $fastdoku_origin; $(rustc --version), RUSTFLAGS=\"-C target-cpu=native\"."
    echo "- Work folder: $work (WORK below)."
    echo
    echo "Commands, per set (SET = WORK/sets/NAME.txt, N = its line count):"
    echo
    echo '```sh'
    echo "# the puzzle file: solvable puzzles, capped and repeated, transformed once by bench"
    echo "sudoku-batch solve INPUT -q -j 1 --unique --columns puzzle,status -o status.csv"
    echo "sudoku-batch bench REPEATED --solvers bands -j 1 --runs 1 --warmup 0 --min-time 0 --permute $seed \\"
    echo "    --external \"keep=tee SET | sudoku-batch solve - -q -j 1 --columns solution --no-header\""
    echo "# pure rates, in turn, $rounds rounds"
    echo "WORK/tdoku/build/run_benchmark -s tdoku -r0 -n N -w 1 -t $seconds -c1 [-f] SET   # -f: first solution"
    echo "WORK/fastdoku/target/release/fastdoku bench SET --rounds P        # and --rounds 2P; P: about $seconds/2 s"
    echo "sudoku-batch bench SET --solvers bands -j 1 --no-permute --warmup 0 --min-time 0 --runs P [--unique]   # and 2P"
    if [[ $whole -eq 1 ]]; then
        echo "# whole process"
        echo "sudoku-batch bench SET --solvers bands -j 1 --no-permute --warmup 1 --min-time $seconds --runs $rounds \\"
        echo "    --external \"tdoku=WORK/tdoku/build/solve 1\" --external \"fastdoku=WORK/fastdoku/target/release/fastdoku solve - 2>/dev/null\" \\"
        echo "    --external \"sudoku-batch=sudoku-batch solve - -q -j 1 --columns solution --no-header\""
        echo "# the same three commands by hand, in CPU seconds (bash's time: user + system), $rounds rounds"
        echo "sh -c \"exec < SET; COMMAND\""
    fi
    echo '```'
    echo
    echo "Every rate is per CPU second, so time other processes held the CPU does not count: fastdoku's"
    echo "and ours are n x P / (CPU seconds of the 2P-pass run - those of the P-pass run), which"
    echo "cancels start-up, loading, checking and warm-up; tdoku's is its benchmark's wall-clock mean"
    echo "divided by its process's CPU share. WORK/raw/pure.tsv has the CPU shares, fastdoku's best"
    echo "pass and bench's median and best passes as well. \"× fastdoku, best passes\" compares the two"
    echo "benchmarks' own best passes of the 2P-pass runs (wall clock, the time of one pass over the"
    echo "file): the same statistic for both, and on a noisy machine steadier than a difference of two"
    echo "CPU totals."
} >>"$out"

cat "$out"
log "report written to $out; raw results in $work/raw"
