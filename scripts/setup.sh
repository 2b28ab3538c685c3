#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what acceld needs to build and test on Debian, and says so.
# Usage: scripts/setup.sh [extra Debian packages...]
set -euo pipefail

# Commands that need root run through sudo when we are not root.
as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"

# libsystemd-dev: sd-bus, for acceld-sensorproxy (Sources/CSystemd);
# cyclonedds-dev: Cyclone DDS, for acceld-ros2 (Sources/CROS2Types).
packages=(libi2c-dev libmosquitto-dev libsystemd-dev libkissfft-dev cyclonedds-dev "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]} with apt-get${as_root:+ (through sudo)}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $as_root apt-get update -qq
    $as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH"
    done
fi
command -v swift >/dev/null 2>&1 || {
    echo "setup: no Swift toolchain found: install Swift 6 (swift.org/install) and put it on PATH" >&2
    exit 1
}
