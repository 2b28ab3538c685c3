# SPDX-License-Identifier: Apache-2.0
# Sourced (as root) by boot-test.sh and package-test.sh: a minimal Debian
# bookworm userland with what the acceld package needs and the checks use,
# made with debootstrap from the mirror apt already uses and cached in
# .build-boot/rootfs, keyed by release and package list. Sets $suite,
# $mirror and $rootfs.
suite=bookworm
include=systemd,systemd-sysv,udev,i2c-tools,kmod,python3,man-db,libmosquitto1
mirror=$( (sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
           awk '$1 == "deb" { print $2 }' /etc/apt/sources.list 2>/dev/null) | grep -v security | head -1) || true
mirror=${mirror:-http://deb.debian.org/debian}
rootfs=.build-boot/rootfs
mkdir -p .build-boot
if [ "$(cat .build-boot/rootfs.stamp 2>/dev/null)" != "$suite $include" ]; then
    echo "debian-rootfs: debootstrap $suite ($include) from $mirror" >&2
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" > .build-boot/debootstrap.log 2>&1 \
        || { tail -20 .build-boot/debootstrap.log >&2; echo "debian-rootfs: debootstrap failed (whole log: .build-boot/debootstrap.log)" >&2; exit 1; }
    echo "$suite $include" > .build-boot/rootfs.stamp
fi
