#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The arm64 stage of the test command: make arm64 (the cross-build), make
# deb ARCH=arm64 (dpkg-buildpackage -aarm64), then on the packages: lintian
# (no error, no warning), the versions dpkg-shlibdeps put in Depends against
# what the binaries need and what bookworm has, and dpkg refusing acceld's
# on this machine whole, before any maintainer script. Then the arm64 boot test (scripts/arm64-boot-test.sh) unless
# ACCELD_ARM64_BOOT=0. Prints a line per check; fails on the first that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Also what the cross-build and the boot test install: they run side by
# side below, and two apt-get installs at once would fight over dpkg's lock.
source scripts/setup.sh lintian binutils-aarch64-linux-gnu mmdebstrap qemu-user-static binfmt-support kmod \
    qemu-system-arm gcc-aarch64-linux-gnu make cpio e2fsprogs binutils \
    dpkg-dev debhelper dh-python python3-all python3-setuptools python3-wheel pybuild-plugin-pyproject bash-completion
source scripts/debian-lib.sh  # $mirror, newest_version
started=$(date +%s)
fail() { echo "arm64-test: FAIL: $*" >&2; exit 1; }
pass() { echo "arm64-test: PASS: $*" >&2; }

# The boot test's arm64 userland and kernel (scripts/arm64/userland.sh)
# need none of the cross-build: made meanwhile, in the background and
# niced, as its emulated dpkg runs on one core and the sid chroot's
# debootstrap, the downloads and the links leave the other free much of
# the time. Its output waits in a log until the boot test.
userland_pid=""
if [ "${ACCELD_ARM64_BOOT:-1}" != 0 ]; then
    mkdir -p .build-arm64-boot
    # Its own process group (setsid), so that a failure here stops all of it.
    setsid nice -n 10 ./scripts/arm64/userland.sh > .build-arm64-boot/userland.log 2>&1 < /dev/null &
    userland_pid=$!
    trap 'for pid in $userland_pid ${previous_pid:-}; do kill -- "-$pid" 2>/dev/null || true; done' EXIT
fi

./scripts/cross-arm64.sh
built=$(date +%s)
# The previous release's arm64 package, for the boot test's upgrade
# (0.1.0's sources cross-built in the same chroot, minutes): in the
# background, niced, while the package is made and checked here.
previous_pid=""
if [ "${ACCELD_ARM64_BOOT:-1}" != 0 ]; then
    ARCH=arm64 setsid nice -n 10 ./scripts/previous-release.sh > .build-arm64/previous-release.path 2> .build-arm64/previous-release.log < /dev/null &
    previous_pid=$!
fi
./scripts/build-release.sh  # the man pages and completions come from the native build
packages=$(ARCH=arm64 ./scripts/build-deb.sh)
read -r -d '' -a debs < <(printf '%s\n' $packages) || true
package=$(printf '%s\n' "${debs[@]}" | grep '/acceld_[^/]*_arm64\.deb$') || fail "make deb ARCH=arm64 made no acceld_*_arm64.deb: $packages"

mkdir -p .build-deb
set +e
lintian --fail-on error,warning --display-level ">=warning" "${debs[@]}" > .build-deb/lintian-arm64.log 2>&1
status=$?
set -e
grep -v "running with root privileges" .build-deb/lintian-arm64.log >&2 || true
[ "$status" -eq 0 ] || fail "lintian found errors or warnings in $packages (above)"
for deb in "${debs[@]}"; do pass "lintian: 0 errors, 0 warnings on $(basename "$deb")"; done

# What dpkg-shlibdeps declared, per package: libc6 at least the newest
# GLIBC_ symbol version its binaries use (else apt would install them where
# they cannot start), and every library version it names had by bookworm
# (Raspberry Pi OS 12): the very packages the binaries were linked against,
# kept by the cross-build in .build-arm64/shlibs.
for deb in "${debs[@]}"; do
    [ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ] || continue
    depends=$(dpkg-deb -f "$deb" Depends)
    binaries=$(dpkg-deb -c "$deb" | awk '$6 ~ /^\.\/usr\/bin\/./ { sub("./usr/bin/", "", $6); print ".build-arm64/release/" $6 }')
    needed=$(aarch64-linux-gnu-objdump -T $binaries | newest_version GLIBC)
    declared=$(echo "$depends" | sed -nE 's/.*libc6 \(>= ([0-9.]+)\).*/\1/p')
    [ -n "$declared" ] && dpkg --compare-versions "$declared" ge "$needed" ||
        fail "$(basename "$deb"): Depends says libc6 (>= ${declared:-nothing}), its binaries need GLIBC_$needed"
    for dependency in $(echo "$depends" | tr ',' '\n' | sed -nE 's/^ *([a-z0-9.+-]+) \(>= ([^)]+)\).*/\1=\2/p'); do
        library=${dependency%%=*} version=${dependency#*=}
        [ -d ".build-arm64/shlibs/$library" ] || continue  # systemd, udev, kmod, acceld: not libraries
        have=$(sed -n 's/^Version: //p' ".build-arm64/shlibs/$library/DEBIAN/control")
        dpkg --compare-versions "$have" ge "$version" ||
            fail "$(basename "$deb"): Depends says $library (>= $version), bookworm has $have"
    done
    pass "$(basename "$deb"): Depends (dpkg-shlibdeps) asks libc6 (>= $declared) for GLIBC_$needed, and bookworm has every library version it names: $depends"
done
depends=$(dpkg-deb -f "$(printf '%s\n' "${debs[@]}" | grep '/acceld-sensorproxy_')" Depends)
echo "$depends" | grep -q 'libsystemd0' || fail "acceld-sensorproxy's Depends should name libsystemd0 (its sd-bus): $depends"
depends=$(dpkg-deb -f "$(printf '%s\n' "${debs[@]}" | grep '/acceld-ros2_')" Depends)
echo "$depends" | grep -q 'libddsc0debian' || fail "acceld-ros2's Depends should name libddsc0debian (Cyclone DDS): $depends"

# The wrong architecture: dpkg refuses the archive before unpacking it,
# so no maintainer script runs at all. Asked of a dpkg database of its own,
# with no foreign architecture, so that the answer is the package's,
# whatever this machine's dpkg was told (dpkg --add-architecture arm64).
host=$(dpkg --print-architecture)
if [ "$host" != arm64 ]; then
    [ "$(dpkg-deb -f "$package" Architecture)" = arm64 ] || fail "$package declares Architecture: $(dpkg-deb -f "$package" Architecture), not arm64"
    admin=$(mktemp -d) && mkdir -p "$admin/info" "$admin/updates" && : > "$admin/status" && : > "$admin/available"
    refusal=$(dpkg --admindir="$admin" --force-not-root --dry-run -i "$package" 2>&1) && { rm -rf "$admin"; fail "dpkg would install the arm64 package on $host: $refusal"; }
    rm -rf "$admin"
    echo "$refusal" | grep -q "package architecture (arm64) does not match system ($host)" ||
        fail "dpkg refused the arm64 package on $host, but not for its architecture: $refusal"
    pass "dpkg on $host refuses it: package architecture (arm64) does not match system ($host)"
fi
# What cannot be had is named: an archive that does not answer, a package
# gone from it (the cross-build's private apt, scripts/arm64/fetch-debs.sh).
missing() {  # MIRROR PACKAGE: fetch_debs's message, in a throwaway cache
    (cache=$(mktemp -d) mirror=$1; trap 'rm -rf "$cache"' EXIT
     fail() { echo "$*"; exit 1; }
     source scripts/arm64/fetch-debs.sh; fetch_debs bookworm arm64 "$cache/debs" "$2" 2>/dev/null) || true
}
out=$(missing http://127.0.0.1:9/debian libc6)
echo "$out" | grep -q "cannot read Debian bookworm's package list for arm64 from http://127.0.0.1:9/debian.*is the archive reachable" ||
    fail "an unreachable archive is not named as such: $out"
out2=$(missing "$mirror" libacceld-no-such-package)
echo "$out2" | grep -q "Debian bookworm has no package libacceld-no-such-package for arm64" ||
    fail "a missing package is not named as such: $out2"
pass "an unreachable archive and a missing package each get their message ($out | $out2)"
echo "arm64-test: cross-build $(( built - started )) s, packaged and checked in $(( $(date +%s) - built )) s" >&2

if [ "${ACCELD_ARM64_BOOT:-1}" = 0 ]; then
    echo "arm64-test: ACCELD_ARM64_BOOT=0: the arm64 boot test is skipped (CI never sets it)" >&2
else
    waited=$(date +%s)
    status=0
    wait "$userland_pid" || status=$?
    userland_pid=""
    cat .build-arm64-boot/userland.log >&2
    [ "$status" -eq 0 ] || fail "the arm64 userland or kernel could not be made (exit $status; above)"
    echo "arm64-test: the arm64 userland and kernel, made during the cross-build, were ready $(( $(date +%s) - waited )) s later" >&2
    status=0
    wait "$previous_pid" || status=$?
    previous_pid=""
    cat .build-arm64/previous-release.log >&2
    [ "$status" -eq 0 ] || fail "the previous release's arm64 package could not be made (exit $status; above)"
    echo "arm64-test: the previous release's arm64 package, made meanwhile, was ready $(( $(date +%s) - waited )) s later" >&2
    ACCELD_ARM64_PACKAGES="${debs[*]}" ACCELD_ARM64_PREVIOUS=$(tail -1 .build-arm64/previous-release.path) ./scripts/arm64-boot-test.sh
fi
