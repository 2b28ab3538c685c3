#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Kernel in the loop: boots a real Debian kernel under QEMU (software
# emulation) with the kernel's i2c-stub adapter, and runs the project's own
# acceld and accelctl against /dev/i2c-0 (scripts/kernel/guest-checks.sh),
# then against the chip emulator (kernel/accel-emu, built here against that
# kernel's Debian headers; scripts/kernel/emulator-checks.sh).
# Installs what it needs from Debian's packages; keeps the kernel in the
# test cache (scripts/test-cache.sh). Prints the guest's checks and a summary line; fails if any
# check fails or the guest never reports. docs/TESTING.md explains it.
set -euo pipefail
cd "$(dirname "$0")/.."
# gpiod: libgpiod's tools for the INT-line checks; gcc and libc6-dev build
# their GPIO v2 client (scripts/kernel/gpio-watch.c).
source scripts/setup.sh qemu-system-x86 busybox-static i2c-tools cpio kmod xz-utils make gpiod gcc libc6-dev

source scripts/kernel/qemu-host.sh  # sets $cache, $kernel_dir and $modules
stage=kernel-test
source scripts/kernel/emulator.sh   # sets $emulator, or fails naming the headers package

echo "kernel-test: building acceld and accelctl (release, static Swift runtime)" >&2
./scripts/build-release.sh

# The initramfs: busybox, our binaries and i2c-tools with the libraries
# ldd names, the kernel's modules and the emulator, and an init that runs
# the checks.
root="$cache/initramfs"
rm -rf "$root" && mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,lib/modules}
cp /usr/bin/busybox "$root/bin/"
cp .build-static/release/acceld .build-static/release/accelctl "$root/usr/bin/"
cp /usr/sbin/i2cget /usr/sbin/i2cset /usr/sbin/i2cdump /usr/sbin/i2cdetect /usr/sbin/i2ctransfer "$root/usr/sbin/"
# The chip emulator's INT pins are GPIO lines (scripts/kernel/gpio-checks.sh):
# libgpiod's tools as Debian ships them, and gpio-watch, a GPIO v2 client.
cp /usr/bin/gpiodetect /usr/bin/gpioinfo /usr/bin/gpiofind /usr/bin/gpioget /usr/bin/gpioset /usr/bin/gpiomon "$root/usr/bin/"
gcc -O2 -Wall -o "$root/usr/bin/gpio-watch" scripts/kernel/gpio-watch.c
for binary in "$root"/usr/bin/* "$root"/usr/sbin/*; do
    for library in $(ldd "$binary" | grep -o '/[^ ]*'); do
        mkdir -p "$root$(dirname "$library")"
        cp -L "$library" "$root$library"
    done
done
# The kernel's own drivers, as peers: lis3lv02d for the LIS302DL, st_accel
# (IIO) for the LIS3DH, st_lsm6dsx for the LSM6DSO, in dependency order.
for module in i2c-dev i2c-smbus i2c-stub lis3lv02d lis3lv02d_i2c \
              industrialio kfifo_buf industrialio-triggered-buffer st_sensors st_accel st_sensors_i2c st_accel_i2c \
              st_lsm6dsx st_lsm6dsx_i2c; do
    cp "$(find "$modules" -name "$module.ko" | head -1)" "$root/lib/modules/"
done
cp "$emulator" "$root/lib/modules/"
cp scripts/kernel/guest-checks.sh scripts/kernel/guest-lib.sh scripts/kernel/emulator-lib.sh scripts/kernel/emulator-checks.sh scripts/kernel/iio-checks.sh scripts/kernel/lsm6dso-checks.sh scripts/kernel/gpio-checks.sh scripts/kernel/interrupt-checks.sh scripts/kernel/wake-checks.sh "$root/"
# ACCELD_KERNEL_ONLY: only these section files of guest-checks.sh (a
# development shortcut; CI runs them all).
: > "$root/only"
if [ -n "${ACCELD_KERNEL_ONLY:-}" ]; then
    printf '%s\n' $ACCELD_KERNEL_ONLY > "$root/only"
    for section in $ACCELD_KERNEL_ONLY; do cp "scripts/kernel/$section" "$root/"; done
fi
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
echo "GUEST-START"
sh /guest-checks.sh 2>&1
echo "GUEST-END"
poweroff -f
INIT
chmod +x "$root/init" "$root/guest-checks.sh"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null) > "$cache/initramfs.cpio"
size=$(( $(stat -c %s "$cache/initramfs.cpio") / 1048576 ))
memory=$(( size * 3 + 256 ))
echo "kernel-test: booting $(basename "$modules") with a ${size} MB initramfs in ${memory} MB (QEMU, TCG)" >&2

# QEMU exits 0 on poweroff whatever happened: the guest's markers decide.
# panic=-1 makes a dying guest reboot (and -no-reboot ends QEMU) at once.
log="$cache/console.log"
started=$(date +%s)
# Two vCPUs (multi-threaded TCG, a host thread each): acceld, its clients
# and the emulator's timer then do not queue on one, whose every stall the
# emulator counts as the chip's clock running late. The stage runs alone.
# 900 s: the guest takes about 7 minutes, and up to 10 when a starved
# host makes its timing checks run three times.
timeout 900 qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m "$memory" -nographic -no-reboot \
    -kernel "$kernel_dir/vmlinux" -initrd "$cache/initramfs.cpio" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3" > "$log" 2>&1 || true
echo "kernel-test: the guest ran for $(( $(date +%s) - started )) s" >&2

sed -n '/GUEST-START/,/GUEST-END/p' "$log" | tr -d '\r'
judge_guest kernel-test "$log" KERNEL-CHECKS
