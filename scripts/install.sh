#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make install / make uninstall. (The Debian packages are debian/'s, built
# by dpkg-buildpackage: scripts/build-deb.sh.)
# Usage: scripts/install.sh install|uninstall
# Honours PREFIX (default /usr/local), DESTDIR, SYSCONFDIR (default /etc) and
# STRIP=1 (strip the binaries, as a package does; STRIP=PROGRAM strips with
# that one, aarch64-linux-gnu-strip for another architecture's) and
# BINARIES (the folder of the binaries: .build-static/release, or
# .build-arm64/release for a staged arm64 tree). Installs the binaries built
# by `make` (scripts/build-release.sh); it never builds, so `sudo make
# install` does not leave root-owned build files behind. The man pages and
# completions come from .build-static/share whatever the architecture.
#
# On a live system (no DESTDIR, run as root, systemd running) install also
# creates the acceld user (systemd-sysusers), applies the udev rule, loads
# i2c-dev and reloads systemd (and the system bus's policies, for
# acceld-sensorproxy); it does not enable the service. uninstall
# stops and disables the units first. Neither touches /var/lib/acceld (the
# calibration), nor a configuration file that differs from the default.
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
DESTDIR=${DESTDIR:-}
BINDIR=$PREFIX/bin
LIBDIR=$PREFIX/lib
DATADIR=$PREFIX/share
DOCDIR=$DATADIR/doc/acceld
MANDIR=$DATADIR/man
# zsh on Debian reads Debian's own completions from vendor-completions and
# a local administrator's from /usr/local/share/zsh/site-functions.
if [ "$PREFIX" = /usr ]; then ZSHDIR=$DATADIR/zsh/vendor-completions; else ZSHDIR=$DATADIR/zsh/site-functions; fi
CONFIG=$SYSCONFDIR/acceld/acceld.conf
# The system bus reads policies from /usr/share/dbus-1/system.d and
# /etc/dbus-1/system.d, not from under /usr/local.
if [ "$PREFIX" = /usr ]; then DBUSDIR=$DATADIR/dbus-1/system.d; else DBUSDIR=$SYSCONFDIR/dbus-1/system.d; fi
BINARIES=${BINARIES:-.build-static/release}
PROGRAMS="acceld accelctl acceld-gateway acceld-sensorproxy acceld-ros2"
# The Python client goes where the system's python3 imports from: Debian's
# /usr/lib/python3/dist-packages for a package, and for a local install
# the versioned folder under PREFIX that Debian's python3 also reads.
if [ "$PREFIX" = /usr ]; then
    PYTHONDIR=$PREFIX/lib/python3/dist-packages
else
    PYTHONDIR=$PREFIX/lib/$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null || echo python3)/dist-packages
fi

# What install puts where (source, destination, mode); uninstall removes
# the same list. systemd, sysusers, udev and modules-load all read
# /usr/local/lib as well as /usr/lib, so PREFIX=/usr/local works too.
manifest() {
    echo "$BINARIES/acceld $BINDIR/acceld 0755"
    echo "$BINARIES/accelctl $BINDIR/accelctl 0755"
    echo "$BINARIES/acceld-gateway $BINDIR/acceld-gateway 0755"
    echo "$BINARIES/acceld-sensorproxy $BINDIR/acceld-sensorproxy 0755"
    echo "$BINARIES/acceld-ros2 $BINDIR/acceld-ros2 0755"
    echo "systemd/acceld.service $LIBDIR/systemd/system/acceld.service 0644"
    echo "systemd/acceld.socket $LIBDIR/systemd/system/acceld.socket 0644"
    echo "systemd/acceld-sysusers.conf $LIBDIR/sysusers.d/acceld.conf 0644"
    echo "systemd/udev/60-acceld-i2c.rules $LIBDIR/udev/rules.d/60-acceld-i2c.rules 0644"
    echo "systemd/acceld-modules.conf $LIBDIR/modules-load.d/acceld.conf 0644"
    echo "systemd/acceld-gateway.service $LIBDIR/systemd/system/acceld-gateway.service 0644"
    echo "systemd/acceld-gateway.socket $LIBDIR/systemd/system/acceld-gateway.socket 0644"
    echo "systemd/acceld-gateway-sysusers.conf $LIBDIR/sysusers.d/acceld-gateway.conf 0644"
    echo "systemd/acceld-sensorproxy.service $LIBDIR/systemd/system/acceld-sensorproxy.service 0644"
    echo "systemd/acceld-sensorproxy-sysusers.conf $LIBDIR/sysusers.d/acceld-sensorproxy.conf 0644"
    echo "systemd/acceld-ros2.service $LIBDIR/systemd/system/acceld-ros2.service 0644"
    echo "systemd/acceld-ros2-sysusers.conf $LIBDIR/sysusers.d/acceld-ros2.conf 0644"
    # Not net.hadess.SensorProxy.conf: that file is iio-sensor-proxy's.
    echo "systemd/acceld-sensorproxy-dbus.conf $DBUSDIR/acceld-sensorproxy.conf 0644"
    # The live page, served by acceld-gateway ([gateway] web-root).
    for file in Web/*; do echo "$file $DATADIR/acceld/web/$(basename "$file") 0644"; done
    for doc in README.md CHANGELOG.md docs/*.md; do echo "$doc $DOCDIR/$(basename "$doc") 0644"; done
    # The Python client (import acceld) and the examples of docs/CLIENTS.md,
    # in Python and in Swift (to read, or to build with AccelClient).
    for file in clients/python/acceld/*.py clients/python/acceld/py.typed; do echo "$file $PYTHONDIR/acceld/$(basename "$file") 0644"; done
    for file in clients/python/examples/*.py; do echo "$file $DOCDIR/examples/python/$(basename "$file") 0644"; done
    for file in Examples/*/main.swift; do echo "$file $DOCDIR/examples/swift/$(basename "$(dirname "$file")").swift 0644"; done    # Generated by `make` (scripts/build-docs.sh) from the binaries' parsers.
    echo ".build-static/share/man/man8/acceld.8 $MANDIR/man8/acceld.8 0644"
    echo ".build-static/share/man/man1/accelctl.1 $MANDIR/man1/accelctl.1 0644"
    echo ".build-static/share/man/man8/acceld-gateway.8 $MANDIR/man8/acceld-gateway.8 0644"
    echo ".build-static/share/man/man8/acceld-sensorproxy.8 $MANDIR/man8/acceld-sensorproxy.8 0644"
    echo ".build-static/share/man/man8/acceld-ros2.8 $MANDIR/man8/acceld-ros2.8 0644"
    for binary in $PROGRAMS; do
        echo ".build-static/share/completions/bash/$binary $DATADIR/bash-completion/completions/$binary 0644"
        echo ".build-static/share/completions/zsh/_$binary $ZSHDIR/_$binary 0644"
        echo ".build-static/share/completions/fish/$binary.fish $DATADIR/fish/vendor_completions.d/$binary.fish 0644"
    done
}

say() { echo "install.sh: $*" >&2; }
# The system bus read the policy before its user existed (or still has a
# removed one): it reads them again.
reload_dbus() {
    if command -v dbus-send >/dev/null && [ -S /run/dbus/system_bus_socket ]; then
        dbus-send --system --type=method_call --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig || true
    fi
}
live_system() { [ -z "$DESTDIR" ] && [ "$(id -u)" -eq 0 ] && [ -d /run/systemd/system ]; }

install_files() {
    for binary in $PROGRAMS; do
        [ -x "$BINARIES/$binary" ] || {
            say "no $BINARIES/$binary: run 'make' first (as yourself), then 'sudo make install'"
            exit 1
        }
    done
    # A man page or completion made from older binaries than these is stale.
    manifest | while read -r source destination mode; do
        case $source in .build-static/share/*)
            stale=$([ -s "$source" ] || echo missing; for binary in $PROGRAMS; do [ ! "$source" -ot ".build-static/release/$binary" ] || echo older; done)
            if [ -n "$stale" ]; then
                say "$source is missing or older than the binaries: run 'make' (it generates the man pages and completions), then install"
                exit 1
            fi ;;
        esac
    done
    manifest | while read -r source destination mode; do
        install -d "$DESTDIR$(dirname "$destination")"
        case $source in
            systemd/acceld.service|systemd/acceld-gateway.service|systemd/acceld-sensorproxy.service|systemd/acceld-ros2.service)  # The units name the installed paths.
                sed -e "s|/usr/bin/acceld|$BINDIR/acceld|g" -e "s|/etc/acceld/|$SYSCONFDIR/acceld/|g" \
                    -e "s|/usr/share/doc/acceld|$DOCDIR|g" "$source" > "$DESTDIR$destination"
                chmod "$mode" "$DESTDIR$destination" ;;
            "$BINARIES"/*)
                case ${STRIP:-} in
                    "") install -m "$mode" "$source" "$DESTDIR$destination" ;;
                    1) install -m "$mode" -s "$source" "$DESTDIR$destination" ;;
                    *) install -m "$mode" -s --strip-program="$STRIP" "$source" "$DESTDIR$destination" ;;
                esac ;;
            *)
                install -m "$mode" "$source" "$DESTDIR$destination" ;;
        esac
    done
    # The configuration: an existing file is the administrator's and stays.
    install -d "$DESTDIR$SYSCONFDIR/acceld"
    if [ ! -e "$DESTDIR$CONFIG" ]; then
        install -m 0644 Config/acceld.conf "$DESTDIR$CONFIG"
    elif ! cmp -s Config/acceld.conf "$DESTDIR$CONFIG"; then
        install -m 0644 Config/acceld.conf "$DESTDIR$CONFIG.new"
        say "kept your $CONFIG; this version's defaults are in $CONFIG.new"
    fi
    say "installed under ${DESTDIR:-/} (PREFIX=$PREFIX)"

    if live_system; then
        systemd-sysusers "$LIBDIR/sysusers.d/acceld.conf" "$LIBDIR/sysusers.d/acceld-gateway.conf" "$LIBDIR/sysusers.d/acceld-sensorproxy.conf" \
            "$LIBDIR/sysusers.d/acceld-ros2.conf"
        systemctl daemon-reload
        reload_dbus
        # udevd re-reads rules only when a rules file is newer than its cache.
        touch "$LIBDIR/udev/rules.d/60-acceld-i2c.rules"
        udevadm control --reload
        modprobe i2c-dev 2>/dev/null || say "could not load i2c-dev; /dev/i2c-* will appear after a reboot"
        udevadm trigger --subsystem-match=i2c-dev --action=change
        say "created the acceld user, applied the udev rule; start with: systemctl enable --now acceld.socket"
    fi
}

uninstall_files() {
    if live_system; then
        systemctl disable --now acceld-ros2.service acceld-sensorproxy.service acceld-gateway.socket acceld-gateway.service acceld.socket acceld.service 2>/dev/null || true
    fi
    manifest | while read -r source destination mode; do
        rm -f "$DESTDIR$destination"
    done
    rmdir "$DESTDIR$DOCDIR/examples/python" "$DESTDIR$DOCDIR/examples/swift" "$DESTDIR$DOCDIR/examples" "$DESTDIR$DOCDIR" \
          "$DESTDIR$PYTHONDIR/acceld" "$DESTDIR$DATADIR/acceld/web" "$DESTDIR$DATADIR/acceld" 2>/dev/null || true
    # Completion folders this install created (rmdir keeps any in use).
    for dir in "$DATADIR/bash-completion/completions" "$DATADIR/bash-completion" "$ZSHDIR" "$DATADIR/zsh" \
               "$DATADIR/fish/vendor_completions.d" "$DATADIR/fish"; do
        rmdir "$DESTDIR$dir" 2>/dev/null || true
    done
    rm -f "$DESTDIR$CONFIG.new"
    if [ -e "$DESTDIR$CONFIG" ] && ! cmp -s Config/acceld.conf "$DESTDIR$CONFIG"; then
        say "kept $CONFIG: it differs from the default (delete it by hand if you are done with it)"
    else
        rm -f "$DESTDIR$CONFIG"
        rmdir "$DESTDIR$SYSCONFDIR/acceld" 2>/dev/null || true
    fi
    if live_system; then
        systemctl daemon-reload
        udevadm control --reload
        reload_dbus
    fi
    say "uninstalled from ${DESTDIR:-/} (PREFIX=$PREFIX); /var/lib/acceld (the calibration) is left alone"
}

case $action in
    install) install_files ;;
    uninstall) uninstall_files ;;
    *) echo "usage: scripts/install.sh install|uninstall (PREFIX, DESTDIR, SYSCONFDIR, STRIP=1 from the environment)" >&2; exit 2 ;;
esac
