#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make arm64: acceld, accelctl, acceld-gateway, acceld-sensorproxy, acceld-ros2 and the examples (and any
# products named as arguments) for aarch64, release, with the Swift
# runtime linked in, built on this x86-64 machine with Debian's own Swift.
#
# Debian's swiftlang (sid) is a Swift whose aarch64 runtime is in the same
# archive at the same version; the machine's Swift has none. swiftlang
# needs a newer glibc than bookworm's, so it runs in a small sid chroot.
# The target is a sysroot of bookworm arm64 packages (what Raspberry Pi OS
# bookworm has) plus sid's aarch64 Swift runtime, described to SwiftPM as
# a Swift SDK bundle. docs/INSTALL.md explains the choices.
#
# The chroot, the packages, the sysroot and the build folder are kept in
# the test cache (scripts/test-cache.sh): the first run takes minutes, the
# next only what changed. Output:
# .build-arm64/release/{acceld,accelctl,acceld-gateway,acceld-sensorproxy,...}.
# Env: ACCELD_ARM64_SOURCE, another source tree to build (the previous
# release's, for the upgrade checks), and ACCELD_ARM64_PRODUCTS, the
# products to build there; they land in that tree's .build-arm64/release.
set -euo pipefail
cd "$(dirname "$0")/.."
extra=("$@")  # more products to build the same way (the benchmark: accel-bench)
read -r -a products <<< "${ACCELD_ARM64_PRODUCTS:-acceld accelctl acceld-gateway acceld-sensorproxy acceld-ros2 FirstTenLines BubbleLevel ShakeToRing TiltToScroll DataLogger AutoRotation}"
products+=("${extra[@]}")
set --        # setup.sh takes extra packages from the arguments
source scripts/setup.sh mmdebstrap qemu-user-static binutils-aarch64-linux-gnu
started=$(date +%s)
fail() { echo "cross-arm64: $*" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
    echo "cross-arm64: the build runs in a chroot, which needs root: going on through sudo" >&2
    exec sudo env PATH="$PATH" ACCELD_CACHE="${ACCELD_CACHE:-}" ACCELD_TEST_CACHE="${ACCELD_TEST_CACHE:-}" ACCELD_NO_CACHE_DIR="${ACCELD_NO_CACHE_DIR:-}" ACCELD_ARM64_SOURCE="${ACCELD_ARM64_SOURCE:-}" ACCELD_ARM64_PRODUCTS="${ACCELD_ARM64_PRODUCTS:-}" "$0" "${extra[@]}"
fi

# The chroot, the sysroot and the private apt live in the test cache
# (scripts/test-cache.sh), each with a stamp of what it was made from,
# written last: a run killed mid-way leaves no stamp, and it is made again.
source scripts/test-cache.sh
cache=$ACCELD_CACHE/arm64-cross
source_tree=$(cd "${ACCELD_ARM64_SOURCE:-.}" && pwd)
source scripts/debian-lib.sh  # sets $mirror
mkdir -p "$cache"
source scripts/arm64/fetch-debs.sh
# One cross-build at a time: they share the chroot and its mounts.
exec 9> "$cache/lock"
flock 9
# What is mounted in the chroot (the source tree among it) comes off before
# anything there is removed or mounted again, also after a run was killed.
chroot=$cache/sid
unmount_chroot() {
    awk -v root="$chroot/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r | while read -r target; do
        umount -l "$target"
    done
}
unmount_chroot
trap unmount_chroot EXIT
trap 'exit 130' INT TERM  # so that the EXIT trap runs on those too

# 1. The compiler: Debian sid's swiftlang (with its own clang and lld; the
# manifest is compiled for the host, so with libc6-dev) in a chroot.
# mmdebstrap rather than debootstrap: apt resolves and downloads (in
# parallel), and dpkg installs what is left in one go, without an fsync per
# file (force-unsafe-io: a build chroot, thrown away whole). It runs in the
# background while step 2 makes the sysroot, for the compiler's version as
# sid's amd64 index says it; the chroot's is checked against it after.
include=swiftlang,libc6-dev,git,pkgconf
chroot_pid=""
trap '[ -z "$chroot_pid" ] || kill "$chroot_pid" 2>/dev/null || true; unmount_chroot' EXIT
if [ "$(cat "$cache/sid.stamp" 2>/dev/null)" != "mmdebstrap $include" ]; then
    echo "cross-arm64: mmdebstrap sid with $include from $mirror (once; about a minute)" >&2
    rm -rf "$chroot" "$cache/sid.stamp"
    mmdebstrap --variant=minbase --include="$include" --dpkgopt=force-unsafe-io \
        --aptopt='Acquire::Check-Valid-Until "false"' sid "$chroot" "$mirror" > "$cache/debootstrap.log" 2>&1 < /dev/null &
    chroot_pid=$!
    update_lists sid amd64
    swift_version=$(deb_version sid amd64 swiftlang)
    [ -n "$swift_version" ] || fail "Debian sid has no swiftlang for amd64 (at $mirror)"
else
    swift_version=$(chroot "$chroot" dpkg-query -W -f='${Version}' swiftlang)
    echo "test-cache: the sid chroot with Debian's Swift $swift_version from the cache ($chroot)" >&2
fi

# 2. The target: bookworm's arm64 C libraries, and the aarch64 Swift
# runtime of exactly the compiler's version.
# libsystemd-dev for acceld-sensorproxy's sd-bus, with the libraries
# libsystemd.so.0 needs (lld checks a shared library's own references).
sysroot_packages="libc6 libc6-dev libgcc-12-dev libgcc-s1 libstdc++-12-dev libstdc++6 libi2c0 libi2c-dev linux-libc-dev libmosquitto1 libmosquitto-dev libkissfft-float131 libkissfft-dev"
sysroot_packages+=" libsystemd0 libsystemd-dev libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1"
# cyclonedds-dev for acceld-ros2's Cyclone DDS, with what libddsc.so.0 needs.
sysroot_packages+=" libddsc0debian cyclonedds-dev libssl3 libiceoryx-binding-c2 libiceoryx-posh2 libiceoryx-hoofs2 libiceoryx-platform2 libacl1"
bundle=$cache/sdks/acceld-arm64.artifactbundle
sysroot=$bundle/sdk/sysroot
if [ "$(cat "$cache/sysroot.stamp" 2>/dev/null)" != "$swift_version $sysroot_packages" ]; then
    update_lists sid arm64
    runtime_version=$(deb_version sid arm64 swiftlang)
    [ "$runtime_version" = "$swift_version" ] ||
        fail "sid's swiftlang is $swift_version for amd64 but ${runtime_version:-missing} for arm64 (the archive is mid-update): try again later, or remove $chroot to take the newest compiler"
    echo "cross-arm64: a sysroot of bookworm arm64 ($sysroot_packages) and sid's aarch64 Swift runtime $swift_version" >&2
    rm -rf "$cache/debs" "$bundle" && mkdir -p "$sysroot"
    fetch_debs bookworm arm64 "$cache/debs/bookworm" $sysroot_packages
    fetch_debs sid arm64 "$cache/debs/sid" swiftlang
    for deb in "$cache"/debs/bookworm/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    # Only the runtime and clang's own headers: the toolchain's binaries in
    # the package are for an arm64 host, and its compiler plug-ins are not
    # needed to link.
    dpkg-deb --fsys-tarfile "$cache"/debs/sid/swiftlang_*.deb | tar -x -C "$sysroot" --wildcards \
        './usr/libexec/swift/lib/swift/*' './usr/libexec/swift/lib/swift_static/*' './usr/libexec/swift/lib/clang/*' \
        --exclude='./usr/libexec/swift/lib/swift/host/*' --exclude='./usr/libexec/swift/lib/swift/embedded/*'
    # clang looks for the runtime in usr/lib/swift{,_static}; Debian keeps it
    # under usr/libexec.
    ln -s ../libexec/swift/lib/swift "$sysroot/usr/lib/swift"
    ln -s ../libexec/swift/lib/swift_static "$sysroot/usr/lib/swift_static"
    # Absolute links (libm.so -> /lib/...) point out of the sysroot, and lld
    # then quietly takes libm.a instead: make every one relative.
    find "$sysroot" -type l -lname '/*' | while read -r link; do
        ln -sfr "$sysroot$(readlink "$link")" "$link"
    done
    scripts/arm64/sdk-bundle.sh "$bundle"
    echo "$swift_version $sysroot_packages" > "$cache/sysroot.stamp"
else
    echo "test-cache: the arm64 sysroot from the cache ($sysroot)" >&2
fi
if [ -n "$chroot_pid" ]; then
    status=0
    wait "$chroot_pid" || status=$?
    chroot_pid=""
    [ "$status" -eq 0 ] || {
        tail -15 "$cache/debootstrap.log" >&2
        fail "mmdebstrap of Debian sid failed (whole log: $cache/debootstrap.log): is $mirror reachable, and does sid still have swiftlang?"; }
    installed=$(chroot "$chroot" dpkg-query -W -f='${Version}' swiftlang)
    [ "$installed" = "$swift_version" ] ||
        fail "the chroot's swiftlang is $installed, sid's index said $swift_version (the archive changed meanwhile): try again"
    echo "mmdebstrap $include" > "$cache/sid.stamp"
fi

# 3. The build, in the chroot: the source tree at /src, the machine's
# package mirror read-only at its own path with git's redirects to it.
mount_in() {  # SOURCE TARGET [OPTIONS]
    mkdir -p "$chroot$2"
    mount --bind "$1" "$chroot$2"
    [ -z "${3:-}" ] || mount -o remount,bind,"$3" "$chroot$2"
}
mount_in /proc /proc
mount_in /dev /dev
mount_in "$source_tree" /src
mount_in "$cache" /cross
for mirror_dir in $(git config --system --get-regexp '^url\..*\.insteadof$' | sed -E 's/^url\.(.*)\.insteadof .*/\1/' | sort -u); do
    [ -d "$mirror_dir" ] && mount_in "$mirror_dir" "$mirror_dir" ro
done
{ git config --system --get-regexp '^url\.' | while read -r key value; do echo "$key $value"; done; } > "$cache/gitconfig.redirects"
chroot "$chroot" sh -c 'rm -f /etc/gitconfig; while read -r key value; do git config --system --add "$key" "$value"; done; git config --system safe.directory "*"' \
    < "$cache/gitconfig.redirects"

# The static runtime of sid was built against glibc 2.42; bookworm has
# 2.36. packaging/arm64/glibc-compat.c supplies the few newer symbols it
# calls, and compiles to nothing on a newer glibc. (This tree's file, also
# when building another tree.)
sysroot_in_chroot=/cross/sdks/acceld-arm64.artifactbundle/sdk/sysroot
cp packaging/arm64/glibc-compat.c "$cache/"
chroot "$chroot" /usr/libexec/swift/bin/clang --target=aarch64-unknown-linux-gnu --sysroot="$sysroot_in_chroot" \
    -O2 -fPIC -Wall -Werror -c /cross/glibc-compat.c -o /cross/glibc-compat.o || fail "packaging/arm64/glibc-compat.c did not compile (above)"

# This tree's build is kept in the cache too, per compiler and sysroot: in
# the chroot the sources are always at /src, so SwiftPM finds the
# dependencies it built for another clone unchanged and rebuilds only what
# did change. Another tree (the previous release) builds in its own.
mkdir -p "$source_tree/.build-arm64"
if [ -z "${ACCELD_ARM64_SOURCE:-}" ]; then
    build_key=build-$(echo "$swift_version $sysroot_packages" | sha256sum | cut -c1-12)
    for old in "$cache"/build-*; do [ ! -d "$old" ] || [ "$old" = "$cache/$build_key" ] || rm -rf "$old"; done
    [ ! -d "$cache/$build_key" ] || echo "test-cache: the arm64 build folder from the cache ($cache/$build_key; SwiftPM rebuilds what changed)" >&2
    scratch=/cross/$build_key built_at=$cache/$build_key
else
    scratch=/src/.build-arm64/build built_at=build
fi
for product in "${products[@]}"; do
    set +e
    chroot "$chroot" env HOME=/root PKG_CONFIG_SYSROOT_DIR="$sysroot_in_chroot" \
        PKG_CONFIG_PATH="$sysroot_in_chroot/usr/lib/aarch64-linux-gnu/pkgconfig" sh -c 'cd /src && exec swift build -c release --static-swift-stdlib \
        --swift-sdks-path /cross/sdks --swift-sdk aarch64-unknown-linux-gnu --scratch-path "$1" \
        -Xlinker /cross/glibc-compat.o --product "$2"' sh "$scratch" "$product" 2>&1 \
        | grep -E "error|warning: |complete" | grep -v "use of .mktemp" >&2
    status=${PIPESTATUS[0]}
    set -e
    [ "$status" -eq 0 ] || fail "building $product for aarch64 failed (exit $status; the compiler's errors are above)"
done
ln -sfn "$built_at/aarch64-unknown-linux-gnu/release" "$source_tree/.build-arm64/release"
# The library packages of the sysroot whole (files, and DEBIAN/ with their
# symbols and shlibs files, which dpkg-deb -x leaves out), for
# dpkg-shlibdeps when make deb ARCH=arm64 computes Depends on this machine
# (scripts/build-deb.sh): the very packages the binaries were linked against.
shlibs=$source_tree/.build-arm64/shlibs
if [ "$(cat "$shlibs/.stamp" 2>/dev/null)" != "$(cat "$cache/sysroot.stamp")" ]; then
    rm -rf "$shlibs" && mkdir -p "$shlibs"
    for deb in "$cache"/debs/bookworm/*.deb; do
        dpkg-deb -I "$deb" symbols >/dev/null 2>&1 || dpkg-deb -I "$deb" shlibs >/dev/null 2>&1 || continue
        dpkg-deb -R "$deb" "$shlibs/$(dpkg-deb -f "$deb" Package)"
    done
    cp "$cache/sysroot.stamp" "$shlibs/.stamp"
fi
binary=$source_tree/.build-arm64/release/acceld
file=$(aarch64-linux-gnu-readelf -h "$binary" | sed -n 's/^ *Machine: *//p')
[ "$file" = AArch64 ] || fail "$binary is for '$file', not AArch64"
# The binary starts on an ARM CPU (user-mode emulation of a Pi 3's core).
version=$(qemu-aarch64-static -cpu cortex-a53 -L "$sysroot" "$binary" --version 2>&1) ||
    fail "the aarch64 acceld does not start under qemu-aarch64-static: $version"
echo "cross-arm64: built ${products[*]} for aarch64 with Debian's Swift $swift_version in $(( $(date +%s) - started )) s; acceld --version on a Cortex-A53: $version" >&2
