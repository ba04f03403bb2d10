#!/usr/bin/env bash
# Links the GIO module, libgioreach.so, from Sources/GioReach and Sources/GioReachParsing with
# the C compiler and pkg-config, as any GLib module is built, and prints its path.
#
#   scripts/package/build-gio-module.sh [--output DIR]      (default DIR: .build-gio)
#
# Not through SwiftPM's `gioreach` product (which `swift build` still makes, for a compile
# check): SwiftPM links every product with the Swift runtime's arguments (-lstdc++ -lm from
# static-stdlib-args.lnk, or -lswiftCore with an rpath into the toolchain) ahead of any flag a
# target can add, so `--as-needed` comes too late and libstdc++.so.6 and libm.so.6 end up
# NEEDED in every GLib program that loads the module, unused. Here `--as-needed` comes first
# and only GLib, GIO, json-glib and libc are NEEDED (scripts/check-footprint.py checks it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
output="$root/.build-gio"
while (($#)); do
    case "$1" in
        --output) output="${2:?--output needs a directory}"; shift ;;
        -h | --help) sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "build-gio-module: unknown argument $1" >&2; exit 64 ;;
    esac
    shift
done
mkdir -p "$output"
read -r -a glib <<<"$(pkg-config --cflags --libs gio-unix-2.0 json-glib-1.0)"
# Hardened as Debian builds its packages (dpkg-buildflags): fortified, stack-protected, full RELRO.
"${CC:-cc}" -shared -fPIC -O2 -g0 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration \
    -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fvisibility=hidden \
    -I "$root/Sources/GioReach/include" -I "$root/Sources/GioReachParsing/include" \
    -Wl,--as-needed -Wl,-z,relro -Wl,-z,now -Wl,-z,defs -Wl,--build-id \
    -o "$output/.libgioreach.so.new" \
    "$root/Sources/GioReach/reach_network_monitor.c" "$root/Sources/GioReachParsing/reach_path_line.c" \
    "${glib[@]}"
mv -f "$output/.libgioreach.so.new" "$output/libgioreach.so"
echo "$output/libgioreach.so"
