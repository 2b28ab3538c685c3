#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ThreadSanitizer stage: the package, its tests and the acceld they
# start, built with -sanitize=thread in .build-tsan; then
#   1. the canary (Tests/TSanCanary), a deliberate race, must be reported:
#      a stage that cannot see a race proves nothing by passing;
#   2. the suites that run the sampler beside the control side (requests
#      between reads, the interrupt thread, flat calibration, clients
#      coming and going) must pass with no report from any process.
# Every process writes its reports to one folder (TSAN_OPTIONS log_path),
# acceld's children included, so a race in a daemon a test started is not
# lost in its stderr. Env: TSAN_SUITES, a swift test --filter to run instead.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TSAN_BUILD:-.build-tsan}
reports=$(mktemp -d /tmp/acceld-tsan.XXXXXX)
trap 'rm -rf "$reports"' EXIT
export TSAN_OPTIONS="log_path=$reports/report halt_on_error=0 history_size=4"
# The IIO sampler's suites are among them. IIOTests once failed here, its
# set-up test reading the scan elements back disabled. The fault was in
# the test support, not in the IIO code: when connect failed, LineClient's
# init (Tests/TestSupport/DaemonHarness.swift) closed its socket, and its
# deinit then closed the same number again. DaemonProcess.waitFor makes such
# a client every 20 ms while an acceld starts, so the end-to-end suites here
# closed, now and then, a descriptor another test had just been given: that
# time the directory IIOBuffer lists scan_elements through, which then read
# as empty, so no channel was enabled. LineClient's init now sets fd to -1
# after that close.
suites=${TSAN_SUITES:-"SamplerTests|SamplerPartsTests|SamplerOwnershipInProcessTests|InterruptSamplerTests|InterruptEndToEndTests|WakeOnMotionTests|WakeOnMotionInProcessTests|FlatCalibrationEndToEndTests|RequestHandlingTests|GyroscopeStartTests|SixAxisFIFOSamplerTests|IIOTests|IIOGyroscopeTests"}

swift build --build-path "$build" --build-tests --sanitize=thread 2>&1 | { grep -vE '^\[[0-9]+/[0-9]+\]' || true; }
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "tsan-test: the ThreadSanitizer build failed (its errors are above)" >&2; exit 1; }

# On one CPU, as a starved host may run it: the race must show even then.
pin=(); command -v taskset > /dev/null && pin=(taskset -c 0)
"${pin[@]}" "$build/debug/tsan-canary" || true
if grep -qs "WARNING: ThreadSanitizer: data race" "$reports"/report.*; then
    echo "PASS: ThreadSanitizer reports the canary's deliberate race"
    rm -f "$reports"/report.*
else
    echo "FAIL: ThreadSanitizer did not report the canary's deliberate race: this stage could not see one in acceld either"
    exit 1
fi

set +e
swift test --build-path "$build" --sanitize=thread --skip-build --filter "$suites" ${TSAN_XUNIT:+--xunit-output "$TSAN_XUNIT"} 2>&1 \
    | { grep -vE '^[[:space:]]*(◇|↳)' || true; }
status=${PIPESTATUS[0]}
set -e
if compgen -G "$reports/report.*" > /dev/null; then
    echo "FAIL: ThreadSanitizer reported $(cat "$reports"/report.* | grep -c '^WARNING: ThreadSanitizer') problem(s) in the suites ($suites):"
    cat "$reports"/report.*
    exit 1
fi
echo "PASS: no ThreadSanitizer report from the suites ($suites) or the acceld they started"
exit "$status"
