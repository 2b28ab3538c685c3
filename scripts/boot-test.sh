#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The boot test: the acceld Debian package installed and run under a real
# systemd. Builds a minimal Debian userland with debootstrap (cached in
# .build-boot/ per release and package list), boots it under QEMU with the
# Debian kernel of the kernel-in-the-loop stage, and runs
# scripts/boot/boot-checks.sh as a oneshot unit that powers the guest off.
# Installs what it needs from Debian's packages; builds as the caller and
# does the rest as root (through sudo). Fails if a check fails or the guest
# never reports.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh qemu-system-x86 busybox-static cpio kmod xz-utils debootstrap e2fsprogs binutils
started=$(date +%s)

# Build as the caller; debootstrap, mknod and reading the tree need root.
package=${ACCELD_BOOT_PACKAGE:-}
if [ -z "$package" ]; then
    ./scripts/build-release.sh
    package=$(./scripts/package-deb.sh)
fi
# The previous release's package, for the upgrade checks (cached).
previous=${ACCELD_BOOT_PREVIOUS:-$(./scripts/previous-release.sh)}
if [ "$(id -u)" -ne 0 ]; then
    echo "boot-test: debootstrap and mkfs need root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_BOOT_PACKAGE="$package" ACCELD_BOOT_PREVIOUS="$previous" "$0"
fi

source scripts/kernel/qemu-host.sh  # sets $cache, $cache/vmlinux and $modules
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
    modprobe -d "$cache/root" -S "$version" --show-depends "$module" | awk '{ print $2 }' | while read -r path; do
        relative=${path#"$PWD/$cache/root/"}
        install -D -m 0644 "$path" "$tree/usr/$relative"
    done
done
cp "$modules"/modules.order "$modules"/modules.builtin* "$tree/usr/lib/modules/$version/"
depmod -b "$tree/usr" "$version"
echo "blacklist i2c_piix4" > "$tree/etc/modprobe.d/boot-test.conf"
# man-db's trigger rebuilds its index on every install and removal: tens of
# seconds each under emulation, and man finds the pages without it.
rm -f "$tree/var/lib/man-db/auto-update"
# Nor does apt need the mirror's package lists: the guest has no network,
# every dependency is installed, and parsing 50 MB of lists took apt half a
# minute per run under emulation.
find "$tree/var/lib/apt/lists" -maxdepth 1 -type f -delete
rm -f "$tree"/var/cache/apt/*.bin
echo acceld-boot-test > "$tree/etc/hostname"
echo "/dev/vda / ext4 rw 0 1" > "$tree/etc/fstab"
for unit in getty@tty1.service serial-getty@ttyS0.service apt-daily.timer apt-daily-upgrade.timer \
            dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer \
            systemd-pstore.service systemd-journal-flush.service systemd-update-utmp.service \
            proc-sys-fs-binfmt_misc.automount; do
    ln -sf /dev/null "$tree/etc/systemd/system/$unit"
done
cat > "$tree/etc/systemd/system/acceld-boot-test.service" <<'UNIT'
[Unit]
Description=acceld boot test
After=multi-user.target
# In [Unit]: systemd ignores them in [Service], and the guest never stops.
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStartPre=/bin/sh -c 'mkdir -p /payload && tar -xf /dev/vdb -C /payload'
ExecStart=/bin/bash /payload/boot-checks.sh
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=15min

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/acceld-boot-test.service "$tree/etc/systemd/system/multi-user.target.wants/"
mkfs.ext4 -q -F -L root -d "$tree" "$boot/system.img" 2G

# 3. The payload, a tar on the second disk: the package, the checks, and
# in src/ what make install reads (binaries stripped to save space).
payload=$boot/payload
rm -rf "$payload" && mkdir -p "$payload/src/.build-static/release" "$payload/src/scripts" "$payload/previous"
cp "$package" scripts/boot/boot-checks.sh scripts/kernel/guest-lib.sh "$payload/"
cp "$previous" "$payload/previous/"
cp -r systemd Config Web docs README.md CHANGELOG.md Examples "$payload/src/"
mkdir -p "$payload/src/clients/python"
cp -r clients/python/acceld clients/python/examples "$payload/src/clients/python/"
cp scripts/install.sh "$payload/src/scripts/"
for binary in acceld accelctl acceld-gateway; do strip -o "$payload/src/.build-static/release/$binary" ".build-static/release/$binary"; done
# After the binaries: install.sh refuses man pages older than them.
cp -r .build-static/share "$payload/src/.build-static/"
tar -cf "$boot/payload.tar" -C "$payload" .

# 4. An initramfs that mounts the image and hands over to systemd.
initramfs=$boot/initramfs
rm -rf "$initramfs" && mkdir -p "$initramfs"/{bin,dev,proc,sys,newroot,modules}
cp /usr/bin/busybox "$initramfs/bin/"
mknod -m 600 "$initramfs/dev/console" c 5 1
for module in virtio_pci virtio_blk crc32c_generic ext4; do
    modprobe -d "$cache/root" -S "$version" --show-depends "$module" | awk '{ print $2 }'
done | awk '!seen[$0]++' | while read -r path; do
    cp "$path" "$initramfs/modules/"
    basename "$path" >> "$initramfs/modules/order"
done
cat > "$initramfs/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for module in $(cat /modules/order); do insmod /modules/$module; done
for i in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t ext4 -o rw /dev/vda /newroot || { echo "BOOT-INIT: cannot mount /dev/vda"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
INIT
chmod +x "$initramfs/init"
(cd "$initramfs" && find . | cpio -o -H newc 2>/dev/null) > "$boot/initramfs.cpio"
echo "boot-test: prepared in $(( $(date +%s) - started )) s; booting $version with systemd under QEMU (TCG)" >&2

# QEMU exits 0 on poweroff whatever happened: the guest's markers decide.
log=$boot/console.log
booted=$(date +%s)
timeout 1200 qemu-system-x86_64 -accel tcg -cpu max -m 768M -smp 2 -nographic -no-reboot -nic none \
    -kernel "$cache/vmlinux" -initrd "$boot/initramfs.cpio" \
    -drive file="$boot/system.img",if=virtio,format=raw,snapshot=on \
    -drive file="$boot/payload.tar",if=virtio,format=raw,readonly=on \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 systemd.show_status=error" > "$log" 2>&1 || true
echo "boot-test: the guest ran for $(( $(date +%s) - booted )) s; the stage took $(( $(date +%s) - started )) s" >&2

# The checks' lines, without the console's timestamps and process names.
tr -d '\r' < "$log" | sed -nE 's/^.*\[ *[0-9.]+\] [a-z]+\[[0-9]+\]: //p' | sed -n '/^systemd [0-9]/,/^BOOT-CHECKS/p'
judge_guest boot-test "$log" BOOT-CHECKS
