#!/usr/bin/env bash
# Benchmarks connectivity validation (`reach watch --probe`) in private network namespaces:
# new default route -> connectivity `full` against the probe's own round trip, address assigned
# -> `portal` behind a hijacking DNS server, and zero probe traffic without --probe.
#   sudo scripts/bench/validation.sh [--quick] [--runs N] [--scenarios route,portal,traffic]
# Extra arguments go to bench_validation.py (see --help). REACH_BENCH_SKIP_BUILD=1 skips the build.
# REACH_BENCH_LOCK=/tmp/reach-build.lock takes that flock around the build (builds never overlap).
# Results: a table on stdout, JSON in scripts/bench/results/validation-*.json (git-ignored).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
[[ $(id -u) -eq 0 ]] || { echo "validation.sh: must run as root (it creates network namespaces)" >&2; exit 2; }
scripts/setup.sh nginx-light dnsmasq-base curl
locked=()
if [[ -n "${REACH_BENCH_LOCK:-}" ]]; then locked=(flock "$REACH_BENCH_LOCK"); fi
if [[ "${REACH_BENCH_SKIP_BUILD:-0}" != "1" ]]; then
    # `reach --probe …` execs reach-daemon, which carries the prober.
    for product in reach reach-daemon; do
        "${locked[@]}" swift build -c release --static-swift-stdlib --product "$product" --scratch-path .build-release >&2
    done
fi
exec python3 "$repo/scripts/bench/bench_validation.py" --reach "$repo/.build-release/release/reach" "$@"
