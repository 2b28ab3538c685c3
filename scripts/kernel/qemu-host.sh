# Sourced by kernel-test.sh and boot-test.sh, the two QEMU stages. Fetches
# the Debian kernel that linux-image-amd64 points at, downloaded (not
# installed) and unpacked into .build-kernel/, once: sets $cache (that
# folder), $cache/vmlinux (the kernel, uncompressed) and $modules (its
# /lib/modules/VERSION, depmod run). Defines judge_guest.
cache=.build-kernel
mkdir -p "$cache"

# The kernel: the package linux-image-amd64 points at, unpacked, not installed.
if [ ! -s "$cache/vmlinux" ]; then
    package=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
    if [ -z "$package" ]; then
        echo "fetch-kernel: updating the package lists to find linux-image-amd64" >&2
        $as_root apt-get update -qq
        package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ { print $2; exit }')
    fi
    echo "fetch-kernel: downloading $package (not installing it)" >&2
    rm -rf "$cache/deb" "$cache/root" && mkdir -p "$cache/deb"
    (cd "$cache/deb" && apt-get download "$package" 2>/dev/null)
    dpkg-deb -x "$cache"/deb/*.deb "$cache/root"
    # The bzImage wraps an xz-compressed ELF that boots directly (PVH):
    # faster than the real-mode bzImage path under emulation.
    image=$(ls "$cache"/root/boot/vmlinuz-*)
    offset=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$image" | head -1 | cut -d: -f1)
    tail -c +$((offset + 1)) "$image" | xz -dc > "$cache/vmlinux" 2>/dev/null || true
    head -c 4 "$cache/vmlinux" | grep -q ELF || { echo "fetch-kernel: could not extract the kernel from $image" >&2; exit 1; }
fi
modules=$(ls -d "$cache"/root/lib/modules/*)
# The package's postinst would run depmod; boot-test resolves module
# dependencies with modprobe --show-depends, which needs its output.
[ -s "$modules/modules.dep" ] || depmod -b "$cache/root" "$(basename "$modules")"

# judge_guest STAGE LOG MARKER (shared with arm64-boot-test.sh).
source scripts/kernel/judge-guest.sh
