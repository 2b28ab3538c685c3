#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job on the simulated chip: builds acceld, starts the daemon on
# the chip model (asked for explicitly with --simulate; acceld never falls
# back to it by itself) and a client that prints what it serves: events,
# device messages and two frames a second. acceld-gateway serves the live
# page beside it on http://127.0.0.1:8080 (DEMO_PORT) while it runs.
# Usage: scripts/demo.sh [MOTION]   (demo, tour, shake, drop, rest, or a trace file)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh socat

echo "demo: building acceld and acceld-gateway (the first build takes a few minutes)" >&2
for product in acceld acceld-gateway; do
    swift build --product $product 2>&1 | grep -E "error|warning: |Build complete" >&2 || true
done
[ -x .build/debug/acceld ] && [ -x .build/debug/acceld-gateway ] || { echo "demo: the build failed" >&2; exit 1; }

scratch=$(mktemp -d)
socket=$scratch/acceld.sock
.build/debug/acceld --simulate "${1:-demo}" --socket "$socket" --calibration-file "$scratch/calibration.json" \
    2> "$scratch/acceld.log" &
daemon=$!
trap 'kill $daemon $gateway 2>/dev/null; wait $daemon $gateway 2>/dev/null; rm -rf "$scratch"' EXIT
gateway=
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { cat "$scratch/acceld.log" >&2; exit 1; }
port=${DEMO_PORT:-8080}
.build/debug/acceld-gateway --http --web-root Web --socket "$socket" --listen "127.0.0.1:$port" 2> "$scratch/gateway.log" &
gateway=$!
sleep 0.5
if kill -0 $gateway 2>/dev/null; then
    echo "demo: the live page is on http://127.0.0.1:$port (acceld-gateway, pid $gateway)" >&2
else
    echo "demo: no live page: $(cat "$scratch/gateway.log") (set DEMO_PORT to another port)" >&2
fi

seconds=${DEMO_SECONDS:-30}
echo "demo: acceld (pid $daemon) serves the chip model on $socket;" \
     "a client watches for ${seconds} s: the six faces, a shake, a drop" >&2
{
    echo '{"class":"watch","streams":["events","device","frames"],"rate":2,"fields":["acc","attitude"]}'
    sleep "$seconds"
} | socat - UNIX-CONNECT:"$socket"
