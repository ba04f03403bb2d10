#!/bin/sh
# Prints the README's Wi-Fi examples, run for real inside the VM lab:
#   scripts/vmlab/vmlab.py run -- scripts/vmlab/readme-wifi.sh
# A phone-like hotspot (802.11u "chargeable public", as Android's tethering announces) and a
# home network with two access points, on mac80211_hwsim radios; wpa_supplicant on wlan0.
set -eu
cd "$(dirname "$0")/../.." || exit 1
. scripts/vmlab/guest/lib.sh
trap 'kill $watch 2>/dev/null; vm_cleanup' EXIT
cp "${REACH_BIN:-.build/debug/reach}" /tmp/reach
PATH=/tmp:$PATH
show() { echo "\$ $*"; "$@" || echo "(exit $?)"; }
vm_wifi_radios 4 >/dev/null
ip link set wlan0 up && ip addr add 192.168.43.20/24 dev wlan0
ap() {
    vm_ap_start "$1" "$2" "$3" && ip netns exec "ap-$1" ip addr add "$4" dev "$(cat "$VM_STATE/ap-$1.if")"
}
ap home-a wlan1 "$(printf 'ssid=Home\nhw_mode=g\nchannel=1')" 192.168.43.1/24
ap home-b wlan2 "$(printf 'ssid=Home\nhw_mode=g\nchannel=11')" 192.168.43.2/24
ap phone wlan3 "$(printf 'ssid=Pixel 9\nhw_mode=g\nchannel=6\ninterworking=1\naccess_network_type=2')" 192.168.43.1/24
reach watch --debounce 0 >/tmp/watch.txt 2>&1 &
watch=$!
vm_sta_connect wlan0 "Pixel 9"
ip route replace default via 192.168.43.1 dev wlan0
sleep 1
show reach status
show reach status --explain
echo '$ reach status --json    # wlan0 and the identity, indented'
reach status --json | python3 -c 'import json,sys; p=json.load(sys.stdin); w=[i for i in p["interfaces"] if i["name"]=="wlan0"][0]; print(json.dumps({"identity": p["identity"], "wifi": w["wifi"], "expensive": w["expensive"]}, indent=1))'
vm_sta_disconnect wlan0
vm_sta_connect wlan0 Home
ip route replace default via 192.168.43.1 dev wlan0
sleep 1
now=$(iw dev wlan0 link | sed -n 's/^Connected to \([0-9a-f:]*\).*/\1/p')
other=$(vm_ap_bssid home-b); [ "$now" = "$other" ] && other=$(vm_ap_bssid home-a)
vm_sta_roam wlan0 "$other"
sleep 1
show reach status --explain
kill $watch
echo "\$ reach watch    # while the station moved from the phone to Home, then roamed to $other"
cat /tmp/watch.txt
