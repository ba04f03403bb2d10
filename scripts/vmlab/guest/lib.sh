# vmlab guest helpers (POSIX sh): source this in suites that `vmlab.py run` starts inside the VM.
# They need the VM's kernel (mac80211_hwsim, dummy_hcd, configfs gadgets) and root. Every helper
# returns non-zero with a message on stderr when something does not happen in time.

VM_STATE=/run/vmlab-lib    # configs, pid files and logs of what the helpers started
mkdir -p "$VM_STATE"

vm_die() {
    echo "vmlab-lib: $*" >&2
    return 1
}

# vm_wait COND TIMEOUT_S: poll the shell command COND every 0.1 s until it succeeds.
vm_wait() {
    _vw_end=$(($(date +%s) + $2))
    until eval "$1" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$_vw_end" ] || { vm_die "timeout after $2 s waiting for: $1"; return 1; }
        sleep 0.1
    done
}

# vm_wait_or_show COND TIMEOUT_S LOG: vm_wait, showing the end of LOG (a daemon's) on timeout.
vm_wait_or_show() {
    vm_wait "$1" "$2" || {
        tail -n 20 "$3" >&2
        return 1
    }
}

# vm_netdev_info IF: "IF driver=DRIVER devtype=DEVTYPE [usb=VID:PID]" from sysfs (uevent).
vm_netdev_info() {
    _ni_dev=/sys/class/net/$1/device
    _ni_type=$(sed -n 's/^DEVTYPE=//p' "/sys/class/net/$1/uevent")
    _ni_drv=$(basename "$(readlink "$_ni_dev/driver")")
    _ni_usb=
    [ ! -e "$_ni_dev/../idVendor" ] || _ni_usb=" usb=$(cat "$_ni_dev/../idVendor"):$(cat "$_ni_dev/../idProduct")"
    echo "$1 driver=$_ni_drv devtype=${_ni_type:-none}$_ni_usb"
}

# --- Wi-Fi: mac80211_hwsim radios, hostapd access points, a wpa_supplicant station ---

# vm_wifi_radios N: (re)load mac80211_hwsim with N radios; waits for their wlan interfaces.
vm_wifi_radios() {
    modprobe -r mac80211_hwsim 2>/dev/null
    modprobe mac80211_hwsim radios="$1" || { vm_die "modprobe mac80211_hwsim radios=$1 failed"; return 1; }
    vm_wait "[ \$(ls -d /sys/class/net/*/phy80211 2>/dev/null | wc -l) -ge $1 ]" 20
}

# vm_phy PHY_OR_IFACE: the phy name (phyN) of a radio given as phy or as its interface.
vm_phy() {
    if [ -e "/sys/class/net/$1/phy80211" ]; then
        cat "/sys/class/net/$1/phy80211/name"
    elif [ -e "/sys/class/ieee80211/$1" ]; then
        echo "$1"
    else
        vm_die "no radio $1"
    fi
}

# vm_ap_start NAME PHY CONFBODY: moves the radio PHY (phyN or wlanN) into namespace ap-NAME and
# starts hostapd there with CONFBODY (ssid=, channel=, wpa=, vendor_elements=, bssid=, ... one
# per line) after interface/driver/ctrl_interface. Waits until hostapd reports ENABLED.
vm_ap_start() {
    _ap_phy=$(vm_phy "$2") || return 1
    _ap_if=$(ls "/sys/class/ieee80211/$_ap_phy/device/net" | head -n 1)
    [ -n "$_ap_if" ] || { vm_die "radio $_ap_phy has no interface"; return 1; }
    ip netns add "ap-$1" || { vm_die "ip netns add ap-$1 failed"; return 1; }
    iw phy "$_ap_phy" set netns name "ap-$1" || { vm_die "cannot move $_ap_phy to ap-$1"; return 1; }
    echo "$_ap_if" > "$VM_STATE/ap-$1.if"
    printf 'interface=%s\ndriver=nl80211\nctrl_interface=/run/hostapd-%s\n%s\n' "$_ap_if" "$1" "$3" > "$VM_STATE/ap-$1.conf"
    ip netns exec "ap-$1" hostapd -B -P "$VM_STATE/ap-$1.pid" -t -f "$VM_STATE/ap-$1.log" "$VM_STATE/ap-$1.conf" || {
        tail -n 20 "$VM_STATE/ap-$1.log" >&2
        vm_die "hostapd for ap-$1 did not start"
        return 1
    }
    vm_wait_or_show "hostapd_cli -p /run/hostapd-$1 -i $_ap_if status | grep -qx state=ENABLED" 20 "$VM_STATE/ap-$1.log"
}

# vm_ap_bssid NAME: the BSSID the access point NAME announces.
vm_ap_bssid() {
    hostapd_cli -p "/run/hostapd-$1" -i "$(cat "$VM_STATE/ap-$1.if")" status | sed -n 's/^bssid\[0\]=//p'
}

# vm_ap_stop NAME: stops hostapd and deletes the namespace, which gives the radio back.
vm_ap_stop() {
    [ -f "$VM_STATE/ap-$1.if" ] || { vm_die "no access point $1"; return 1; }
    _ap_if=$(cat "$VM_STATE/ap-$1.if")
    [ -f "$VM_STATE/ap-$1.pid" ] && kill "$(cat "$VM_STATE/ap-$1.pid")" 2>/dev/null
    vm_wait "[ ! -e /run/hostapd-$1/$_ap_if ]" 10 || return 1
    ip netns del "ap-$1"
    rm -f "$VM_STATE/ap-$1.if" "$VM_STATE/ap-$1.pid"
    # cfg80211 moves a radio back to the initial namespace when its namespace goes away.
    vm_wait "[ -e /sys/class/net/$_ap_if ]" 10
}

# vm_sta_connect IFACE SSID [PSK]: wpa_supplicant on IFACE (this namespace); waits for COMPLETED.
vm_sta_connect() {
    if [ -n "${3:-}" ]; then
        _sta_net="key_mgmt=WPA-PSK
	psk=\"$3\""
    else
        _sta_net="key_mgmt=NONE"
    fi
    printf 'ctrl_interface=/run/wpa_supplicant\nnetwork={\n\tssid="%s"\n\tscan_ssid=1\n\t%s\n}\n' "$2" "$_sta_net" > "$VM_STATE/sta-$1.conf"
    wpa_supplicant -B -D nl80211 -i "$1" -c "$VM_STATE/sta-$1.conf" -P "$VM_STATE/sta-$1.pid" -t -f "$VM_STATE/sta-$1.log" || {
        vm_die "wpa_supplicant on $1 did not start"
        return 1
    }
    vm_wait_or_show "wpa_cli -p /run/wpa_supplicant -i $1 status | grep -qx wpa_state=COMPLETED" 30 "$VM_STATE/sta-$1.log"
}

# vm_sta_roam IFACE BSSID: roams to BSSID (same SSID); waits until associated with it.
vm_sta_roam() {
    _sta_b=$(echo "$2" | tr 'A-F' 'a-f')
    wpa_cli -p /run/wpa_supplicant -i "$1" scan >/dev/null
    # wpa_supplicant only roams to a BSS it has seen in a scan.
    vm_wait "wpa_cli -p /run/wpa_supplicant -i $1 scan_results | grep -q '^$_sta_b'" 20 || return 1
    wpa_cli -p /run/wpa_supplicant -i "$1" roam "$_sta_b" | grep -qx OK || { vm_die "wpa_cli roam $_sta_b refused"; return 1; }
    vm_wait "wpa_cli -p /run/wpa_supplicant -i $1 status | grep -qx bssid=$_sta_b &&
        wpa_cli -p /run/wpa_supplicant -i $1 status | grep -qx wpa_state=COMPLETED" 30
}

# vm_sta_disconnect IFACE: stops wpa_supplicant on IFACE.
vm_sta_disconnect() {
    wpa_cli -p /run/wpa_supplicant -i "$1" terminate >/dev/null 2>&1
    vm_wait "[ ! -e /run/wpa_supplicant/$1 ]" 10 || return 1
    rm -f "$VM_STATE/sta-$1.pid"
}

# --- USB: configfs gadgets on dummy_hcd, seen by the same kernel as plugged-in devices ---

VM_GADGETS=/sys/kernel/config/usb_gadget

# vm_gadget_add NAME FUNCTION VID PID: plugs a gadget with one ncm, rndis or ecm function and the
# given USB ids into a free dummy_hcd port; prints the host-side netdev once it has carrier.
vm_gadget_add() {
    case $2 in ncm | rndis | ecm) ;; *) vm_die "function $2: expected ncm, rndis or ecm"; return 1 ;; esac
    [ -d /sys/module/dummy_hcd ] || modprobe dummy_hcd num=4 || { vm_die "modprobe dummy_hcd failed"; return 1; }
    # No udev in the VM: the host-side class drivers must be loaded before the plug.
    modprobe -a libcomposite "usb_f_$2" cdc_ether cdc_ncm rndis_host || { vm_die "modprobe for $2 failed"; return 1; }
    _g=$VM_GADGETS/$1
    [ ! -e "$_g" ] || { vm_die "gadget $1 exists"; return 1; }
    _g_udc=
    for _u in $(ls /sys/class/udc); do
        grep -qx "$_u" $VM_GADGETS/*/UDC 2>/dev/null || { _g_udc=$_u; break; }
    done
    [ -n "$_g_udc" ] || { vm_die "no free dummy_udc"; return 1; }
    mkdir "$_g" "$_g/strings/0x409" "$_g/configs/c.1" "$_g/functions/$2.usb0" || { vm_die "configfs: cannot create gadget $1"; return 1; }
    echo "$3" > "$_g/idVendor"
    echo "$4" > "$_g/idProduct"
    echo "vmlab-$1" > "$_g/strings/0x409/serialnumber"
    echo "vmlab $2 gadget" > "$_g/strings/0x409/product"
    ln -s "$_g/functions/$2.usb0" "$_g/configs/c.1/"
    echo "$_g_udc" > "$_g/UDC" || { vm_die "cannot bind gadget $1 to $_g_udc"; return 1; }
    echo "$2 $_g_udc" > "$VM_STATE/gadget-$1"
    # dummy_udc.N is plugged into dummy_hcd.N: the host-side netdev sits below that controller.
    _g_hcd=dummy_hcd.${_g_udc#dummy_udc.}
    vm_wait "vm_usb_netdev $_g_hcd | grep -q ." 30 || return 1
    _g_host=$(vm_usb_netdev "$_g_hcd")
    echo "$2 $_g_udc $_g_host" > "$VM_STATE/gadget-$1"
    # Host side first (usbnet reads link notifications only while it is up), then the gadget
    # side, whose opening sends the "connected" notification. The gadget side up before the
    # host had enumerated it left ECM without carrier here.
    ip link set "$_g_host" up
    ip link set "$(cat "$_g/functions/$2.usb0/ifname")" up
    vm_wait "[ \"\$(cat /sys/class/net/$_g_host/carrier)\" = 1 ]" 30 || return 1
    echo "$_g_host"
}

# vm_usb_netdev dummy_hcd.N: netdevs of devices plugged below that host controller.
vm_usb_netdev() {
    for _n in /sys/class/net/*; do
        case $(readlink -f "$_n/device") in */"$1"/*) echo "${_n##*/}" ;; esac
    done
}

# vm_gadget_remove NAME: unplugs the gadget and deletes it (configfs wants this order).
vm_gadget_remove() {
    [ -f "$VM_STATE/gadget-$1" ] || { vm_die "no gadget $1"; return 1; }
    read -r _g_func _g_udc _g_host < "$VM_STATE/gadget-$1"
    _g=$VM_GADGETS/$1
    echo "" > "$_g/UDC"
    rm -f "$_g/configs/c.1/$_g_func.usb0"
    rmdir "$_g/configs/c.1" "$_g/functions/$_g_func.usb0" "$_g/strings/0x409" "$_g" || { vm_die "cannot remove gadget $1"; return 1; }
    rm -f "$VM_STATE/gadget-$1"
    [ -z "$_g_host" ] || vm_wait "[ ! -e /sys/class/net/$_g_host ]" 10
}

# vm_cleanup: stops every access point, station and gadget the helpers started (for traps).
vm_cleanup() {
    for _c in "$VM_STATE"/gadget-*; do [ -f "$_c" ] && vm_gadget_remove "${_c##*/gadget-}"; done
    for _c in "$VM_STATE"/sta-*.pid; do [ -f "$_c" ] && _c=${_c##*/sta-} && vm_sta_disconnect "${_c%.pid}"; done
    for _c in "$VM_STATE"/ap-*.if; do [ -f "$_c" ] && _c=${_c##*/ap-} && vm_ap_stop "${_c%.if}"; done
    return 0
}
