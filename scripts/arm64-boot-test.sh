#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 boot test: the acceld arm64 Debian package (and the Python
# client's) installed with apt
# and run under the real systemd on an emulated arm64 board (QEMU's virt
# machine, Cortex-A53, TCG), against the chip emulator (kernel/accel-emu)
# cross-built for Debian's arm64 kernel. Builds a bookworm arm64 userland
# with mmdebstrap and qemu-user-static and fetches the kernel
# (scripts/arm64/userland.sh; kept in the test cache, scripts/test-cache.sh,
# by release, package list and kernel version), boots, and runs
# scripts/boot/arm64-checks.sh as a oneshot unit that powers the guest off.
# The packages: ACCELD_ARM64_PACKAGES (the set's .debs, space-separated) and
# ACCELD_ARM64_PREVIOUS (a .deb), else built with ARCH=arm64 build-deb.sh
# and previous-release.sh;
# ACCELD_ARM64_FOREIGN, an amd64 package the guest's dpkg must refuse (else
# the previous release's, from previous-release.sh).
# ACCELD_ARM64_BENCH=1 runs scripts/boot/arm64-bench.sh in the same guest
# instead (accel-bench from ACCELD_ARM64_BENCH_BIN). Builds as the caller
# and does the rest as root (through sudo). Fails if a check fails or the
# guest never reports.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh qemu-system-arm qemu-user-static binfmt-support gcc-aarch64-linux-gnu make \
    cpio kmod mmdebstrap e2fsprogs binutils binutils-aarch64-linux-gnu dpkg-dev debhelper dh-python python3-all python3-setuptools python3-wheel pybuild-plugin-pyproject bash-completion
started=$(date +%s)
bench=${ACCELD_ARM64_BENCH:-}

# Build as the caller; debootstrap, chroot, mknod and binfmt_misc need root.
packages=${ACCELD_ARM64_PACKAGES:-}
[ -n "$packages" ] || packages=$(ARCH=arm64 ./scripts/build-deb.sh | tr '\n' ' ')
previous=${ACCELD_ARM64_PREVIOUS:-}
[ -n "$bench" ] || [ -n "$previous" ] || previous=$(ARCH=arm64 ./scripts/previous-release.sh)
foreign=${ACCELD_ARM64_FOREIGN:-$(ARCH= ./scripts/previous-release.sh)}
bench_bin=${ACCELD_ARM64_BENCH_BIN:-$(ls .build-arm64/release/accel-bench .build-arm64/*/release/accel-bench .build-arm64/*/*/release/accel-bench 2>/dev/null | head -1 || true)}
for deb in $packages ${previous:+"$previous"}; do
    [ -s "$deb" ] || { echo "arm64-boot-test: no package at '$deb': build them with ARCH=arm64 ./scripts/build-deb.sh, or set ACCELD_ARM64_PACKAGES / ACCELD_ARM64_PREVIOUS" >&2; exit 1; }
    case $(dpkg-deb -f "$deb" Architecture) in
        arm64|all) ;;
        *) echo "arm64-boot-test: $deb is a $(dpkg-deb -f "$deb" Architecture) package, not arm64" >&2; exit 1 ;;
    esac
done
echo "$packages" | grep -qE '(^| |/)acceld_[^ /]*_arm64\.deb( |$)' || { echo "arm64-boot-test: no acceld_*_arm64.deb among the packages: $packages" >&2; exit 1; }
if [ -n "$bench" ] && [ ! -x "$bench_bin" ]; then
    echo "arm64-boot-test: the bench needs the arm64 accel-bench: cross-build it (scripts/cross-arm64.sh) or set ACCELD_ARM64_BENCH_BIN" >&2; exit 1
fi
# phase NAME WHAT: prints how long since the last phase, and keeps it for
# the summary.
phase() {
    local seconds=$(( $(date +%s) - mark ))
    echo "arm64-boot-test: $1 in $seconds s${2:+ ($2)}" >&2
    phases="${phases:-}${phases:+, }$1 $seconds s"; mark=$(date +%s)
}
mark=$started
[ -n "${ACCELD_ARM64_PACKAGES:-}" ] && [ -n "${ACCELD_ARM64_PREVIOUS:-}${bench}" ] || phase packages
if [ "$(id -u)" -ne 0 ]; then
    echo "arm64-boot-test: debootstrap, chroot and mkfs need root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_CACHE="${ACCELD_CACHE:-}" ACCELD_TEST_CACHE="${ACCELD_TEST_CACHE:-}" ACCELD_NO_CACHE_DIR="${ACCELD_NO_CACHE_DIR:-}" ACCELD_ARM64_PACKAGES="$(realpath $packages | tr '\n' ' ')" ACCELD_ARM64_PREVIOUS="${previous:+$(realpath "$previous")}" \
        ACCELD_ARM64_FOREIGN="$(realpath "$foreign")" \
        ACCELD_ARM64_BENCH="$bench" ACCELD_ARM64_BENCH_BIN="${bench_bin:+$(realpath "$bench_bin")}" \
        ACCELD_ARM64_BENCH_PIPELINE="${ACCELD_ARM64_BENCH_PIPELINE:-}" ACCELD_ARM64_BENCH_SECONDS="${ACCELD_ARM64_BENCH_SECONDS:-}" "$0"
fi
# 1-3. The bookworm arm64 userland (mmdebstrap through qemu-user's
# binfmt_misc handler, which it checks) and Debian's arm64 kernel, its
# headers and busybox: scripts/arm64/userland.sh, which arm64-test.sh has
# usually run already, in the background during the cross-build (then this
# finds them cached, or waits for that run to end).
./scripts/arm64/userland.sh
boot=.build-arm64-boot
rootfs_arch=arm64 rootfs_include=systemd,systemd-sysv,udev,i2c-tools,kmod,python3,libmosquitto1,libi2c0,libkissfft-float131
source scripts/debian-rootfs.sh
phase "userland" "arm64, cached in $rootfs"
source scripts/boot/arm64-kernel.sh
source scripts/boot/guest-image.sh
phase "kernel fetch" "$version, cached in $kdir"

# 4. The chip emulator, cross-built in a copy against those headers, its
# vermagic checked as emulator.sh does. The headers' Makefile includes the
# -common one by its absolute /usr/src path: point it at the unpacked copy.
sed -i -E "s|^include .*/(linux-headers-[^/]*-common/Makefile)$|include ${headers%/*}/\1|" "$headers/Makefile"
build=$boot/accel-emu
rm -rf "$build" && mkdir -p "$build"
cp kernel/accel-emu/*.c kernel/accel-emu/*.h kernel/accel-emu/Kbuild kernel/accel-emu/Makefile "$build/"
if ! output=$(make -C "$headers" M="$(cd "$build" && pwd)" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules 2>&1); then
    echo "$output" | grep -vE '^make(\[[0-9]+\])?: (Entering|Leaving)' >&2
    echo "arm64-boot-test: the chip emulator did not build against linux-headers-$version=$kernel_version with aarch64-linux-gnu-gcc (output above)" >&2; exit 1
fi
echo "$output" | grep -iE 'warning|error' >&2 || true
emulator=$build/accel_emu.ko
case $(modinfo -F vermagic "$emulator") in
    "$version "*aarch64*) ;;
    *) echo "arm64-boot-test: the chip emulator was built for '$(modinfo -F vermagic "$emulator")', not $version (aarch64)" >&2; exit 1 ;;
esac
phase "emulator build" "accel_emu for $version"

# 5. The system image: a copy of the userland with the modules the checks
# load (i2c-dev, the emulator and what it needs), the test unit, and what
# only costs time under emulation masked. QEMU's snapshot=on keeps the image unwritten.
tree=$boot/tree
rm -rf "$tree" && cp -a "$rootfs" "$tree"
modules=$kroot/lib/modules/$version
for module in i2c-dev $(modinfo -F depends "$emulator" | tr , ' '); do
    modprobe -d "$kroot" -S "$version" --show-depends "$module" | awk '{ print $2 }'
done | while read -r path; do
    install -D -m 0644 "$path" "$tree/usr/lib/${path#"$kroot/lib/"}"
done
install -D -m 0644 "$emulator" "$tree/usr/lib/modules/$version/extra/accel_emu.ko"
cp "$modules"/modules.order "$modules"/modules.builtin* "$tree/usr/lib/modules/$version/"
depmod -b "$tree/usr" "$version"
guest_script=arm64-checks.sh marker=BOOT-CHECKS
[ -z "$bench" ] || guest_script=arm64-bench.sh marker=BENCH-CHECKS
guest_image "$tree" "$boot/system.img" acceld-arm64-boot-test ttyAMA0 "$guest_script"

# 6. The payload, a tar on the second disk.
payload=$boot/payload
rm -rf "$payload" && mkdir -p "$payload/previous"
# Of the packages, those the guest installs: the gateway's and the proxy's
# would only lengthen the payload (the amd64 boot test installs them).
for deb in $packages; do
    case $(basename "$deb") in acceld_*|python3-acceld_*) cp "$deb" "$payload/" ;; esac
done
cp scripts/boot/arm64-checks.sh scripts/boot/arm64-bench.sh scripts/boot/arm64-lib.sh scripts/boot/package-checks.sh \
    scripts/boot/reconnect-client.py scripts/kernel/guest-lib.sh "$payload/"
[ -z "$previous" ] || cp "$previous" "$payload/previous/"
# An amd64 package, which dpkg must refuse here: the previous release's,
# the smaller one (cached by previous-release.sh).
mkdir -p "$payload/foreign"
cp "$foreign" "$payload/foreign/"
if [ -n "$bench" ]; then
    aarch64-linux-gnu-strip -o "$payload/accel-bench" "$bench_bin"  # 94 MB with its debug info
    printf 'BENCH_PIPELINE_ARGS="%s"\nBENCH_LOAD_SECONDS=%s\n' "${ACCELD_ARM64_BENCH_PIPELINE:-}" "${ACCELD_ARM64_BENCH_SECONDS:-30}" > "$payload/bench.env"
fi
tar -cf "$boot/payload.tar" -C "$payload" .

# 7. An initramfs that loads virtio and ext4, mounts the image and hands
# over to systemd.
guest_initramfs "$boot/initramfs" "$boot/initramfs.cpio" "$busybox" "$kroot" "$version"
phase image "the system image, the payload, the initramfs"
prepared=$(( $(date +%s) - started ))
echo "arm64-boot-test: prepared in $prepared s; booting $version with systemd under qemu-system-aarch64 (virt, cortex-a53, TCG)${bench:+ for the bench}" >&2

# QEMU exits 0 on poweroff whatever happened: the guest's markers decide.
log=$boot/console.log
booted=$(date +%s)
timeout 1800 qemu-system-aarch64 -M virt -cpu cortex-a53 -smp 2 -m 1024M -accel tcg -nographic -no-reboot -nic none \
    -kernel "$kernel" -initrd "$boot/initramfs.cpio" \
    -drive file="$boot/system.img",if=virtio,format=raw,snapshot=on \
    -drive file="$boot/payload.tar",if=virtio,format=raw,readonly=on \
    -append "console=ttyAMA0 panic=-1 quiet loglevel=3 systemd.show_status=error" > "$log" 2>&1 || true
ran=$(( $(date +%s) - booted ))

# The guest's lines, without the console's timestamps and process names.
tr -d '\r' < "$log" | sed -nE 's/^.*\[ *[0-9.]+\] [a-z0-9.-]+\[[0-9]+\]: //p' | sed -n "/^systemd [0-9]/,/^$marker/p"
# The guest's own split: its uptime when its script began, and the script's time.
split=$(tr -d '\r' < "$log" | grep -oE 'GUEST-TIME: booted in [0-9]+ s, the checks ran [0-9]+ s' | sed 's/GUEST-TIME: //' || true)
echo "arm64-boot-test: prepared in $prepared s ($phases), the guest ran $ran s (${split:-its times never reported}), the stage took $(( $(date +%s) - started )) s (console: $log)" >&2
source scripts/kernel/judge-guest.sh
judge_guest arm64-boot-test "$log" "$marker"
