# Sourced by kernel-test.sh, boot-test.sh and peer-bench.sh, the amd64 QEMU
# stages. Fetches the Debian kernel that linux-image-amd64 points at,
# downloaded (not installed), unpacked and kept in the test cache
# (scripts/test-cache.sh): sets $kernel_dir (that entry: deb/, root/ and
# vmlinux, the kernel uncompressed), $modules (its /lib/modules/VERSION,
# depmod run) and $cache (.build-kernel, for each run's own files).
# Defines judge_guest.
cache=.build-kernel
mkdir -p "$cache"
source scripts/test-cache.sh

# The kernel: the package linux-image-amd64 points at, unpacked, not
# installed, cached by its name and version (a new Debian kernel is fetched).
kernel_package() {
    kernel_package=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
    [ -z "$kernel_package" ] || kernel_package_version=$(apt-cache show --no-all-versions "$kernel_package" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
}
kernel_package
if [ -z "$kernel_package" ] || [ -z "${kernel_package_version:-}" ]; then
    echo "fetch-kernel: updating the package lists to find linux-image-amd64" >&2
    $as_root apt-get update -qq
    kernel_package
fi
[ -n "$kernel_package" ] && [ -n "${kernel_package_version:-}" ] || { echo "fetch-kernel: apt knows no linux-image-amd64 pointing at a kernel" >&2; exit 1; }
cache_entry kernel-amd64 "$kernel_package" "$kernel_package_version"
kernel_dir=$entry
if ! cache_ready vmlinux; then
    cache_begin
    echo "fetch-kernel: downloading $kernel_package $kernel_package_version (not installing it)" >&2
    mkdir -p "$entry.partial/deb"
    (cd "$entry.partial/deb" && apt-get download -o APT::Sandbox::User=root "$kernel_package=$kernel_package_version" 2>/dev/null) ||
        { echo "fetch-kernel: downloading $kernel_package=$kernel_package_version failed" >&2; exit 1; }
    dpkg-deb -x "$entry.partial"/deb/*.deb "$entry.partial/root"
    # The bzImage wraps an xz-compressed ELF that boots directly (PVH):
    # faster than the real-mode bzImage path under emulation.
    image=$(ls "$entry.partial"/root/boot/vmlinuz-*)
    offset=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$image" | head -1 | cut -d: -f1)
    tail -c +$((offset + 1)) "$image" | xz -dc > "$entry.partial/vmlinux" 2>/dev/null || true
    head -c 4 "$entry.partial/vmlinux" | grep -q ELF || { echo "fetch-kernel: could not extract the kernel from $image" >&2; exit 1; }
    # The package's postinst would run depmod; boot-test resolves module
    # dependencies with modprobe --show-depends, which needs its output.
    depmod -b "$entry.partial/root" "$(basename "$(ls -d "$entry.partial"/root/lib/modules/*)")"
    cache_commit vmlinux
fi
modules=$(ls -d "$kernel_dir"/root/lib/modules/*)

# judge_guest STAGE LOG MARKER (shared with arm64-boot-test.sh).
source scripts/kernel/judge-guest.sh
