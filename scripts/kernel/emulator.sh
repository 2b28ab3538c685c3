# SPDX-License-Identifier: Apache-2.0
# Sourced by kernel-test.sh and peer-bench.sh after qemu-host.sh: builds the
# chip emulator (kernel/accel-emu, docs/TESTING.md) against Debian's
# linux-headers package for exactly the kernel the guest boots, installed
# from Debian's packages like the rest. Sets $emulator (the .ko). Without
# the headers or a clean build the stage fails and names the package: a
# stage that skipped the emulator would pass without its checks.
# Needs $stage (the caller's name for messages), $cache and $modules.

abi=$(basename "$modules")
headers=linux-headers-$abi
# The image's own Debian version: the headers must be the same build.
kernel_version=$(dpkg-deb -f "$kernel_dir"/deb/linux-image-*.deb Version)
emulator_missing() {
    echo "$stage: the chip emulator needs $headers=$kernel_version (the headers of the kernel this stage boots, $abi): $1" >&2
    exit 1
}

# Their build tools: the kbuild qemu-host.sh chose, maybe a later revision.
installed=$(dpkg-query -W -f='${Status} ${Version}' "$headers" 2>/dev/null || true)
if [ "$installed" != "install ok installed $kernel_version" ]; then
    echo "$stage: installing $headers=$kernel_version and $kernel_kbuild=$kernel_kbuild_version for the chip emulator${as_root:+ (through sudo)}" >&2
    if ! apt-cache show "$headers=$kernel_version" >/dev/null 2>&1; then
        $as_root apt-get update -qq
        apt-cache show "$headers=$kernel_version" >/dev/null 2>&1 ||
            emulator_missing "apt knows no such package (the package lists older than the kernel in $kernel_dir? run apt-get update)"
    fi
    if ! output=$(DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends "$headers=$kernel_version" "$kernel_kbuild=$kernel_kbuild_version" 2>&1); then
        echo "$output" | tail -5 >&2
        emulator_missing "apt-get could not install it"
    fi
fi

# Built in a copy, so the source tree stays free of build products.
build=$cache/accel-emu
rm -rf "$build" && mkdir -p "$build"
cp kernel/accel-emu/*.c kernel/accel-emu/*.h kernel/accel-emu/Kbuild kernel/accel-emu/Makefile "$build/"
if ! output=$(make -C "/usr/src/$headers" M="$(cd "$build" && pwd)" modules 2>&1); then
    echo "$output" | grep -vE '^make(\[[0-9]+\])?: (Entering|Leaving)' >&2
    emulator_missing "the module did not build against it (the compiler's output is above)"
fi
echo "$output" | grep -iE 'warning|error' >&2 || true
emulator=$build/accel_emu.ko
vermagic=$(modinfo -F vermagic "$emulator")
case $vermagic in
    "$abi "*) ;;
    *) emulator_missing "the module was built for '$vermagic'" ;;
esac
echo "$stage: built the chip emulator for $abi ($kernel_version)" >&2
