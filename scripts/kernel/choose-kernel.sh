# SPDX-License-Identifier: Apache-2.0
# Sourced by kernel/qemu-host.sh (amd64) and boot/arm64-kernel.sh: which
# Debian kernel a QEMU stage boots and builds the chip emulator against.
#
# Debian publishes a kernel's image (linux-signed-*), its headers (linux)
# and the headers' build tools (linux-kbuild-X.Y, built for the machine
# that compiles) in separate uploads, and the archive moves them apart: on
# 2026-11-28 bookworm-security served linux-kbuild-6.1 6.1.192-3 while the
# newest signed images and their headers were 6.1.192-2. Pinning one
# revision across all three broke the stage wherever its cache was new.
# So the choice is the newest ABI for which the image, its headers and
# their -common at that same version, and a kbuild of the same upstream
# version that satisfies the headers' own dependency (Debian asks only
# ">="), are all in the indexes; the kbuild may be a later revision.

# choose_kernel FLAVOUR TARGET HOST: prints "ABI VERSION KBUILD KBUILD_VERSION"
# (6.1.0-56-arm64 6.1.192-2 linux-kbuild-6.1 6.1.192-3). TARGET and HOST
# are commands run as apt-cache on the kernel's architecture's index and on
# this machine's (they may be the same). Fails with what it tried.
choose_kernel() {
    local flavour=$1 target=$2 host=$3 abi version depends common kbuild minimum candidate
    local tried=() abis
    # Under set -e: a package the index lacks is an answer, not an error.
    abis=$($target pkgnames linux-image- 2>/dev/null |
        grep -E "^linux-image-[0-9]+\.[0-9]+\.[0-9]+-[0-9]+-$flavour\$" | sed 's/^linux-image-//' | sort -rV || true)
    for abi in $abis; do
        for version in $(versions_of "$target" "linux-image-$abi"); do
            depends=$($target show "linux-headers-$abi=$version" 2>/dev/null | sed -n 's/^Depends: //p' | head -1 || true)
            if [ -z "$depends" ]; then tried+=("$abi $version: no linux-headers-$abi=$version"); continue; fi
            common=$(echo "$depends" | tr ',' '\n' | grep -o 'linux-headers-[^ ]*-common' | head -1 || true)
            if [ -n "$common" ] && [ -z "$($target show "$common=$version" 2>/dev/null || true)" ]; then
                tried+=("$abi $version: no $common=$version"); continue
            fi
            kbuild=$(echo "$depends" | tr ',' '\n' | grep -o 'linux-kbuild-[0-9.]*' | head -1 || true)
            if [ -z "$kbuild" ]; then tried+=("$abi $version: its headers name no linux-kbuild"); continue; fi
            minimum=$(echo "$depends" | tr ',' '\n' | sed -nE "s/^ *$kbuild \(>= ([^)]+)\).*/\1/p" | head -1 || true)
            for candidate in $(versions_of "$host" "$kbuild"); do
                [ "${candidate%-*}" = "${version%-*}" ] || continue
                dpkg --compare-versions "$candidate" ge "${minimum:-$version}" || continue
                echo "$abi $version $kbuild $candidate"
                return 0
            done
            tried+=("$abi $version: no $kbuild ${version%-*}-* >= ${minimum:-$version} for this machine")
        done
    done
    echo "no Debian kernel for $flavour has its image, headers and a matching kbuild in the archive;" \
        "tried: ${tried[*]:-no linux-image-*-$flavour at all}" >&2
    return 1
}

# versions_of CACHE PACKAGE: the package's versions in the index, newest first.
versions_of() {
    { $1 show "$2" 2>/dev/null || true; } | sed -n 's/^Version: //p' | sort -urV
}
