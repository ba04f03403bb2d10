#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a bounded time on a copy of its seed corpus.
#
#   scripts/fuzz/run.sh [SECONDS_PER_TARGET [TARGET…]]   (default 60 s, every target)
#
# Exits non-zero when any target crashes, traps, times out on an input or runs out of memory;
# the inputs that did are kept under .build-fuzz/artifacts/TARGET/. The corpus grows in a temp
# directory only: nothing is written into scripts/fuzz/corpus.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

seconds="${1:-60}"
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS_PER_TARGET [TARGET…]]" >&2; exit 2; }
shift $(($# > 0 ? 1 : 0))
scratch="$root/.build-fuzz"
# Per target: name and the longest input worth trying (a rule is short, a lease file is not).
all_targets=(
    "FuzzConfiguration 4096"
    "FuzzRuleSelector 256"
    "FuzzGlob 512"
    "FuzzDHCPLease 4096"
    "FuzzRouteMessage 1024"
    "FuzzHTTPHeader 512"
    "FuzzContentRange 256"
    "FuzzByteCount 128"
    "FuzzProbeResponse 4096"
    "FuzzDNSMessage 1024"
    "FuzzInformationElements 1024"
    "FuzzNl80211 2048"
    "FuzzGioPathLine 8192"
    "FuzzBudget 512"
    "FuzzBudgetLedger 4096"
)
targets=()
for entry in "${all_targets[@]}"; do
    if [[ $# -eq 0 || " $* " == *" ${entry%% *} "* ]]; then targets+=("$entry"); fi
done
[[ ${#targets[@]} -gt 0 ]] || { echo "fuzz: no such target: $*" >&2; exit 2; }
timeout_per_input=5

# The fuzz targets exist in Package.swift only with REACH_FUZZ=1. `--sanitize fuzzer` makes
# SwiftPM link libFuzzer's main (instead of the executable's own). The sanitizers are then
# given again as one -Xswiftc flag, because swiftc keeps only its last -sanitize= option: with
# `--sanitize fuzzer --sanitize address` the libraries would get AddressSanitizer but no
# coverage instrumentation, and the fuzzer would run blind.
build_flags=(--scratch-path "$scratch" -c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address)
for entry in "${targets[@]}"; do
    name="${entry%% *}"
    echo "fuzz: building $name" >&2
    REACH_FUZZ=1 swift build "${build_flags[@]}" --product "$name" >&2
done
bin="$(REACH_FUZZ=1 swift build "${build_flags[@]}" --show-bin-path)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The Swift runtime's own crash handler would race libFuzzer's and AddressSanitizer's reports.
export SWIFT_BACKTRACE=enable=no

failures=0
for entry in "${targets[@]}"; do
    name="${entry%% *}"
    max_len="${entry##* }"
    corpus="$work/$name/corpus"
    artifacts="$work/$name/artifacts"
    mkdir -p "$corpus" "$artifacts"
    cp scripts/fuzz/corpus/"$name"/* "$corpus"/
    log="$work/$name/log"
    started=$SECONDS
    set +e
    "$bin/$name" -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout_per_input" \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
    status=$?
    set -e
    elapsed=$((SECONDS - started))
    # Final stats are printed only when the run ends normally; otherwise the last status line.
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
    speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
    [[ -n $runs ]] || runs="$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')"
    [[ -n $speed ]] || speed="$(grep -oE 'exec/s: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)"
    if [[ $status -eq 0 ]]; then
        result="ok"
    else
        failures=$((failures + 1))
        reason="$(grep -m1 -oE 'libFuzzer: [a-z-]+( signal)?|AddressSanitizer: [A-Za-z-]+|Fatal error: .*' "$log" || echo "exit $status")"
        kept="$scratch/artifacts/$name"
        mkdir -p "$kept"
        cp "$artifacts"/* "$kept"/ 2>/dev/null || true
        cp "$log" "$kept/log"
        result="FAILED ($reason; inputs and log in ${kept#"$root"/})"
        grep -E -A30 'ERROR: |Fatal error' "$log" | head -40 >&2 || true
    fi
    echo "fuzz: $name: ${elapsed}s, ${runs:-0} runs, ${speed:-0} exec/s, $result"
done

echo "fuzz: $((${#targets[@]} - failures)) passed, $failures failed"
[[ $failures -eq 0 ]]
