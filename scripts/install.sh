#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make install / make uninstall (and the Debian package's file tree).
# Usage: scripts/install.sh install|uninstall
# Honours PREFIX (default /usr/local), DESTDIR, SYSCONFDIR (default /etc) and
# STRIP=1 (strip the binaries, as a package does). Installs the binaries
# built by `make` (scripts/build-release.sh); it never builds, so
# `sudo make install` does not leave root-owned build files behind.
#
# On a live system (no DESTDIR, run as root, systemd running) install also
# creates the acceld user (systemd-sysusers), applies the udev rule, loads
# i2c-dev and reloads systemd; it does not enable the service. uninstall
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
DOCDIR=$PREFIX/share/doc/acceld
CONFIG=$SYSCONFDIR/acceld/acceld.conf

# What install puts where (source, destination, mode); uninstall removes
# the same list. systemd, sysusers, udev and modules-load all read
# /usr/local/lib as well as /usr/lib, so PREFIX=/usr/local works too.
manifest() {
    echo ".build-static/release/acceld $BINDIR/acceld 0755"
    echo ".build-static/release/accelctl $BINDIR/accelctl 0755"
    echo "systemd/acceld.service $LIBDIR/systemd/system/acceld.service 0644"
    echo "systemd/acceld.socket $LIBDIR/systemd/system/acceld.socket 0644"
    echo "systemd/acceld-sysusers.conf $LIBDIR/sysusers.d/acceld.conf 0644"
    echo "systemd/udev/60-acceld-i2c.rules $LIBDIR/udev/rules.d/60-acceld-i2c.rules 0644"
    echo "systemd/acceld-modules.conf $LIBDIR/modules-load.d/acceld.conf 0644"
    for doc in README.md docs/*.md; do echo "$doc $DOCDIR/$(basename "$doc") 0644"; done
}

say() { echo "install.sh: $*" >&2; }
live_system() { [ -z "$DESTDIR" ] && [ "$(id -u)" -eq 0 ] && [ -d /run/systemd/system ]; }

install_files() {
    for binary in acceld accelctl; do
        [ -x ".build-static/release/$binary" ] || {
            say "no .build-static/release/$binary: run 'make' first (as yourself), then 'sudo make install'"
            exit 1
        }
    done
    manifest | while read -r source destination mode; do
        install -d "$DESTDIR$(dirname "$destination")"
        case $source in
            systemd/acceld.service)  # The unit names the installed paths.
                sed -e "s|/usr/bin/acceld|$BINDIR/acceld|g" -e "s|/etc/acceld/|$SYSCONFDIR/acceld/|g" \
                    -e "s|/usr/share/doc/acceld|$DOCDIR|g" "$source" > "$DESTDIR$destination"
                chmod "$mode" "$DESTDIR$destination" ;;
            .build-static/*)
                install -m "$mode" ${STRIP:+-s} "$source" "$DESTDIR$destination" ;;
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
        systemd-sysusers "$LIBDIR/sysusers.d/acceld.conf"
        systemctl daemon-reload
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
        systemctl disable --now acceld.socket acceld.service 2>/dev/null || true
    fi
    manifest | while read -r source destination mode; do
        rm -f "$DESTDIR$destination"
    done
    rmdir "$DESTDIR$DOCDIR" 2>/dev/null || true
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
    fi
    say "uninstalled from ${DESTDIR:-/} (PREFIX=$PREFIX); /var/lib/acceld (the calibration) is left alone"
}

case $action in
    install) install_files ;;
    uninstall) uninstall_files ;;
    *) echo "usage: scripts/install.sh install|uninstall (PREFIX, DESTDIR, SYSCONFDIR, STRIP=1 from the environment)" >&2; exit 2 ;;
esac
