#!/usr/bin/env bash
# CI for the Python package: a fresh virtual environment, the wheel built from source (release,
# as users get it), then pytest. Run from anywhere; .ci/run calls it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
# mypy pinned: its stub checks grow from release to release, and CI must not change under us.
"$venv/bin/pip" install --quiet --disable-pip-version-check maturin numpy pytest pandas mypy==2.4.1
# CARGO_TARGET_DIR keeps the build out of the source tree and reusable between runs.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}" \
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$here"
# The CLI binary, when built (.ci/run builds it first), lets the tests compare `generate` with it.
cli="$here/../target/release/sudoku-batch"
if [ -x "$cli" ]; then export SUDOKU_BATCH_BIN="$cli"; fi
# The type stubs say what the package has at run time: every name, signature and `__all__`.
"$venv/bin/python" -m mypy.stubtest sudoku_batch
"$venv/bin/python" -m pytest -q "$here/tests"
