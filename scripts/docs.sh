#!/usr/bin/env bash
# Builds the DocC documentation of ReachabilityCore, Reachability and ReachabilityTransfers with swift-docc-plugin
# into .build/docs/TARGET, failing on any DocC warning (a broken symbol link, a bad topic).
#   scripts/docs.sh            # build both
#   scripts/docs.sh --preview  # also print where to open them
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out=".build/docs"
mkdir -p "$out"
for target in ReachabilityCore Reachability ReachabilityTransfers; do
    echo "docs: $target" >&2
    swift package --allow-writing-to-directory "$out" generate-documentation --target "$target" \
        --output-path "$out/$target" --warnings-as-errors --disable-indexing \
        --transform-for-static-hosting --hosting-base-path "$target"
done
if [[ "${1:-}" == "--preview" ]]; then
    echo "docs: open $root/$out/<target>/index.html through a web server (static hosting layout)" >&2
fi
