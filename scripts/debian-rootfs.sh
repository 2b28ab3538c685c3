# SPDX-License-Identifier: Apache-2.0
# Sourced (as root) by boot-test.sh and package-test.sh: a minimal Debian
# bookworm userland with what the acceld package needs and the checks use,
# made with debootstrap from the mirror apt already uses and cached in
# .build-boot/rootfs, keyed by release and package list. Sets $suite,
# $mirror and $rootfs.
# For another architecture (scripts/arm64/userland.sh) the caller sets
# $rootfs_arch, $rootfs_dir (the cache folder) and $rootfs_include: then
# mmdebstrap makes it, with apt resolving and downloading on this machine
# and only dpkg and the maintainer scripts running in the chroot, through
# qemu-user's binfmt_misc handler, which the caller has checked (debootstrap
# --foreign ran all of its second stage, apt's resolver and every dpkg call
# of its own, under emulation: minutes longer).
suite=bookworm
# dbus and iio-sensor-proxy (for monitor-sensor; its service is masked
# there): the boot test's checks of acceld-sensorproxy.
include=${rootfs_include:-systemd,systemd-sysv,udev,i2c-tools,kmod,python3,man-db,libmosquitto1,dbus,iio-sensor-proxy}
source scripts/debian-lib.sh  # sets $mirror
cached=${rootfs_dir:-.build-boot}
rootfs=$cached/rootfs
key="$suite${rootfs_arch:+ $rootfs_arch mmdebstrap} $include"
mkdir -p "$cached"
if [ "$(cat "$cached/rootfs.stamp" 2>/dev/null)" != "$key" ]; then
    tool=debootstrap; [ -z "${rootfs_arch:-}" ] || tool=mmdebstrap
    echo "debian-rootfs: $tool $suite${rootfs_arch:+ for $rootfs_arch} ($include) from $mirror" >&2
    rm -rf "$rootfs"
    if [ -z "${rootfs_arch:-}" ]; then
        debootstrap --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" > "$cached/debootstrap.log" 2>&1
    else
        # dpkg's force-unsafe-io (no fsync per file) while it is made only;
        # the machine-id that systemd's postinst wrote is kept, as
        # debootstrap keeps it (an empty one would make the guest's boot a
        # first boot). The caller has checked the binfmt_misc handler, so
        # mmdebstrap's own check (arch-test) is skipped.
        mmdebstrap --variant=minbase --architectures="$rootfs_arch" --include="$include" \
            --skip=check/qemu --skip=cleanup/reproducible \
            --setup-hook='mkdir -p "$1/etc/dpkg/dpkg.cfg.d" && echo force-unsafe-io > "$1/etc/dpkg/dpkg.cfg.d/zz-acceld-unsafe-io"' \
            --customize-hook='rm -f "$1/etc/dpkg/dpkg.cfg.d/zz-acceld-unsafe-io"' \
            "$suite" "$rootfs" "$mirror" > "$cached/debootstrap.log" 2>&1
    fi || { tail -20 "$cached/debootstrap.log" >&2; echo "debian-rootfs: $tool failed (whole log: $cached/debootstrap.log)" >&2; exit 1; }
    echo "$key" > "$cached/rootfs.stamp"
fi
