#!/usr/bin/env bash
# Benchmarks `reach daemon`: kill -9 reliability (20 kills during 5 downloads and 2 uploads),
# API latency with 1,000 jobs, idle CPU/wakeups/RSS, and a full file system (a 2 MiB tmpfs).
#   sudo scripts/bench/daemon.sh [--quick] [--scenarios kill,api,full] [--keep]
# Extra arguments go to bench_daemon.py (see --help). REACH_BENCH_SKIP_BUILD=1 skips the build.
# REACH_BENCH_LOCK=/tmp/reach-build.lock builds under that lock and runs the benchmark holding
# it, so no build competes for the CPU while it measures.
# Results: a table on stdout, JSON in scripts/bench/results/daemon-*.json (git-ignored).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
[[ $(id -u) -eq 0 ]] || { echo "daemon.sh: must run as root (it mounts a tmpfs)" >&2; exit 2; }
scripts/setup.sh sqlite3  # the build's headers too; only what is missing is installed
locked=()
if [[ -n "${REACH_BENCH_LOCK:-}" ]]; then locked=(flock "$REACH_BENCH_LOCK"); fi
if [[ "${REACH_BENCH_SKIP_BUILD:-0}" != "1" ]]; then
    # Linked as the package links it (and as the other benchmarks build into this directory).
    "${locked[@]}" swift build -c release --static-swift-stdlib --product reach-daemon --scratch-path .build-release >&2
    "${locked[@]}" swift build -c release --static-swift-stdlib --product reach-testserver --scratch-path .build-release >&2
fi
if [[ -n "${REACH_BENCH_LOCK:-}" ]]; then export REACH_BENCH_LOCKED=1; fi
exec "${locked[@]}" python3 "$repo/scripts/bench/bench_daemon.py" "$@"
