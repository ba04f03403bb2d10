#!/bin/sh
# USB suite, run inside the VM by `scripts/vmlab/vmlab.py run -- scripts/vmlab/suites/usb.sh`:
# hot-plugs phone and modem gadgets (dummy_hcd + configfs) while `reach watch --json` runs and
# checks the type and cost reach gives each new interface, in watch and in status, and that
# unplugging removes it. One line per case (ok NAME / FAIL NAME: reason, details on "#" lines),
# then "vm-usb: N passed, M failed"; exit 1 if any failed.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. scripts/vmlab/guest/lib.sh
json=scripts/vmlab/guest/watchjson.py
out=${VM_USB_OUT:-/tmp/vm-usb}
mkdir -p "$out"
passed=0
failed=0
watch_pid=

ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

finish() {
    [ -z "$watch_pid" ] || kill "$watch_pid" 2>/dev/null
    vm_cleanup
    echo "vm-usb: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
trap 'finish; exit $?' EXIT
trap 'exit 130' INT TERM

# A copy in the guest's tmpfs: the host may relink the binary while the suite runs.
bin=${REACH_BIN:-.build/debug/reach}
if ! cp "$bin" /tmp/reach 2>/dev/null; then
    fail setup "no reach binary at $bin"
    exit 1
fi
# Drivers loaded before watching: loading modules is not what this suite tests.
modprobe dummy_hcd num=4 && modprobe -a libcomposite usb_f_ncm usb_f_rndis usb_f_ecm cdc_ether cdc_ncm rndis_host || {
    fail setup "modprobe failed"
    exit 1
}
# --all-changes: an interface appearing that is not the primary one changes no summary.
/tmp/reach watch --json --all-changes --debounce 0 >"$out/watch.jsonl" 2>"$out/watch.err" &
watch_pid=$!
vm_wait "[ -s $out/watch.jsonl ]" 60 || {
    fail setup "reach watch printed nothing: $(head -c 300 "$out/watch.err")"
    exit 1
}

# usb_case NAME FUNCTION VID PID TYPE EXPENSIVE (TYPE '*': any, reported)
usb_case() {
    started=$(now_ms)
    from=$(wc -l <"$out/watch.jsonl")
    if ! host=$(vm_gadget_add "$1" "$2" "$3" "$4"); then
        fail "$1" "the gadget's host-side interface did not come up"
        return
    fi
    plugged=$(now_ms)
    info=$(vm_netdev_info "$host")
    if ! watched=$($json match "$out/watch.jsonl" "$from" "$host" "$5" "$6" 20); then
        fail "$1" "reach watch: $watched; wanted type=$5 expensive=$6 ($info)"
        vm_gadget_remove "$1"
        return
    fi
    seen=$(now_ms)
    /tmp/reach status --json >"$out/$1.status.json" 2>&1
    if ! status=$($json status "$host" "$5" "$6" <"$out/$1.status.json"); then
        fail "$1" "reach status: $status, wanted type=$5 expensive=$6"
        vm_gadget_remove "$1"
        return
    fi
    from=$(wc -l <"$out/watch.jsonl")
    vm_gadget_remove "$1" || { fail "$1" "unplugging failed"; return; }
    if ! gone=$($json gone "$out/watch.jsonl" "$from" "$host" 20); then
        fail "$1" "after unplugging $host: $gone"
        return
    fi
    ok "$1"
    echo "# $1 ($3:$4 $2): $info; reach $watched"
    echo "# $1 timing: plug to carrier $((plugged - started)) ms, to watch line $((seen - started)) ms, case $(($(now_ms) - started)) ms"
}

usb_case ncm-ericsson ncm 0x0bdb 0x1900 cellular true
usb_case rndis-google rndis 0x18d1 0x4ee3 '*' true
usb_case ecm-huawei ecm 0x12d1 0x14db cellular true
usb_case ecm-zte ecm 0x19d2 0x1405 cellular true
usb_case ecm-linux ecm 0x0525 0xa4a1 wired false
