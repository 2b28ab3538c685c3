#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ROS 2 without ROS (docs/ROS2.md), against independent implementations
# from PyPI at the versions in scripts/ros2/requirements.txt, in a venv
# kept in the test cache (keyed by that file and the Python), so a warm
# run downloads nothing:
#   - the ROS 2 types acceld-ros2 is built with are what Debian's idlc
#     makes of their IDL (scripts/ros2/generate-types.sh --check);
#   - test_mcap: `accelctl record --format mcap` on the chip model, the bag
#     read back by rosbags and the official mcap-ros2-support;
#   - test_dds: acceld-ros2 publishing through Debian's Cyclone DDS, heard
#     by PyPI's cyclonedds (its own Cyclone) on the loopback interface only.
# Debian's python3-yaml reads the channels' QoS; gcc builds the tests'
# discovery reader on libddsc. Builds acceld, accelctl and acceld-ros2 when
# they are missing. Arguments name test modules, classes or methods;
# --bench [SECONDS] [RATE] prints acceld-ros2's figures instead
# (bench_dds.py; ACCELD_BUILD=.build/release for the release build's).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh python3 python3-venv python3-yaml cyclonedds-tools gcc libc6-dev
source scripts/test-cache.sh

python=/usr/bin/python3
cache_entry ros2-venv "$(cat scripts/ros2/requirements.txt)" "$("$python" --version)"
if ! cache_ready bin/python; then
    cache_begin
    "$python" -m venv --system-site-packages "$entry.partial"
    "$entry.partial/bin/python" -m pip install -q --disable-pip-version-check -r scripts/ros2/requirements.txt
    cache_commit bin/python
fi

scripts/ros2/generate-types.sh --check

for product in acceld accelctl acceld-ros2; do
    [ -x ".build/debug/$product" ] || swift build --product "$product" 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
    [ -x ".build/debug/$product" ] || { echo "ros2-test: the build did not make .build/debug/$product" >&2; exit 1; }
done
cd scripts/ros2
if [ "${1:-}" = --bench ]; then
    shift
    exec "$entry/bin/python" bench_dds.py "$@"
fi
[ $# -gt 0 ] || set -- test_mcap test_dds
exec "$entry/bin/python" -m unittest -v "$@"
