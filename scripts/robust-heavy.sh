#!/bin/bash
# The heavy robustness checks that `cargo test` skips: 1 GiB records streamed through stdin, with
# peak memory measured by /usr/bin/time -v (release build, to keep it to a minute or so).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test integration robust:: -- --include-ignored "$@"
