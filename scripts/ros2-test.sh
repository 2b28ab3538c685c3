#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ROS 2 without ROS (docs/ROS2.md): acceld on the chip model, `accelctl
# record --format mcap`, and the bag read back by independent readers,
# rosbags and the official mcap-ros2-support, from PyPI at the versions in
# scripts/ros2/requirements.txt, in a venv kept in the test cache (keyed by
# that file and the Python), so a warm run downloads nothing. Debian's
# python3-yaml reads the channels' QoS. Builds acceld and accelctl when
# they are missing. Arguments name test classes or methods.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh python3 python3-venv python3-yaml
source scripts/test-cache.sh

python=/usr/bin/python3
cache_entry ros2-venv "$(cat scripts/ros2/requirements.txt)" "$("$python" --version)"
if ! cache_ready bin/python; then
    cache_begin
    "$python" -m venv --system-site-packages "$entry.partial"
    "$entry.partial/bin/python" -m pip install -q --disable-pip-version-check -r scripts/ros2/requirements.txt
    cache_commit bin/python
fi

for product in acceld accelctl; do
    [ -x ".build/debug/$product" ] || swift build --product "$product" 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
    [ -x ".build/debug/$product" ] || { echo "ros2-test: the build did not make .build/debug/$product" >&2; exit 1; }
done
cd scripts/ros2
exec "$entry/bin/python" -m unittest -v "${@:-test_mcap}"
