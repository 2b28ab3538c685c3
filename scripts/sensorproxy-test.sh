#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# acceld-sensorproxy end to end with clients nobody here wrote
# (scripts/sensorproxy/): a private dbus-daemon reading the project's
# policy file, acceld on the chip model, and Debian's monitor-sensor
# (iio-sensor-proxy's own client), gdbus and dbus-send. Installs them
# first, and builds acceld and acceld-sensorproxy. Stdlib Python only.
set -euo pipefail
cd "$(dirname "$0")/.."
# dbus-daemon and dbus-send, gdbus, monitor-sensor; setpriv (util-linux)
# runs the caller the policy refuses, stdbuf (coreutils) unbuffers monitor-sensor.
source scripts/setup.sh python3-minimal libsystemd-dev dbus-daemon dbus-bin libglib2.0-bin iio-sensor-proxy
swift build --product acceld 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
swift build --product acceld-sensorproxy 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
[ -x .build/debug/acceld ] && [ -x .build/debug/acceld-sensorproxy ] || { echo "sensorproxy-test: the build failed" >&2; exit 1; }
cd scripts/sensorproxy
# Arguments name test classes or methods (test_sensorproxy.Claims); none: all.
exec python3 -m unittest -v "${@:-test_sensorproxy}"
