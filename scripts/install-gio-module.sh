#!/usr/bin/env bash
# Builds reach's GIO network-monitor module (libgioreach.so, release) and installs it where GIO
# loads modules from, `pkg-config --variable=giomoduledir gio-2.0`
# (/usr/lib/x86_64-linux-gnu/gio/modules on Debian), then refreshes GIO's module cache.
#
#   sudo scripts/install-gio-module.sh [--uninstall]
#
# GLib programs (unattended-upgrades, PackageKit, GNOME Software, Flatpak's portal) then read
# whether the network is available and metered from reach's daemon. The module gives way to
# NetworkManager's backend where NetworkManager runs, and to GLib's own monitor when no reach
# daemon answers. Needs libglib2.0-dev and libjson-glib-dev to build (installed when missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

uninstall=""
case "${1:-}" in
    "") ;;
    --uninstall) uninstall=1 ;;
    -h | --help) sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "install-gio-module: unknown argument $1" >&2; exit 64 ;;
esac
[[ $(id -u) -eq 0 ]] || { echo "install-gio-module: run as root (it writes to GIO's module directory)" >&2; exit 77; }

scripts/setup.sh libglib2.0-dev libjson-glib-dev
directory="$(pkg-config --variable=giomoduledir gio-2.0)"
[[ -n $directory ]] || { echo "install-gio-module: pkg-config does not know GIO's module directory" >&2; exit 1; }
querymodules="$(pkg-config --variable=gio_querymodules gio-2.0 || true)"
[[ -x $querymodules ]] || querymodules="$(command -v gio-querymodules || true)"

if [[ -n $uninstall ]]; then
    rm -f "$directory/libgioreach.so"
    echo "install-gio-module: removed $directory/libgioreach.so"
else
    # Linked by the C compiler as the package's is (only GLib, GIO, json-glib and libc NEEDED).
    built="$(scripts/package/build-gio-module.sh)"
    install -d -m 0755 "$directory"
    # A new file renamed into place: a program that has the old one mapped keeps it intact.
    install -m 0644 "$built" "$directory/.libgioreach.so.new"
    mv -f "$directory/.libgioreach.so.new" "$directory/libgioreach.so"
    echo "install-gio-module: installed $directory/libgioreach.so"
fi
if [[ -n $querymodules ]]; then
    "$querymodules" "$directory"
    echo "install-gio-module: refreshed $directory/giomodule.cache"
else
    echo "install-gio-module: gio-querymodules not found; GIO will open every module in $directory" >&2
fi
