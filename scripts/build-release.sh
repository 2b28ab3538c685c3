#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds acceld, accelctl, acceld-gateway, acceld-sensorproxy and acceld-ros2 (and any products named as
# arguments) for installing: release, with the Swift runtime
# linked in statically, so a board needs no Swift toolchain (only libc,
# libstdc++ and libi2c). Prints only errors, warnings (not the
# static Foundation's own mktemp warning) and "Build ... complete".
# (acceld-sensorproxy also needs libsystemd0, which every systemd has;
# acceld-ros2 needs libddsc0debian, Cyclone DDS.)
# Output: .build-static/release/{acceld,accelctl,acceld-gateway,...}, then the man pages and
# shell completions from them in .build-static/share (scripts/build-docs.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
extra=("$@")  # more products to build the same way (peer-bench: accel-bench)
set --        # setup.sh takes extra packages from the arguments
source scripts/setup.sh
if [ "${ACCELD_RELEASE_BUILT:-}" = 1 ] && [ ${#extra[@]} -eq 0 ]; then
    echo "build-release: built by this run's release stage (scripts/test.sh)" >&2
    exit 0
fi
for product in acceld accelctl acceld-gateway acceld-sensorproxy acceld-ros2 "${extra[@]}"; do
    set +e
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product "$product" 2>&1 \
        | grep -E "error|warning: |complete" | grep -v "use of .mktemp" >&2
    status=${PIPESTATUS[0]}
    set -e
    [ "$status" -eq 0 ] || { echo "build-release: building $product failed (exit $status)" >&2; exit 1; }
done
./scripts/build-docs.sh
