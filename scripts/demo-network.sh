#!/usr/bin/env bash
# Builds the README's demo network: a network namespace whose veths stand in for a Wi-Fi card
# (wlan0) and an LTE modem (wwan0), each with its peer beside it, and default routes over both.
#
#   sudo scripts/demo-network.sh up [--name NAME]      (default NAME: reach-demo)
#   sudo scripts/demo-network.sh down [--name NAME]
#
# Then, for example:
#   sudo ip netns exec reach-demo reach watch --override wlan0=wifi --override wwan0=cellular
#   sudo ip netns exec reach-demo ip link set wlan0 down      # cellular takes over
#
# wlan0: 192.168.1.20/24 and 2001:db8:1::20/64, default routes via .1 and ::1, metric 600.
# wwan0: 10.64.0.6/30 (10.64.0.4/30: .5 the gateway, .6 the host, .7 the broadcast address),
# default route via 10.64.0.5, metric 700. The addresses are documentation and private ranges;
# nothing leaves the namespace.
set -euo pipefail

action="${1:-}"
shift || true
name=reach-demo
while (($#)); do
    case "$1" in
        --name) name="${2:?--name needs a namespace name}"; shift ;;
        *) echo "demo-network: unknown argument $1" >&2; exit 64 ;;
    esac
    shift
done
[[ $name =~ ^[A-Za-z0-9_.-]{1,32}$ ]] || { echo "demo-network: bad namespace name '$name'" >&2; exit 64; }
[[ $(id -u) -eq 0 ]] || { echo "demo-network: run as root (it creates a network namespace)" >&2; exit 77; }

case "$action" in
    up)
        if ip netns list | grep -qw "^$name"; then
            echo "demo-network: namespace $name exists (scripts/demo-network.sh down --name $name)" >&2
            exit 1
        fi
        ip netns add "$name"
        trap 'ip netns delete "$name" 2>/dev/null' ERR
        ip -n "$name" -batch - <<BATCH
link set lo up
link add wlan0 type veth peer name wlan0-peer
link add wwan0 type veth peer name wwan0-peer
link set wlan0-peer up
link set wwan0-peer up
link set wlan0 up
link set wwan0 up
address add 192.168.1.20/24 brd + dev wlan0
address add 2001:db8:1::20/64 dev wlan0 nodad
address add 10.64.0.6/30 brd + dev wwan0
route add default via 192.168.1.1 dev wlan0 metric 600
route add default via 10.64.0.5 dev wwan0 metric 700
BATCH
        # IPv6 needs the address configured (nodad) before its default route.
        ip -n "$name" -6 route add default via 2001:db8:1::1 dev wlan0 metric 600
        echo "demo-network: $name is up: ip netns exec $name reach watch --override wlan0=wifi --override wwan0=cellular"
        ;;
    down)
        ip netns delete "$name"
        echo "demo-network: $name removed"
        ;;
    *)
        sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
        [[ $action == -h || $action == --help ]] && exit 0
        exit 64
        ;;
esac
