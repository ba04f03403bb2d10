#!/bin/sh
# USB suite, run inside the VM by `scripts/vmlab/vmlab.py run -- scripts/vmlab/suites/usb.sh`:
# hot-plugs phone and modem gadgets (dummy_hcd + configfs) while `reach watch --json` runs and
# checks the type and cost reach gives each new interface, in watch and in status, and that
# unplugging removes it. One line per case (ok NAME / FAIL NAME: reason, details on "#" lines),
# then "vm-usb: N passed, M failed"; exit 1 if any failed.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. scripts/vmlab/guest/suite.sh
suite_start vm-usb
json=scripts/vmlab/guest/watchjson.py
out=${VM_USB_OUT:-/tmp/vm-usb}
mkdir -p "$out"
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Drivers loaded before watching: loading modules is not what this suite tests.
modprobe dummy_hcd num=4 && modprobe -a libcomposite usb_f_ncm usb_f_rndis usb_f_ecm cdc_ether cdc_ncm rndis_host || {
    fail setup "modprobe failed"
    exit 1
}
# --all-changes: an interface appearing that is not the primary one changes no summary.
suite_background /tmp/reach watch --json --all-changes --debounce 0 >"$out/watch.jsonl" 2>"$out/watch.err"
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
# More of USBVendorTable's rows, on the driver each names: phones that tether over RNDIS or
# NCM, an iPhone's NCM interface, a stick flagged WWAN, and a Lenovo adapter on cdc_ether (not a
# phone: the Lenovo row names only rndis_host and cdc_ncm; 17ef:7205, a dock, is left to r8152).
usb_case rndis-samsung rndis 0x04e8 0x6863 '*' true
usb_case ncm-huawei-phone ncm 0x12d1 0x107e '*' true
usb_case ncm-apple ncm 0x05ac 0x12a8 '*' true
usb_case ecm-vodafone-k3805z ecm 0x19d2 0x1003 cellular true
usb_case ecm-lenovo-adapter ecm 0x17ef 0x1234 wired false
