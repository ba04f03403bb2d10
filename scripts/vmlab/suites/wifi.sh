#!/bin/sh
# Wi-Fi suite, run inside the VM by `scripts/vmlab/vmlab.py run -- scripts/vmlab/suites/wifi.sh`:
# mac80211_hwsim radios, hostapd access points (each in a namespace of its own radio) announcing
# what real hotspots announce, and wpa_supplicant on the station wlan0. Checks what `reach
# status --json` and a running `reach watch --json` say of the association and its cost, with
# `iw` as the oracle. No DHCP anywhere: every cost comes from the beacon. One line per case
# (ok NAME / FAIL NAME: reason, details on "#" lines), then "vm-wifi: N passed, M failed".
set -u
cd "$(dirname "$0")/../../.." || exit 1
. scripts/vmlab/guest/suite.sh
suite_start vm-wifi
check=scripts/vmlab/guest/wifijson.py
out=${VM_WIFI_OUT:-/tmp/vm-wifi}
mkdir -p "$out"
reach() { /tmp/reach "$@"; }
# VM_WIFI_ONLY="roam explain" runs only those cases (for debugging one).
selected() { [ -z "${VM_WIFI_ONLY:-}" ] || case " $VM_WIFI_ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# wlan0 is the station; wlan1..3 serve as access points.
vm_wifi_radios 4 || { fail setup "no hwsim radios"; exit 1; }
ip link set wlan0 up
ip addr add 10.77.0.2/24 dev wlan0

suite_background /tmp/reach watch --json --all-changes --debounce 0 >"$out/watch.jsonl" 2>"$out/watch.err"
suite_background /tmp/reach watch --debounce 0 >"$out/watch.txt" 2>&1
suite_background iw event -t >"$out/iw-events.txt" 2>&1
vm_wait "[ -s $out/watch.jsonl ] && [ -s $out/watch.txt ]" 60 || { fail setup "reach watch printed nothing: $(head -c 300 "$out/watch.err")"; exit 1; }

# ap NAME RADIO SSID [hostapd lines…]: an access point with address 10.77.0.1 on its side.
ap() {
    _name=$1 _radio=$2 _ssid=$3
    shift 3
    _conf=$(printf 'ssid=%s\nhw_mode=g\nchannel=1\n' "$_ssid")
    for _line in "$@"; do _conf=$(printf '%s\n%s' "$_conf" "$_line"); done
    vm_ap_start "$_name" "$_radio" "$_conf" || return 1
    ip netns exec "ap-$_name" ip addr add 10.77.0.1/24 dev "$(cat "$VM_STATE/ap-$_name.if")"
    ip netns exec "ap-$_name" ip link set "$(cat "$VM_STATE/ap-$_name.if")" up
}

# joined SSID: the station is on SSID by the kernel's own account (`iw dev wlan0 link`).
joined() { iw dev wlan0 link | grep -q "SSID: $1\$"; }

# default_route: after an association (a route needs its link's address).
default_route() { ip route replace default via 10.77.0.1 dev wlan0 2>/dev/null; }

# cost_case NAME SSID EXPENSIVE EVIDENCE [hostapd lines…] [-- reach options…]
cost_case() {
    _case=$1 _ssid=$2 _expensive=$3 _evidence=$4
    selected "$_case" || return 0
    # hostapd's bssid= changes the radio's address for good: put it back after the case.
    _radio_mac=$(cat /sys/class/net/wlan1/address)
    shift 4
    _ap_lines=
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do _ap_lines="$_ap_lines$1
"; shift; done
    [ "${1:-}" = "--" ] && shift
    _reach_args="$*"
    # Each line of _ap_lines becomes one argument of ap.
    _old_ifs=$IFS
    IFS='
'
    # shellcheck disable=SC2086
    set -- $_ap_lines
    IFS=$_old_ifs
    from=$(wc -l <"$out/watch.jsonl")
    if ! ap "$_case" wlan1 "$_ssid" "$@"; then fail "$_case" "the access point did not start"; return; fi
    if ! vm_sta_connect wlan0 "$_ssid"; then fail "$_case" "the station did not associate"; vm_ap_stop "$_case"; return; fi
    default_route
    joined "$_ssid" || { fail "$_case" "iw does not show the station on $_ssid"; vm_sta_disconnect wlan0; vm_ap_stop "$_case"; return; }
    checks="ssid=$_ssid associated=true expensive=$_expensive status=wifi identity-ssid=$_ssid path-expensive=$_expensive"
    # shellcheck disable=SC2086
    if ! vm_wait "reach status --json $_reach_args | $check status wlan0 $checks 'evidence~$_evidence'" 10; then
        # shellcheck disable=SC2086
        fail "$_case" "reach status: $(reach status --json $_reach_args | $check status wlan0); wanted $checks evidence~$_evidence"
    elif [ -z "$_reach_args" ] && ! vm_wait "$check watch $out/watch.jsonl $from wlan0 $checks 'evidence~$_evidence'" 10; then
        fail "$_case" "reach watch: $($check watch "$out/watch.jsonl" "$from" wlan0); wanted $checks evidence~$_evidence"
    else
        ok "$_case"
        # shellcheck disable=SC2086
        echo "# $_case: $(reach status --json $_reach_args | $check status wlan0)"
    fi
    vm_sta_disconnect wlan0
    vm_ap_stop "$_case"
    ip link set wlan1 address "$_radio_mac"
}

# Hotspots as they announce themselves (anchors-3 §1.2), and networks that are free.
cost_case open-home Home false "associated"
cost_case ms-cost-first WinHotspot true "ms-cost fixed" "vendor_elements=dd080050f21102000000dd0411223301"
cost_case ms-cost-last Galaxy true "ms-cost variable roaming" "vendor_elements=dd0411223301dd080050f21104000400"
cost_case ms-cost-unrestricted Office false "ms-cost unrestricted" "vendor_elements=dd080050f21101000000"
cost_case android-tether AndroidAP true "interworking 2" "interworking=1" "access_network_type=2"
cost_case personal-device Pixel true "interworking 4" "interworking=1" "access_network_type=4"
cost_case free-public CityWiFi false "interworking 3" "interworking=1" "access_network_type=3"
cost_case iphone-hotspot iPhone-Ann true "apple-hotspot" "bssid=06:11:22:33:44:55" \
    "vendor_elements=dd0a0017f206010103010000dd0d0017f20602010606aabbccddee"
cost_case apple-airport AirPort false "a manufacturer" "bssid=00:17:f2:33:44:55" "vendor_elements=dd0a0017f206010103010000"
cost_case android-prefix OldDroid true "Android hotspot BSSID prefix" "bssid=02:1a:11:00:00:01"
# The user's word beats the heuristics, from --override and from the configuration file.
cost_case ssid-rule-free AndroidAP false "decides the cost over the signals above" "interworking=1" "access_network_type=2" \
    -- --override "ssid:Android*=unmetered"
printf '# this network is paid by volume\nssid:Home = metered\n' >"$out/reach.conf"
cost_case ssid-rule-metered Home true "reach.conf:2" -- --config "$out/reach.conf"

# WPA2-PSK: the station needs the passphrase (vm_sta_connect's third argument).
wpa2_case() {
    selected wpa2-psk || return 0
    from=$(wc -l <"$out/watch.jsonl")
    ap wpa2 wlan1 Secure "wpa=2" "wpa_key_mgmt=WPA-PSK" "rsn_pairwise=CCMP" "wpa_passphrase=correct horse" || { fail wpa2-psk "the access point did not start"; return; }
    if vm_sta_connect wlan0 Secure "correct horse" && vm_wait "$check watch $out/watch.jsonl $from wlan0 ssid=Secure associated=true expensive=false" 10; then
        ok wpa2-psk
    else
        fail wpa2-psk "$($check watch "$out/watch.jsonl" "$from" wlan0)"
    fi
    vm_sta_disconnect wlan0
    vm_ap_stop wpa2
}
wpa2_case

# Roams between two access points of one SSID, VM_WIFI_ROAMS times (default 10), back and forth:
# the BSSID changes, the path never becomes unreachable, its identity stays, and the summary
# watch prints nothing; each roam's time (iw's events) is printed. Then another SSID changes the
# identity; then the access point going away makes the path unreachable.
roam_case() {
    selected roam || return 0
    ap campus-a wlan1 Campus || { fail roam "first access point"; return; }
    ap campus-b wlan2 Campus "channel=6" || { fail roam "second access point"; return; }
    vm_sta_connect wlan0 Campus || { fail roam "no association"; return; }
    default_route
    first=$(iw dev wlan0 link | sed -n 's/^Connected to \([0-9a-f:]*\).*/\1/p')
    a=$(vm_ap_bssid campus-a)
    b=$(vm_ap_bssid campus-b)
    vm_wait "$check watch $out/watch.jsonl 0 wlan0 bssid=$first status=wifi" 10 || { fail roam "watch never showed $first"; return; }
    roams=${VM_WIFI_ROAMS:-10} passed=0 times=
    # VM_WIFI_LOAD=N: N busy loops while it roams (a loaded gateway roams slower).
    hogs=
    for _ in $(seq 1 "${VM_WIFI_LOAD:-0}"); do
        sh -c 'while :; do :; done' &
        hogs="$hogs $!"
    done
    at=$first
    i=0
    while [ "$i" -lt "$roams" ]; do
        i=$((i + 1))
        target=$b
        [ "$at" = "$b" ] && target=$a
        from=$(wc -l <"$out/watch.jsonl")
        text_from=$(wc -l <"$out/watch.txt")
        iw_from=$(wc -l <"$out/iw-events.txt")
        vm_sta_roam wlan0 "$target" || { echo "# roam $i: wpa_supplicant did not roam to $target"; break; }
        at=$target
        if ! vm_wait "$check watch $out/watch.jsonl $from wlan0 bssid=$target ssid=Campus identity-ssid=Campus status=wifi" 10; then
            echo "# roam $i: watch: $($check watch "$out/watch.jsonl" "$from" wlan0)"
        elif ! { sleep 0.3; $check never "$out/watch.jsonl" "$from" status=unreachable; }; then
            echo "# roam $i: an unreachable moment"
            $check dump "$out/watch.jsonl" "$from" wlan0 | sed 's/^/# watch: /'
            tail -n +"$((iw_from + 1))" "$out/iw-events.txt" | sed 's/^/# iw: /' | tail -n 30
        elif [ "$(tail -n +"$((text_from + 1))" "$out/watch.txt" | wc -l)" -ne 0 ]; then
            echo "# roam $i: printed as a change: $(tail -n +"$((text_from + 1))" "$out/watch.txt")"
        else
            passed=$((passed + 1))
        fi
        # How long the station was away, by the kernel's events: leaving the old access point
        # (or authenticating with the new one) to "connected to" the new one.
        took=$(awk -v from="$iw_from" 'NR > from && / wlan0 / && /deauth|disassoc|disconnected|: auth/ { t = $1 + 0; if (!s) s = t }
            NR > from && / wlan0 / && /connected to/ { t = $1 + 0; printf "%d", (t - s) * 1000; exit }' "$out/iw-events.txt")
        times="$times ${took:-?}"
    done
    [ -n "$hogs" ] && kill $hogs
    echo "# roam: $passed of $roams roams between $a and $b without an outage or a summary line; each took (ms, iw events):$times"
    if [ "$passed" -eq "$roams" ]; then ok roam; else fail roam "$passed of $roams roams without an outage"; fi

    # Another SSID: a new identity.
    ap other wlan3 Elsewhere || { fail other-ssid "access point"; return; }
    vm_sta_disconnect wlan0
    from=$(wc -l <"$out/watch.jsonl")
    text_from=$(wc -l <"$out/watch.txt")
    if vm_sta_connect wlan0 Elsewhere && vm_wait "$check watch $out/watch.jsonl $from wlan0 ssid=Elsewhere identity-ssid=Elsewhere status=wifi" 10 \
        && vm_wait "tail -n +$((text_from + 1)) $out/watch.txt | grep -q 'on \"Elsewhere\"'" 10; then
        ok other-ssid
        echo "# other-ssid: $(tail -n +"$((text_from + 1))" "$out/watch.txt" | tr '\n' '|')"
    else
        fail other-ssid "$($check watch "$out/watch.jsonl" "$from" wlan0)"
    fi

    # The access point goes away: unreachable at once (nl80211's disconnect, not the carrier).
    from=$(wc -l <"$out/watch.jsonl")
    vm_ap_stop other
    if vm_wait "$check watch $out/watch.jsonl $from wlan0 associated=false running=false status=unreachable" 10; then
        ok ap-gone
    else
        fail ap-gone "$($check watch "$out/watch.jsonl" "$from" wlan0)"
    fi
    vm_sta_disconnect wlan0
    vm_ap_stop campus-a
    vm_ap_stop campus-b
}
roam_case

# The human forms: the summary names the network; --explain shows the facts and the evidence.
explain_case() {
    selected explain || return 0
    ap explain wlan1 AndroidAP "interworking=1" "access_network_type=2" || { fail explain "access point"; return; }
    vm_sta_connect wlan0 AndroidAP || { fail explain "association"; vm_ap_stop explain; return; }
    default_route
    sleep 0.5
    reach status --explain >"$out/explain.txt" 2>&1
    reach interfaces --explain >"$out/interfaces.txt" 2>&1
    if grep -q '^wifi via wlan0 on "AndroidAP" (IPv4) expensive' "$out/explain.txt" \
        && grep -q '^wlan0: wifi "AndroidAP" bssid 02:00:00:00:01:00, 2412 MHz (2.4GHz)' "$out/explain.txt" \
        && grep -q 'beacon=interworking 2 (chargeable public network: expensive; decides the cost)' "$out/explain.txt" \
        && grep -q 'beacon=interworking 2' "$out/interfaces.txt"; then
        ok explain
        sed 's/^/# /' "$out/explain.txt"
    else
        fail explain "$(tr '\n' '|' <"$out/explain.txt")"
    fi
    vm_sta_disconnect wlan0
    vm_ap_stop explain
}
explain_case
