#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the arm64 boot test boots, made before it needs it: the bookworm
# arm64 userland (scripts/debian-rootfs.sh, mmdebstrap through
# qemu-user-static's binfmt_misc handler) and Debian's arm64 kernel, its
# headers and busybox (scripts/boot/arm64-kernel.sh), kept in the test
# cache (scripts/test-cache.sh). scripts/arm64-test.sh runs this in the background,
# niced, while the cross-build runs (the emulated dpkg takes one core, the
# cross-build's compiler the rest); scripts/arm64-boot-test.sh runs it too,
# and so waits for a run in progress (a lock) or finds it all cached.
# Needs root (mmdebstrap, chroot, binfmt_misc): goes on through sudo.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh qemu-user-static binfmt-support mmdebstrap kmod
if [ "$(id -u)" -ne 0 ]; then
    echo "arm64-userland: mmdebstrap, chroot and binfmt_misc need root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_CACHE="${ACCELD_CACHE:-}" ACCELD_TEST_CACHE="${ACCELD_TEST_CACHE:-}" ACCELD_NO_CACHE_DIR="${ACCELD_NO_CACHE_DIR:-}" "$0"
fi
fail() { echo "arm64-userland: $*" >&2; exit 1; }

# 1. arm64 programs must run here (the userland's maintainer scripts, the
# busybox check): qemu-user-static's binfmt_misc handler, with the F flag,
# so that it works inside the chroot too.
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
    fail "cannot mount binfmt_misc: arm64 programs cannot run on this machine (a container without it?)"
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null ||
    fail "no active binfmt_misc handler for aarch64: install qemu-user-static and binfmt-support, then 'update-binfmts --enable qemu-aarch64'"
grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 ||
    fail "the aarch64 binfmt_misc handler lacks the F flag, so it cannot run in a chroot: use Debian's qemu-user-static (it registers with F)"

# One at a time: a second caller waits, then finds it cached.
boot=.build-arm64-boot
mkdir -p "$boot"
exec 8> "$boot/userland.lock"
flock 8
started=$(date +%s)

# 2. The arm64 Debian userland: what the package needs and the checks use,
# without man-db (its triggers cost minutes under emulation).
rootfs_arch=arm64 rootfs_include=systemd,systemd-sysv,udev,i2c-tools,kmod,python3,libmosquitto1,libi2c0,libkissfft-float131
source scripts/debian-rootfs.sh
chroot "$rootfs" /bin/true || fail "the arm64 userland's /bin/true does not run in a chroot: check the aarch64 binfmt_misc handler (F flag)"
userland=$(date +%s)

# 3. Debian's arm64 kernel, its headers and busybox.
source scripts/boot/arm64-kernel.sh
echo "arm64-userland: the userland in $(( userland - started )) s (in $rootfs), the kernel $version in $(( $(date +%s) - userland )) s (in $kdir)" >&2
