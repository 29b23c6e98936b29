#!/bin/bash
# Runs each cargo-fuzz target for SECONDS (default 300). Needs a nightly toolchain and
# `cargo install cargo-fuzz`. Crashes land in fuzz/artifacts/TARGET/.
set -euo pipefail
seconds=${1:-300}
cd "$(dirname "$0")/../fuzz"
for target in reader solve; do
    cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10
done
