#!/usr/bin/env bash
# Builds the Debian package reach_VERSION_ARCH.deb from this checkout.
#
#   scripts/package-deb.sh [--output DIR]      (default DIR: .build-deb)
#
# Release build with the Swift runtime linked statically, binaries stripped; the systemd units,
# the GIO module with GLib's module-cache trigger, /etc/reach/reach.conf (commented), man pages
# and bash/zsh/fish completions generated from the commands' own definitions (swift-argument-
# parser's generate-manual and --generate-completion-script, run on the packaged binaries), the
# copyright file with every bundled component's licence. Depends: from dpkg-shlibdeps. Prints
# the package's path last. Maintainer scripts enable and start nothing; purge removes the
# daemon's state.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

output=.build-deb
while (($#)); do
    case "$1" in
        --output) output="${2:?--output needs a directory}"; shift ;;
        -h | --help) sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "package-deb: unknown argument $1" >&2; exit 64 ;;
    esac
    shift
done

scripts/setup.sh dpkg-dev binutils libglib2.0-dev libjson-glib-dev
scratch=.build-release
build=(swift build -c release --static-swift-stdlib --scratch-path "$scratch")
for product in reach reach-daemon; do "${build[@]}" --product "$product" >&2; done
bin="$("${build[@]}" --show-bin-path)"

version="$("$bin/reach" --version | cut -d' ' -f1)"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "package-deb: unexpected version '$version'" >&2; exit 1; }
arch="$(dpkg --print-architecture)"
# Who answers for the package: REACH_MAINTAINER="Name <address>" for a real release.
maintainer="${REACH_MAINTAINER:-Reachability developers <reachability@users.noreply.github.com>}"
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
# Reproducible: every date and mtime is the last commit's.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
package="$staging/reach"
install -d "$package/DEBIAN" "$package/usr/bin"
for executable in reach reach-daemon; do
    install -m 0755 "$bin/$executable" "$package/usr/bin/$executable"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$package/usr/bin/$executable"
done

# The GIO module: libglib2.0-0's trigger on this directory runs gio-querymodules.
giomodules="/usr/lib/$multiarch/gio/modules"
install -d "$package$giomodules"
# Linked by the C compiler, not SwiftPM: only GLib, GIO, json-glib and libc are NEEDED.
install -m 0644 "$(scripts/package/build-gio-module.sh --output "$scratch/gio")" "$package$giomodules/libgioreach.so"
strip --strip-unneeded --remove-section=.comment "$package$giomodules/libgioreach.so"

# The units, naming /usr/bin instead of a source install's /usr/local/bin.
install_unit() {
    install -d "$package$1"
    sed 's#/usr/local/bin/reach #/usr/bin/reach #' "$2" >"$package$1/$(basename "$2")"
    chmod 0644 "$package$1/$(basename "$2")"
}
install_unit /lib/systemd/system dist/systemd/system/reach.service
install_unit /lib/systemd/system "dist/systemd/system/reach-wait-online@.service"
install_unit /usr/lib/systemd/user dist/systemd/user/reach.service

install -d "$package/etc/reach"
install -m 0644 dist/config/reach.conf "$package/etc/reach/reach.conf"

# Man pages and completions from the packaged binaries (reach answers both from reach-daemon's
# whole command tree), so they describe exactly what is installed.
docs="$staging/docs"
scripts/package/generate-docs.sh "$package/usr/bin/reach" "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" "$docs"
install -d "$package/usr/share/man/man1" "$package/usr/share/bash-completion/completions" \
    "$package/usr/share/zsh/vendor-completions" "$package/usr/share/fish/vendor_completions.d"
for page in "$docs"/man1/*.1; do
    gzip -9n <"$page" >"$package/usr/share/man/man1/$(basename "$page").gz"
done
install -m 0644 "$docs/completions/reach.bash" "$package/usr/share/bash-completion/completions/reach"
install -m 0644 "$docs/completions/_reach" "$package/usr/share/zsh/vendor-completions/_reach"
install -m 0644 "$docs/completions/reach.fish" "$package/usr/share/fish/vendor_completions.d/reach.fish"

# Documentation: the copyright file (every bundled component's licence) and a changelog.
doc="$package/usr/share/doc/reach"
install -d "$doc"
scripts/package/copyright.py "$scratch" >"$doc/copyright"
{
    echo "reach ($version) unstable; urgency=medium"
    echo
    echo "  * Built from $(git rev-parse --short HEAD 2>/dev/null || echo 'a source tree'); see CHANGELOG.md upstream."
    echo
    echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"

install -m 0755 scripts/package/postinst scripts/package/prerm scripts/package/postrm "$package/DEBIAN/"
# Reviewed, with the reason beside each (lintian prints the overrides it applied).
install -d "$package/usr/share/lintian/overrides"
install -m 0644 scripts/package/lintian-overrides "$package/usr/share/lintian/overrides/reach"
echo /etc/reach/reach.conf >"$package/DEBIAN/conffiles"

# Depends from the libraries the binaries link (dpkg-shlibdeps wants a debian/control).
mkdir -p "$staging/debian"
printf 'Source: reach\n\nPackage: reach\nArchitecture: any\n' >"$staging/debian/control"
depends="$(cd "$staging" && dpkg-shlibdeps -O -e reach/usr/bin/reach -e reach/usr/bin/reach-daemon \
    -e "reach$giomodules/libgioreach.so" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[[ -n $depends ]] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

installed_size="$(du -sk --exclude=DEBIAN "$package" | cut -f1)"
cat >"$package/DEBIAN/control" <<EOF
Package: reach
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Suggests: systemd
Section: net
Priority: optional
Description: network-aware transfers: online, how, and metered or not
 reach tells programs, live, whether the host is online and how: Wi-Fi,
 cellular, wired or not at all, metered or not, from the kernel's own facts
 (netlink, sysfs, nl80211: a phone hotspot is metered from its beacon).
 .
 reach get, reach upload and reach run gate transfers and commands on it;
 reach daemon keeps a persistent queue (SQLite) that waits for the right
 network across reboots, with data budgets per network, a control socket,
 Prometheus metrics and systemd units (not enabled on installation). A GIO
 module tells GLib programs whether the network is metered.
EOF

find "$package" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$output"
rm -f "$output"/reach_*.deb    # one package in the directory: the one just built
deb="$output/reach_${version}_${arch}.deb"
# xz level 8: its 32 MiB window spans both executables, which share the Swift runtime,
# Foundation and NIO (13.0 MiB at the default level 6, 10.1 MiB here); unpacking needs 33 MiB
# of memory (level 9's 64 MiB window would save 3 KB more and need 65 MiB on the device).
dpkg-deb --root-owner-group -Zxz -z8 --build "$package" "$deb" >&2
echo "$deb"
