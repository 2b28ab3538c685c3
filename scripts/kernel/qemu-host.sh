# Sourced by kernel-test.sh, boot-test.sh and peer-bench.sh, the amd64 QEMU
# stages. Fetches the Debian kernel chosen by kernel/choose-kernel.sh,
# downloaded (not installed), unpacked and kept in the test cache
# (scripts/test-cache.sh): sets $kernel_dir (that entry: deb/, root/ and
# vmlinux, the kernel uncompressed), $modules (its /lib/modules/VERSION,
# depmod run), $kernel_kbuild and $kernel_kbuild_version (the headers'
# build tools) and $cache (.build-kernel, for each run's own files).
# Defines judge_guest.
cache=.build-kernel
mkdir -p "$cache"
source scripts/test-cache.sh

# The kernel: the newest whose image, headers and kbuild are all in the
# archive (kernel/choose-kernel.sh; emulator.sh installs those headers),
# unpacked, not installed, cached by its name and version.
source scripts/kernel/choose-kernel.sh
if ! chosen=$(choose_kernel amd64 apt-cache apt-cache 2>/dev/null); then
    echo "fetch-kernel: updating the package lists to find a kernel with its headers" >&2
    $as_root apt-get update -qq
    chosen=$(choose_kernel amd64 apt-cache apt-cache) || { echo "fetch-kernel: no kernel to boot (above)" >&2; exit 1; }
fi
read -r kernel_abi kernel_package_version kernel_kbuild kernel_kbuild_version <<< "$chosen"
kernel_package=linux-image-$kernel_abi
echo "fetch-kernel: chose $kernel_package $kernel_package_version (its headers with $kernel_kbuild $kernel_kbuild_version)" >&2
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
