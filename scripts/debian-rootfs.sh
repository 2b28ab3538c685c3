# SPDX-License-Identifier: Apache-2.0
# Sourced (as root) by boot-test.sh and package-test.sh: a minimal Debian
# bookworm userland with what the acceld package needs and the checks use,
# made with debootstrap from the mirror apt already uses and kept in the
# test cache (scripts/test-cache.sh), keyed by release, architecture and
# package list. Sets $suite, $mirror and $rootfs.
# For another architecture (scripts/arm64/userland.sh) the caller sets
# $rootfs_arch and $rootfs_include: then
# mmdebstrap makes it, with apt resolving and downloading on this machine
# and only dpkg and the maintainer scripts running in the chroot, through
# qemu-user's binfmt_misc handler, which the caller has checked (debootstrap
# --foreign ran all of its second stage, apt's resolver and every dpkg call
# of its own, under emulation: minutes longer).
suite=bookworm
# dbus and iio-sensor-proxy (for monitor-sensor; its service is masked
# there): the boot test's checks of acceld-sensorproxy. gpiod: libgpiod's
# tools (gpioinfo, gpiomon), for the chip emulator's INT lines.
# libkissfft-float131: accelctl's spectra (AccelVibration, KissFFT).
# libddsc0debian: acceld-ros2's Cyclone DDS.
include=${rootfs_include:-systemd,systemd-sysv,udev,i2c-tools,kmod,python3,man-db,libmosquitto1,libkissfft-float131,dbus,iio-sensor-proxy,gpiod,libddsc0debian}
source scripts/debian-lib.sh  # sets $mirror
source scripts/test-cache.sh
# Keyed by what it is made of, and by the suite's release date as this
# machine's apt lists have it, so that a point release makes it anew.
release_date=$(sed -n 's/^Date: //p' /var/lib/apt/lists/*_dists_${suite}_InRelease 2>/dev/null | head -1)
tool=debootstrap; [ -z "${rootfs_arch:-}" ] || tool=mmdebstrap
cache_entry "rootfs-${rootfs_arch:-$(dpkg --print-architecture)}" "$tool" "$suite" "$mirror" "$include" "$release_date"
rootfs=$entry/rootfs
if ! cache_ready rootfs/usr/bin/dpkg rootfs/var/lib/dpkg/status; then
    cache_begin
    echo "debian-rootfs: $tool $suite${rootfs_arch:+ for $rootfs_arch} ($include) from $mirror" >&2
    made=$entry.partial/rootfs log=$entry.partial/debootstrap.log
    if [ -z "${rootfs_arch:-}" ]; then
        debootstrap --variant=minbase --include="$include" "$suite" "$made" "$mirror" > "$log" 2>&1
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
            "$suite" "$made" "$mirror" > "$log" 2>&1
    fi || { tail -20 "$log" >&2; echo "debian-rootfs: $tool failed (whole log: $log)" >&2; exit 1; }
    # The stamp's checksums: files a half-made tree would lack (dpkg's
    # status is written last); the callers copy the tree, never change it.
    cache_commit rootfs/usr/bin/dpkg rootfs/var/lib/dpkg/status
fi
