#!/usr/bin/env bash
# Benchmarks data-budget counting (issue #21) in private network namespaces, beside vnstatd:
# the daemon's idle CPU, wakeups and counter dumps with 0, 1, 10 and 100 budgets, the count of
# a curl transfer against `ip -s link` and vnstat, and the daemon's RSS with 100 budgets vs 0.
#   sudo scripts/bench/budgets.sh [--quick] [--window SECONDS] [--scenarios idle,accuracy] [--keep]
# A full run takes about 14 minutes (four 180 s windows), --quick about 5.
# Extra arguments go to bench_budgets.py (see --help). REACH_BENCH_SKIP_BUILD=1 skips the build.
# REACH_BENCH_LOCK=/tmp/reach-build.lock builds under that lock and runs the benchmark holding
# it, so no build competes for the CPU while it measures.
# Results: a table on stdout, JSON in scripts/bench/results/budgets-*.json (git-ignored).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
[[ $(id -u) -eq 0 ]] || { echo "budgets.sh: must run as root (it creates network namespaces)" >&2; exit 2; }
scripts/setup.sh vnstat curl nginx-light  # the build's headers too; only what is missing is installed
locked=()
if [[ -n "${REACH_BENCH_LOCK:-}" ]]; then locked=(flock "$REACH_BENCH_LOCK"); fi
if [[ "${REACH_BENCH_SKIP_BUILD:-0}" != "1" ]]; then
    "${locked[@]}" swift build -c release --static-swift-stdlib --product reach-daemon --scratch-path .build-release >&2
fi
if [[ -n "${REACH_BENCH_LOCK:-}" ]]; then export REACH_BENCH_LOCKED=1; fi
exec "${locked[@]}" python3 "$repo/scripts/bench/bench_budgets.py" "$@"
