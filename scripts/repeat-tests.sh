#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs `swift test` N times (REPEAT, default 5) on one build and prints
# "N passed, M failed"; with BUSY=K, K busy loops (`yes > /dev/null`) run
# beside it the whole time, as a starved CI host would. Each run's log is
# kept in .build-repeat/run-I.log; a failed run's failures are printed.
# Extra arguments go to swift test (e.g. --filter AccelDaemonTests).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh python3-minimal systemd tmux
repeat=${REPEAT:-5}
busy=${BUSY:-0}
logs=.build-repeat
mkdir -p "$logs"

echo "repeat-tests: building once (swift build --build-tests)" >&2
swift build --build-tests 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true

loops=()
stop_loops() { for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_loops EXIT
for _ in $(seq "$busy"); do
    yes > /dev/null &
    loops+=($!)
done
[ "$busy" -gt 0 ] && echo "repeat-tests: $busy busy loops beside the tests" >&2

passed=0 failed=0
for run in $(seq "$repeat"); do
    start=$(date +%s)
    if swift test --skip-build "$@" > "$logs/run-$run.log" 2>&1; then
        passed=$((passed + 1)); verdict=passed
    else
        failed=$((failed + 1)); verdict=FAILED
        grep -E '✘|error:|Fatal' "$logs/run-$run.log" | head -20 >&2 || true
    fi
    echo "repeat-tests: run $run of $repeat $verdict in $(( $(date +%s) - start )) s ($(grep -Eo 'Test run with [0-9]+ tests' "$logs/run-$run.log" | tail -1 || echo 'no summary'))" >&2
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
