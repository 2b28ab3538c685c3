#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job on the simulated chip: builds acceld, starts the daemon on
# the chip model (asked for explicitly with --simulate; acceld never falls
# back to it by itself) and a client that prints what it serves: events,
# device messages and two frames a second.
# Usage: scripts/demo.sh [MOTION]   (demo, tour, shake, drop, rest, or a trace file)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh socat

echo "demo: building acceld (the first build takes a minute or two)" >&2
swift build --product acceld 2>&1 | grep -E "error|warning: |Compiling|Build complete" >&2 || true
[ -x .build/debug/acceld ] || { echo "demo: the build failed" >&2; exit 1; }

scratch=$(mktemp -d)
socket=$scratch/acceld.sock
.build/debug/acceld --simulate "${1:-demo}" --socket "$socket" --calibration-file "$scratch/calibration.json" \
    2> "$scratch/acceld.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$scratch"' EXIT
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { cat "$scratch/acceld.log" >&2; exit 1; }

seconds=${DEMO_SECONDS:-30}
echo "demo: acceld (pid $daemon) serves the chip model on $socket;" \
     "a client watches for ${seconds} s: the six faces, a shake, a drop" >&2
{
    echo '{"class":"watch","streams":["events","device","frames"],"rate":2,"fields":["acc","attitude"]}'
    sleep "$seconds"
} | socat - UNIX-CONNECT:"$socket"
