#!/usr/bin/env bash
# `import Reachability` re-exports what an adopter needs and not Core's codecs and state
# machines: a file that imports only Reachability must compile with the first and must not with
# each of the second. Type-checks against the debug build's modules (swift build first).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
modules="$root/.build/debug/Modules"
[[ -d $modules ]] || modules="$root/.build/debug"
# The C modules Reachability's interface reaches: swift-system's and libnl's.
flags=(-I "$modules" -Xcc "-fmodule-map-file=$root/.build/checkouts/swift-system/Sources/CSystem/include/module.modulemap"
       -Xcc "-fmodule-map-file=$root/Sources/CNetlink/module.modulemap")
for include in $(pkg-config --cflags-only-I libnl-route-3.0); do flags+=(-Xcc "$include"); done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
check() {  # check NAME EXPECT(0 compiles|1 refused) SOURCE
    printf 'import Reachability\n%s\n' "$3" > "$work/$1.swift"
    if swiftc -typecheck "${flags[@]}" "$work/$1.swift" >"$work/$1.log" 2>&1; then got=0; else got=1; fi
    # Refused must mean "not found", not a broken set-up.
    if [[ $got -eq 1 && $2 -eq 1 ]] && ! grep -q "cannot find" "$work/$1.log"; then got=2; fi
    if [[ $got -ne $2 ]]; then echo "check-exports: $1: expected $([[ $2 -eq 0 ]] && echo compiles || echo refused)" >&2; failed=1; fi
}
failed=0
check facade 0 'let p = NetworkPath(status: .wifi); let t = TransferPolicy.wifiOnly; _ = (p, t, ByteCount.text(1))'
for hidden in DNSMessage TransferGateState ValidationSchedule ContentRange EntityTag DHCPLeaseParser ClassificationTables ProbeResponseClassifier; do
    check "$hidden" 1 "let x: $hidden.Type = $hidden.self; _ = x"
done
[[ $failed -eq 0 ]] && echo "check-exports: the façade exports the adopter's types and none of 8 internals"
exit "$failed"
