#!/bin/bash
# Runs each cargo-fuzz target (reader, solve, rate) for SECONDS (default 300), at low priority.
#   scripts/fuzz.sh [SECONDS] [--parallel]
# --parallel runs the targets at once instead of one after the other.
# Needs `cargo install cargo-fuzz`. cargo-fuzz wants nightly features (-Zsanitizer=address):
# with a nightly toolchain installed it uses `cargo +nightly fuzz`; without one it uses the
# stable toolchain with RUSTC_BOOTSTRAP=1 (what CI and the 1.95-only VMs have). FUZZ_TOOLCHAIN
# (nightly, stable) overrides the choice. Crashes and timeouts land in fuzz/artifacts/TARGET/,
# the corpus in fuzz/corpus/TARGET/ (both git-ignored); each target's log in fuzz/TARGET.log.
set -euo pipefail
seconds=300
parallel=0
for arg in "$@"; do
    case "$arg" in
        --parallel) parallel=1 ;;
        *[!0-9]* | "") echo "usage: $0 [SECONDS] [--parallel]" >&2; exit 2 ;;
        *) seconds=$arg ;;
    esac
done
cd "$(dirname "$0")/../fuzz"

toolchain=${FUZZ_TOOLCHAIN:-}
if [ -z "$toolchain" ]; then
    # Only what is installed: `rustup toolchain list` never downloads anything.
    if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then toolchain=nightly; else toolchain=stable; fi
fi
case "$toolchain" in
    nightly) fuzz=(cargo +nightly fuzz) ;;
    stable) export RUSTC_BOOTSTRAP=1; fuzz=(cargo fuzz) ;;
    *) echo "FUZZ_TOOLCHAIN must be nightly or stable, not $toolchain" >&2; exit 2 ;;
esac
echo "fuzz.sh: ${fuzz[*]} (RUSTC_BOOTSTRAP=${RUSTC_BOOTSTRAP:-unset}), $seconds s per target" >&2

targets=(reader solve rate)
# Build first, one after the other, so parallel runs do not fight over the build lock.
for target in "${targets[@]}"; do
    nice -n 19 "${fuzz[@]}" build "$target"
done
# `solve` runs in fork mode with -ignore_timeouts=1: a hostile sparse grid can take the
# production solvers (singles, bands) a second of CPU under ASan, which on a loaded machine
# passes the 10 s wall-clock timeout. Such a grid is written to fuzz/artifacts/solve/timeout-*
# and reported below, and the run goes on instead of stopping there. A crash (wrong
# answer, panic) still stops it. The baselines are budgeted in the harness and cannot time out.
# `rate` runs the same way: each puzzle has half a second, but a nested forcing-chain search
# under ASan can overrun it before it next checks the deadline.
run() {
    local extra=()
    [ "$1" != reader ] && extra=(-fork=1 -ignore_timeouts=1)
    nice -n 19 "${fuzz[@]}" run "$1" -- -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 \
        "${extra[@]}" >"$1.log" 2>&1
}
mkdir -p artifacts
before=$(find artifacts -type f | sort)
status=0
if [ "$parallel" = 1 ]; then
    pids=()
    for target in "${targets[@]}"; do run "$target" & pids+=($!); done
    for i in "${!targets[@]}"; do wait "${pids[$i]}" || { echo "${targets[$i]}: finding, see fuzz/${targets[$i]}.log" >&2; status=1; }; done
else
    for target in "${targets[@]}"; do run "$target" || { echo "$target: finding, see fuzz/$target.log" >&2; status=1; }; done
fi
for target in "${targets[@]}"; do
    echo "$target: $(grep -E '^(#[0-9]+|Done )' "$target.log" | tail -2 | tr '\n' ' ')" >&2
done
new_artifacts=$(comm -13 <(echo "$before") <(find artifacts -type f | sort))
if [ -n "$new_artifacts" ]; then
    echo "new artifacts (crashes, timeouts, slow units):" >&2
    echo "$new_artifacts" >&2
fi
exit $status
