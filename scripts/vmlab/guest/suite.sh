# What the vmlab suites share (POSIX sh, sourced after `cd` to the repository): lib.sh, one
# line per case (`ok NAME` / `FAIL NAME: reason`), the closing "NAME: N passed, M failed" line,
# and cleanup on every exit: background processes started with suite_background, then every
# access point, station and gadget lib.sh started.
. scripts/vmlab/guest/lib.sh
passed=0
failed=0
suite_pids=

ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# suite_background CMD…: runs CMD in the background, killed when the suite ends.
suite_background() {
    "$@" &
    suite_pids="$suite_pids $!"
}

suite_finish() {
    for _pid in $suite_pids; do kill "$_pid" 2>/dev/null; done
    vm_cleanup
    echo "$suite_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# suite_start NAME: the closing line's name; copies the reach binary ($REACH_BIN, default the
# debug build) to the guest's tmpfs as /tmp/reach (the host may relink it while the suite runs).
suite_start() {
    suite_name=$1
    trap 'suite_finish; exit $?' EXIT
    trap 'exit 130' INT TERM
    cp "${REACH_BIN:-.build/debug/reach}" /tmp/reach 2>/dev/null || { fail setup "no reach binary at ${REACH_BIN:-.build/debug/reach}"; exit 1; }
}
