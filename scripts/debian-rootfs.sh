# SPDX-License-Identifier: Apache-2.0
# Sourced (as root) by boot-test.sh and package-test.sh: a minimal Debian
# bookworm userland with what the acceld package needs and the checks use,
# made with debootstrap from the mirror apt already uses and cached in
# .build-boot/rootfs, keyed by release and package list. Sets $suite,
# $mirror and $rootfs.
# For another architecture (arm64-boot-test.sh) the caller sets
# $rootfs_arch, $rootfs_dir (the cache folder) and $rootfs_include: then
# debootstrap runs --foreign and its second stage runs in a chroot, through
# qemu-user's binfmt_misc handler, which the caller has checked.
suite=bookworm
# dbus and iio-sensor-proxy (for monitor-sensor; its service is masked
# there): the boot test's checks of acceld-sensorproxy.
include=${rootfs_include:-systemd,systemd-sysv,udev,i2c-tools,kmod,python3,man-db,libmosquitto1,dbus,iio-sensor-proxy}
source scripts/debian-lib.sh  # sets $mirror
cached=${rootfs_dir:-.build-boot}
rootfs=$cached/rootfs
key="$suite${rootfs_arch:+ $rootfs_arch} $include"
mkdir -p "$cached"
if [ "$(cat "$cached/rootfs.stamp" 2>/dev/null)" != "$key" ]; then
    echo "debian-rootfs: debootstrap $suite${rootfs_arch:+ for $rootfs_arch} ($include) from $mirror" >&2
    rm -rf "$rootfs"
    if [ -z "${rootfs_arch:-}" ]; then
        debootstrap --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" > "$cached/debootstrap.log" 2>&1
    else
        debootstrap --variant=minbase --arch="$rootfs_arch" --foreign --include="$include" "$suite" "$rootfs" "$mirror" > "$cached/debootstrap.log" 2>&1 &&
            chroot "$rootfs" /debootstrap/debootstrap --second-stage >> "$cached/debootstrap.log" 2>&1
    fi || { tail -20 "$cached/debootstrap.log" >&2; echo "debian-rootfs: debootstrap failed (whole log: $cached/debootstrap.log)" >&2; exit 1; }
    echo "$key" > "$cached/rootfs.stamp"
fi
