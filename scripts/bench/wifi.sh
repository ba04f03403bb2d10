#!/usr/bin/env bash
# Wi-Fi facts benchmark: builds the release `reach`, boots the VM lab and runs bench_wifi.py
# inside it (real mac80211_hwsim, hostapd, wpa_supplicant), side by side with `iw event` and
# `ip monitor`. Needs root. Figures are under TCG emulation: slower than on hardware.
#
#   sudo scripts/bench/wifi.sh [--cycles N]
#
# REACH_BENCH_SKIP_BUILD=1 skips the build. Results: a table on stdout, JSON in
# scripts/bench/results/wifi-<UTC time>.json (git-ignored).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
[[ $(id -u) -eq 0 ]] || { echo "wifi.sh: must run as root (it boots a VM with real radios)" >&2; exit 2; }
scripts/setup.sh  # the build's headers, when missing (the VM lab installs its own)
if [[ "${REACH_BENCH_SKIP_BUILD:-0}" != "1" ]]; then
    swift build -c release --static-swift-stdlib --product reach --scratch-path .build-release >&2
fi
mkdir -p scripts/bench/results
# The same fixed CPU work on the host, so emulated CPU times can be scaled back.
calibration="$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, "scripts/bench"); import bench_wifi; print(bench_wifi.calibration_ms())')"
exec scripts/vmlab/vmlab.py run --timeout 900 --rw "$repo/scripts/bench/results" -- \
    /usr/bin/python3 scripts/bench/bench_wifi.py --reach "$repo/.build-release/release/reach" --host-calibration-ms "$calibration" "$@"
