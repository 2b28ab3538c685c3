#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 37's capture targets on the chip model, printed (docs/PERFORMANCE.md):
# samples lost at kHz rates with one vibration client beside one raw
# client, and acceld's CPU for the same run without the analysis.
#
#   scripts/bench-capture.sh [SECONDS]      (default 60 s per run)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
echo "bench-capture: building acceld and accel-bench (release)"
swift build -c release --product acceld >/dev/null
swift build -c release --product accel-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
scratch=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$scratch"' EXIT

# run PART RATE MODE [--vibration SECONDS]: one daemon, one measurement.
run() {
    local part=$1 rate=$2 mode=$3; shift 3
    local socket="$scratch/acceld.sock"
    rm -f "$socket"
    "$bin/acceld" --simulate machine --part "$part" --rate "$rate" --mode "$mode" --range 16 --socket "$socket" 2>"$scratch/acceld.log" &
    local pid=$!
    for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
    [ -S "$socket" ] || { echo "acceld did not start:"; cat "$scratch/acceld.log"; exit 1; }
    "$bin/accel-bench" load --socket "$socket" --clients 1 --seconds "$seconds" --pid "$pid" "$@" | sed 's/^/    /'
    kill -INT "$pid"; wait "$pid" || true
}

for case in "LSM6DSO 6660 high-performance" "LIS3DH 5376 low-power" "LSM6DSO 3330 high-performance"; do
    set -- $case
    echo "$1 at $2 Hz ($3), ${seconds} s: one raw client and one vibration client (1 s windows, 50 % overlap)"
    run "$1" "$2" "$3" --vibration 1
    echo "$1 at $2 Hz ($3), ${seconds} s: the same without the vibration client"
    run "$1" "$2" "$3"
done
