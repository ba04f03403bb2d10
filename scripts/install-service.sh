#!/usr/bin/env bash
# Builds reach (release, Swift runtime linked statically) and installs it with its systemd units.
#
#   scripts/install-service.sh [--user] [--prefix DIR]
#
# reach and reach-daemon go to PREFIX/bin (default /usr/local); the units go to
# /etc/systemd/system, or with --user to ~/.config/systemd/user (the binaries still go to
# PREFIX/bin: use --prefix ~/.local to install without root). The units name
# /usr/local/bin/reach; another prefix is written into the installed copies. Nothing is enabled
# or started: see dist/systemd/README.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

prefix=/usr/local
user=""
while (($#)); do
    case "$1" in
        --user) user=1 ;;
        --prefix) prefix="${2:?--prefix needs a directory}"; shift ;;
        -h | --help) sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "install-service: unknown argument $1" >&2; exit 64 ;;
    esac
    shift
done
prefix="$(realpath -m "$prefix")"

cd "$root"
build=(swift build -c release --static-swift-stdlib --scratch-path .build-release)
for product in reach reach-daemon; do "${build[@]}" --product "$product"; done
bin="$("${build[@]}" --show-bin-path)"
install -d "$prefix/bin"
install -m 0755 "$bin/reach" "$bin/reach-daemon" "$prefix/bin/"
# Before 0.2.0 `reach get` ran a reach-transfer of its own; reach-daemon carries it now.
if [[ -f $prefix/bin/reach-transfer && ! -L $prefix/bin/reach-transfer ]]; then rm -f "$prefix/bin/reach-transfer"; fi

# Copies a unit into $1 with ExecStart= pointing at this prefix.
install_unit() {
    install -d "$1"
    sed "s#/usr/local/bin/reach #$prefix/bin/reach #" "$2" >"$1/$(basename "$2")"
    chmod 0644 "$1/$(basename "$2")"
}

if [[ -n $user ]]; then
    install_unit "${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user" dist/systemd/user/reach.service
    systemctl --user daemon-reload
    echo "install-service: now: systemctl --user enable --now reach.service"
else
    # The unit reads /etc/reach/reach.conf: a commented one unless the administrator has one.
    if [[ ! -e /etc/reach/reach.conf ]]; then
        install -d -m 0755 /etc/reach
        install -m 0644 dist/config/reach.conf /etc/reach/reach.conf
    fi
    install_unit /etc/systemd/system dist/systemd/system/reach.service
    install_unit /etc/systemd/system "dist/systemd/system/reach-wait-online@.service"
    systemctl daemon-reload
    echo "install-service: now: systemctl enable --now reach.service"
fi
