#!/usr/bin/env bash
# Builds swift-argument-parser's generate-manual tool from the checkout a build of this package
# resolved (so the man pages come from the same ArgumentParser as the binaries) and prints its
# path.
#
#   scripts/build-manual-tool.sh [SCRATCH]      (default SCRATCH: .build-release)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${1:-.build-release}"
[[ $scratch = /* ]] || scratch="$root/$scratch"
checkout="$scratch/checkouts/swift-argument-parser"
[[ -f $checkout/Package.swift ]] || { echo "build-manual-tool: no swift-argument-parser checkout in $scratch (build first)" >&2; exit 1; }
swift build -c release --package-path "$checkout" --scratch-path "$root/.build-manual" --product generate-manual >&2
echo "$(swift build -c release --package-path "$checkout" --scratch-path "$root/.build-manual" --show-bin-path)/generate-manual"
