# SPDX-License-Identifier: Apache-2.0
# Sourced (as root) by arm64-boot-test.sh after debian-rootfs.sh: Debian
# bookworm's arm64 kernel (the package linux-image-arm64 points at), its
# headers and busybox-static, downloaded from the mirror's arm64 index
# through a private apt (scripts/arm64/fetch-debs.sh, in the test cache; the
# host's dpkg gets no foreign architecture), unpacked, never installed, and
# kept in the test cache (scripts/test-cache.sh) by the kernel's version.
# Needs $suite and $mirror. Sets $version (the ABI,
# 6.1.0-N-arm64), $kernel_version (its Debian version), $kroot (the
# unpacked image: modules in $kroot/lib/modules/$version), $kernel (the
# Image QEMU boots), $busybox and $headers (the unpacked headers' folder,
# their build tools for this machine beside them).

kernel_fail() { echo "arm64-kernel: $1" >&2; exit 1; }
source scripts/test-cache.sh
cache=$ACCELD_CACHE/apt-arm64-kernel  # fetch-debs.sh keeps its private apt in $cache/apt
mkdir -p "$cache"
source scripts/arm64/fetch-debs.sh

# The kernel comes from -security when it has a newer one, as on the
# host: take the security mirror apt already uses, if any. The index is
# read again when a day old; the kernel it names is the cache's key.
security=$security_mirror
keyring="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
apt_sources kernel arm64 "deb $keyring $mirror $suite main" "deb $keyring $mirror $suite-updates main" \
    ${security:+"deb $keyring $security $suite-security main"}
if [ -z "$(find "$cache/apt/kernel-arm64/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
    echo "arm64-kernel: reading the arm64 package index ($mirror${security:+, $security})" >&2
    private_apt kernel arm64 apt-get update --error-on=any -qq || kernel_fail "apt-get update of the arm64 index failed (sources: $cache/apt/kernel-arm64/sources.list)"
fi
# The newest ABI whose arm64 image and headers, and a kbuild of theirs for
# this machine's architecture, are all to be had (scripts/kernel/choose-kernel.sh).
source scripts/kernel/choose-kernel.sh
arm64_cache() { private_apt kernel arm64 apt-cache "$@"; }
if ! chosen=$(choose_kernel arm64 arm64_cache apt-cache 2>/dev/null); then
    echo "arm64-kernel: updating this machine's package lists to find a linux-kbuild for the arm64 headers" >&2
    apt-get update -qq
    chosen=$(choose_kernel arm64 arm64_cache apt-cache) || kernel_fail "no arm64 kernel to boot (above)"
fi
read -r abi kernel_version kbuild kbuild_version <<< "$chosen"
image=linux-image-$abi
echo "arm64-kernel: chose $image $kernel_version, its headers, and $kbuild $kbuild_version ($(dpkg --print-architecture))" >&2

cache_entry kernel-arm64 "$image" "$kernel_version" "$kbuild" "$kbuild_version"
kdir=$entry
if ! cache_ready stamp busybox; then
    cache_begin
    made=$entry.partial
    echo "arm64-kernel: downloading $image and its headers ($kernel_version) and busybox-static for arm64, and $kbuild $kbuild_version for $(dpkg --print-architecture) (not installing them)" >&2
    mkdir -p "$made/deb"
    (cd "$made/deb" && private_apt kernel arm64 apt-get download -qq "$image=$kernel_version" "linux-headers-$abi=$kernel_version" \
        "linux-headers-${abi%-arm64}-common=$kernel_version" busybox-static) || kernel_fail "downloading the arm64 packages failed"
    (cd "$made/deb" && apt-get download -qq -o APT::Sandbox::User=root "$kbuild=$kbuild_version") ||
        kernel_fail "downloading $kbuild=$kbuild_version for this machine failed, needed to build the emulator against the arm64 headers"
    dpkg-deb -x "$made/deb/${image}_"*.deb "$made/root"
    for deb in "$made"/deb/linux-headers-*.deb "$made/deb/${kbuild}_"*.deb; do dpkg-deb -x "$deb" "$made/headers"; done
    mkdir -p "$made/busybox-deb" && dpkg-deb -x "$made"/deb/busybox-static_*.deb "$made/busybox-deb"
    cp "$made/busybox-deb/bin/busybox" "$made/busybox" && rm -rf "$made/busybox-deb"
    # The package's postinst would run depmod; --show-depends needs it.
    depmod -b "$made/root" "$abi"
    echo "$abi $kernel_version" > "$made/stamp"
    cache_commit stamp busybox
fi
read -r version kernel_version < "$kdir/stamp"
kroot=$kdir/root
kernel=$kroot/boot/vmlinuz-$version
busybox=$kdir/busybox
headers=$kdir/headers/usr/src/linux-headers-$version
[ -s "$kernel" ] && [ -d "$kroot/lib/modules/$version" ] && [ -d "$headers" ] || kernel_fail "$kdir/ is incomplete: remove it to fetch the kernel again"

# Busybox is also the first arm64 program this machine runs outside the
# chroot: a quick proof that the binfmt_misc handler still works.
"$busybox" true 2>/dev/null || kernel_fail "$busybox (arm64) does not run here: qemu-user-static's binfmt_misc handler for aarch64 is not active"
