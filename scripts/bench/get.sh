#!/usr/bin/env bash
# Benchmarks `reach get` against curl (local nginx), measures pausing on a route switch, and
# compares `reach get --connections 4` with aria2c and curl on a per-connection rate limit.
#   sudo scripts/bench/get.sh [--quick]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
[[ $(id -u) -eq 0 ]] || { echo "get.sh: must run as root (it creates a network namespace)" >&2; exit 2; }
scripts/setup.sh nginx-light curl aria2
if [[ "${REACH_BENCH_SKIP_BUILD:-0}" != "1" ]]; then
    # `reach get` execs reach-daemon from reach's own directory: both are needed.
    swift build -c release --static-swift-stdlib --product reach --scratch-path .build-release >&2
    swift build -c release --static-swift-stdlib --product reach-daemon --scratch-path .build-release >&2
    swift build -c release --static-swift-stdlib --product reach-testserver --scratch-path .build-release >&2
fi
exec python3 "$repo/scripts/bench/bench_get.py" "$@"
