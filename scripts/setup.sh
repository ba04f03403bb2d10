#!/usr/bin/env bash
# Installs what building and testing need when it is missing: libnl-3 / libnl-route-3 / libnl-genl-3 headers,
# libsqlite3-dev (the daemon's queue, through ReachabilitySQLite), libssl-dev (SHA-256 from libcrypto), pkg-config and iproute2 (ip, nsenter comes with util-linux). Debian/Ubuntu, as root or with sudo.
set -euo pipefail

missing=()
for package in libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libsqlite3-dev libssl-dev pkg-config iproute2 util-linux; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
for extra in "$@"; do
    dpkg-query -W -f='${Status}' "$extra" 2>/dev/null | grep -q "install ok installed" || missing+=("$extra")
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "setup: no Swift toolchain on PATH (Swift 6.1 or later needed)" >&2; exit 1; }
