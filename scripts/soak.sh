#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Soak: acceld at 400 Hz for SOAK_MINUTES (default 30) with 8 steady clients
# and 20 more connecting and leaving every second of every other minute; RSS,
# open descriptors and the samples lost printed every minute (RSS and
# descriptors must stay flat), and last the samples lost in the churn
# minutes against the quiet ones.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product accel-bench >&2
swift build -c release --product acceld >&2
scratch=$(mktemp -d)
socket=$scratch/acceld.sock
.build/release/acceld --simulate demo --rate 400 --socket "$socket" --calibration-file "$scratch/c.json" 2> "$scratch/log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$scratch"' EXIT
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
minutes=${SOAK_MINUTES:-30}
echo "== soak: acceld at 400 Hz for $minutes min, 8 steady clients, 20 connecting and leaving each second of every other minute"
stdbuf -oL .build/release/accel-bench load --socket "$socket" --clients 8 --seconds $((minutes * 60)) --pid "$pid" --churn 20 --every 60 --alternate-churn
