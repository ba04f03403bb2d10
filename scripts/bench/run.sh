#!/usr/bin/env bash
# Builds the release `reach` and benchmarks it against `ip monitor` in private network namespaces.
#
#   sudo scripts/bench/run.sh            # full run (< 5 min)
#   sudo scripts/bench/run.sh --quick    # short run for CI
#
# Extra arguments go to bench_monitor.py (see --help). REACH_BENCH_SKIP_BUILD=1 skips the build.
# Results: a table on stdout, JSON in scripts/bench/results/ (git-ignored).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

if [[ $(id -u) -ne 0 ]]; then
    echo "run.sh: must run as root (it creates network namespaces)" >&2
    exit 2
fi

scripts/setup.sh  # the build's headers and iproute2, when missing
if [[ "${REACH_BENCH_SKIP_BUILD:-0}" != "1" ]]; then
    swift build -c release --static-swift-stdlib --product reach --scratch-path .build-release >&2
fi

exec python3 "$repo/scripts/bench/bench_monitor.py" --reach "$repo/.build-release/release/reach" "$@"
