#!/usr/bin/env bash
# The whole test suite: unit tables, stream semantics, the CLI, and integration tests against
# the real kernel in private network namespaces (needs root; under CI=true those fail instead
# of being skipped when no namespace can be created).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# curl and openssl: the test server's contract test and the TLS test (a real `openssl s_server`).
# nginx-light: the segmented download test against a real nginx.
# apache2 (mod_dav) and python3-venv: the upload tests' PUT server and the venv for the PyPI
# ones (tuspyserver, uploadserver), which scripts/testservers/setup.sh installs when missing;
# tinyproxy: the proxy the proxy tests start.
# prometheus: promtool, which checks the daemon's metrics text (and lints it).
# dnsmasq-base: the DNS server the per-interface resolver tests start in a namespace.
# libglib2.0-dev, libjson-glib-dev: the GIO module (libgioreach.so); python3-gi and
# unattended-upgrades: the GLib programs check-every-app.py runs it in. faketime: the wall clock
# check-budgets.py moves past a budget's cycle end (libfaketime, preloaded into the daemon).
started=$SECONDS
# Named reach-* namespaces that were there before the suite (the README's demo network, say):
# not ours, so not leftovers.
namespaces_before="$(ip netns list 2>/dev/null | awk '$1 ~ /^reach-/ {print $1}' | sort || true)"
timings=()
failures=()
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
# Runs one step, keeps its failure for the exit status, its time for the summary and, when it
# fails, its output's last lines for the end of the run (CI often shows only the tail).
step() {
    local name=$1 begun=$SECONDS
    shift
    set +e
    "$@" 2>&1 | tee "$logs/$name.log"
    local code=${PIPESTATUS[0]}
    set -e
    if [[ $code -ne 0 ]]; then
        echo "test: $name failed (exit $code)" >&2
        failures+=("$name")
        status=1
    fi
    timings+=("$name $((SECONDS - begun)) s")
}
scripts/setup.sh curl openssl nginx-light apache2 python3-venv tinyproxy prometheus dnsmasq-base \
    libglib2.0-dev libjson-glib-dev python3-gi unattended-upgrades faketime
scripts/testservers/setup.sh
timings+=("setup $((SECONDS - started)) s")

if [[ $(id -u) -ne 0 ]]; then
    echo "test: not root: the namespace integration tests will be skipped (CI=true makes them fail)" >&2
fi

begun=$SECONDS
swift build --build-tests
timings+=("build $((SECONDS - begun)) s")
begun=$SECONDS
log="$logs/swift-test.log"
set +e
# Serial: parallel tests tearing down dozens of namespaces at once keep the kernel's RTNL lock
# busy for seconds (namespace cleanup), which stalls every other test's netlink traffic.
swift test --skip-build --no-parallel 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
[[ $status -eq 0 ]] || failures+=("swift-test")
timings+=("swift-test $((SECONDS - begun)) s")

# The README's library snippets must be the examples' code (which just built and ran).
step check-snippets scripts/check-snippets.py

# Every public declaration of the library modules has a doc comment (DocC's pages are built from them).
step check-docs scripts/check-docs.py

# `import Reachability` exports the adopter's types, not Core's codecs and state machines.
step check-exports scripts/check-exports.sh

# The daemon's control API answers as its contract, openapi/reach-daemon.yaml, says.
step check-openapi scripts/check-openapi.py

# A real OpenAPI fuzzer against a live daemon (in a private network namespace: every job it
# adds waits): schemathesis with every check on, a fixed seed, 500 examples per operation.
step check-schemathesis scripts/check-schemathesis.py

# Every Linux program benefits: the GIO module in GLib programs (python3-gi, unattended-upgrades),
# the read-only path socket, dispatcher hooks and the update-agent recipes, against a daemon in
# a private network namespace.
step check-every-app scripts/check-every-app.py

# Data budgets: counting against the kernel's counters (curl's traffic and the queue's jobs over
# veth uplinks overridden as cellular and Wi-Fi, a real nginx), the warning hook, a job held and
# released by a snooze and by a new cycle (libfaketime), kill -9 and restart, an interface
# deleted and re-created.
step check-budgets scripts/check-budgets.py

# The Debian package: built (release, static Swift runtime, stripped), linted, its man pages
# and completions current, installed, run, removed and purged in a debootstrap'd Debian 12.
step check-package scripts/check-package.py

# What the package ships fits a gateway: sizes, no ICU, the GIO module's NEEDED libraries, idle
# and loaded RSS, each against its limit in scripts/footprint-limits.conf (which says why).
step check-footprint scripts/check-footprint.py

# The parsers' fuzz targets, briefly (5 s each, on the committed seeds), so they keep building
# and the seeds keep passing; `scripts/fuzz/run.sh 60` is the longer run.
step fuzz scripts/fuzz/run.sh "${REACH_FUZZ_SECONDS:-5}"

# The VM suites: Debian's stock kernel under qemu (scripts/vmlab), one boot per suite, with real
# Wi-Fi (mac80211_hwsim, hostapd, wpa_supplicant), real USB network drivers (gadgets on
# dummy_hcd), and systemd as PID 1 running the package's units. A VM that cannot boot exits
# 125: a failure like any other (never a skip). REACH_VM_TESTS=0 leaves them out of a local
# run; CI always runs them.
if [[ ${CI:-} == true || ${REACH_VM_TESTS:-1} != 0 ]]; then
    for suite in wifi usb; do
        step "vm-$suite" scripts/vmlab/vmlab.py run --timeout 900 -- "scripts/vmlab/suites/$suite.sh"
    done
    deb="$(ls .build-deb/reach_*.deb 2>/dev/null | head -1)"
    step vm-systemd scripts/vmlab/vmlab.py run --systemd --timeout 900 --env "REACH_DEB=${deb:-none}" -- scripts/vmlab/suites/systemd.sh
else
    echo "test: REACH_VM_TESTS=0: the VM suites (real Wi-Fi and USB drivers) were not run" >&2
fi

# Leftover namespaces would mean a test leaked one (ours are anonymous but for the demo
# network's test, which removes its own): only those the suite added count.
namespaces_after="$(ip netns list 2>/dev/null | awk '$1 ~ /^reach-/ {print $1}' | sort || true)"
leftovers="$(comm -13 <(echo "$namespaces_before") <(echo "$namespaces_after") | grep . || true)"
if [[ -n $leftovers ]]; then
    echo "test: named namespaces were left behind: $(echo $leftovers)" >&2
    failures+=("leftover-namespaces")
    status=1
fi

echo "test: seconds per step: $(IFS=,; echo "${timings[*]}" | sed 's/,/, /g'); $((SECONDS - started)) s in all"
summary="$(grep -E 'Test run with [0-9]+ tests? .*(passed|failed)' "$log" | tail -1 || true)"
if [[ $status -eq 0 && $summary =~ Test\ run\ with\ ([0-9]+)\ tests?.*passed ]]; then
    echo "swift-testing: ${BASH_REMATCH[1]} passed, 0 failed"
fi
# What failed, again at the very end: the failing tests' own lines, and each failed step's last lines.
for name in "${failures[@]}"; do
    echo "test: FAILED: $name"
    if [[ $name == swift-test ]]; then
        grep -E '✘|error: .*(failed|XCT)|Fatal error|signal code' "$log" | tail -40 | sed 's/^/  | /' || true
        echo "  | ${summary:-no summary line: the test process did not finish}"
    elif [[ -f $logs/$name.log ]]; then
        tail -30 "$logs/$name.log" | sed 's/^/  | /'
    fi
done
exit "$status"
