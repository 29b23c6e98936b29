#!/usr/bin/env bash
# Checks that the crate, its tests and benches build and lint clean for Windows
# (x86_64-pc-windows-gnu): the Unix-only parts (FIFOs, signals, flock, /proc) are behind cfg
# gates, and this keeps them so. Compiles only; nothing is run.
#
# Installs what it needs when missing: the target's standard library (rustup) and the MinGW C
# compiler (Debian's gcc-mingw-w64-x86-64, for the C code of zstd and blake3). When the
# standard library cannot be installed (no rustup, no network) it says so and skips; a
# build or lint error fails.
#
#   scripts/check-windows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
say() { echo "check-windows: $*"; }

if ! rustc --print target-libdir --target "$target" 2>/dev/null | xargs -r test -d ||
    [[ -z $(ls "$(rustc --print target-libdir --target "$target")" 2>/dev/null) ]]; then
    if ! command -v rustup >/dev/null; then
        say "skipped: no rustup to install the $target standard library"
        exit 0
    fi
    if ! rustup target add "$target" >/tmp/check-windows-rustup.log 2>&1; then
        cat /tmp/check-windows-rustup.log >&2
        say "skipped: cannot install the $target standard library"
        exit 0
    fi
fi
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
    say "installing gcc-mingw-w64-x86-64"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq gcc-mingw-w64-x86-64; } \
        >/tmp/check-windows-apt.log 2>&1 ||
        { cat /tmp/check-windows-apt.log >&2; say "FAILED: apt-get install gcc-mingw-w64-x86-64"; exit 1; }
fi
# A target folder of its own: the host build's artefacts stay as they are.
cargo clippy --all-targets --target "$target" --target-dir target/windows -- -D warnings
cargo clippy --lib --no-default-features --target "$target" --target-dir target/windows -- -D warnings
say "ok"
