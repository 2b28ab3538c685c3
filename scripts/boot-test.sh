#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The boot test: the acceld Debian packages installed and run under a real
# systemd. Builds a minimal Debian userland with debootstrap (kept in the
# test cache by release and package list, scripts/test-cache.sh), boots it
# under QEMU with the Debian kernel of the kernel-in-the-loop stage, and runs
# scripts/boot/boot-checks.sh as a oneshot unit that powers the guest off.
# Installs what it needs from Debian's packages; builds as the caller and
# does the rest as root (through sudo). Fails if a check fails or the guest
# never reports.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh qemu-system-x86 busybox-static cpio kmod xz-utils debootstrap e2fsprogs binutils gcc libc6-dev cyclonedds-dev \
    dpkg-dev debhelper dh-python python3-all python3-setuptools python3-wheel pybuild-plugin-pyproject bash-completion
started=$(date +%s)

# Build as the caller; debootstrap, mknod and reading the tree need root.
# ACCELD_BOOT_PACKAGES: the packages (paths, space-separated), else made here.
packages=${ACCELD_BOOT_PACKAGES:-}
if [ -z "$packages" ]; then
    ./scripts/build-release.sh
    packages=$(./scripts/build-deb.sh | tr '\n' ' ')
fi
# The previous release's package, for the upgrade checks (cached).
previous=${ACCELD_BOOT_PREVIOUS:-$(./scripts/previous-release.sh)}
if [ "$(id -u)" -ne 0 ]; then
    echo "boot-test: debootstrap and mkfs need root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_CACHE="${ACCELD_CACHE:-}" ACCELD_TEST_CACHE="${ACCELD_TEST_CACHE:-}" ACCELD_NO_CACHE_DIR="${ACCELD_NO_CACHE_DIR:-}" ACCELD_BOOT_PACKAGES="$packages" ACCELD_BOOT_PREVIOUS="$previous" "$0"
fi

source scripts/kernel/qemu-host.sh  # sets $cache, $kernel_dir and $modules
source scripts/boot/guest-image.sh
version=$(basename "$modules")

boot=.build-boot
mkdir -p "$boot"

# 1. The Debian userland (shared with the package test).
source scripts/debian-rootfs.sh

# 2. The system image: a copy of that tree with the kernel's modules for
# the checks, the test unit, and what only costs time under emulation
# masked. The image itself is never written (QEMU's snapshot=on).
tree=$boot/tree
rm -rf "$tree" && cp -a "$rootfs" "$tree"
for module in i2c-dev i2c_piix4 i2c-stub; do
    modprobe -d "$kernel_dir/root" -S "$version" --show-depends "$module" | awk '{ print $2 }' | while read -r path; do
        relative=${path#"$kernel_dir/root/"}
        install -D -m 0644 "$path" "$tree/usr/$relative"
    done
done
cp "$modules"/modules.order "$modules"/modules.builtin* "$tree/usr/lib/modules/$version/"
depmod -b "$tree/usr" "$version"
echo "blacklist i2c_piix4" > "$tree/etc/modprobe.d/boot-test.conf"
# man-db's trigger rebuilds its index on every install and removal: tens of
# seconds each under emulation, and man finds the pages without it.
rm -f "$tree/var/lib/man-db/auto-update"
guest_image "$tree" "$boot/system.img" acceld-boot-test ttyS0 boot-checks.sh

# 3. The payload, a tar on the second disk: the packages, the checks, and
# in src/ what make install reads (binaries stripped to save space).
payload=$boot/payload
rm -rf "$payload" && mkdir -p "$payload/src/.build-static/release" "$payload/src/scripts" "$payload/previous"
cp $packages scripts/boot/boot-checks.sh scripts/boot/package-checks.sh scripts/boot/ros2-checks.sh scripts/boot/reconnect-client.py \
    scripts/kernel/guest-lib.sh scripts/ros2/cyclonedds-loopback.xml "$payload/"
# The guest's DDS subscriber, on this bookworm's libddsc as the guest's.
gcc -Wall -Werror -O2 -I Sources/CROS2Types/include -o "$payload/imu-echo" scripts/ros2/imu-echo.c Sources/CROS2Types/ros2_types.c -lddsc
cp "$previous" "$payload/previous/"
cp -r systemd Config Web docs README.md CHANGELOG.md Examples "$payload/src/"
mkdir -p "$payload/src/clients/python"
cp -r clients/python/acceld clients/python/examples "$payload/src/clients/python/"
cp scripts/install.sh "$payload/src/scripts/"
for binary in acceld accelctl acceld-gateway acceld-sensorproxy acceld-ros2; do strip -o "$payload/src/.build-static/release/$binary" ".build-static/release/$binary"; done
# After the binaries: install.sh refuses man pages older than them.
cp -r .build-static/share "$payload/src/.build-static/"
tar -cf "$boot/payload.tar" -C "$payload" .

# 4. An initramfs that mounts the image and hands over to systemd.
guest_initramfs "$boot/initramfs" "$boot/initramfs.cpio" /usr/bin/busybox "$kernel_dir/root" "$version"
echo "boot-test: prepared in $(( $(date +%s) - started )) s; booting $version with systemd under QEMU (TCG)" >&2

# QEMU exits 0 on poweroff whatever happened: the guest's markers decide.
log=$boot/console.log
booted=$(date +%s)
timeout 1800 qemu-system-x86_64 -accel tcg -cpu max -m 768M -smp 2 -nographic -no-reboot -nic none \
    -kernel "$kernel_dir/vmlinux" -initrd "$boot/initramfs.cpio" \
    -drive file="$boot/system.img",if=virtio,format=raw,snapshot=on \
    -drive file="$boot/payload.tar",if=virtio,format=raw,readonly=on \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 systemd.show_status=error" > "$log" 2>&1 || true
echo "boot-test: the guest ran for $(( $(date +%s) - booted )) s; the stage took $(( $(date +%s) - started )) s" >&2

# The checks' lines, without the console's timestamps and process names.
tr -d '\r' < "$log" | sed -nE 's/^.*\[ *[0-9.]+\] [a-z]+\[[0-9]+\]: //p' | sed -n '/^systemd [0-9]/,/^BOOT-CHECKS/p'
judge_guest boot-test "$log" BOOT-CHECKS
