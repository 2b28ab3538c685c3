#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite, fast stages first (docs/TESTING.md):
#   scripts/test.sh              every stage, in order (what CI runs)
#   scripts/test.sh STAGE...     the named stages, and the builds they need
#   scripts/test.sh --list       the stages, a line each
# Each stage's output goes to the terminal and to .build-test/logs/STAGE.log;
# its JUnit XML to .build-test/results/. At the end (or at the first stage
# that fails) one table: each stage, its time, passed / failed /
# inconclusive. What a stage builds from inputs that did not change comes
# from ~/.cache/acceld-test (scripts/test-cache.sh); ACCELD_TEST_CACHE=off
# builds everything from nothing, as on a fresh machine.
# Installs what it needs first, through sudo when not root, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."

# name | what it proves (--list and the log's "== " line) | what it needs first
stages=(
    "graph|the module graph: README.md against Package.swift, and no dependency unused|"
    "harness|the test command's own tools: stage names, JUnit conversion, the inconclusive rule, damaged cache entries|"
    "build|swift build: every product, debug (the tests run these binaries)|"
    "docs|the pages' commands run as the pages say (scripts/docs-test.py), ERRORS.md's exit codes, every option a page names in --help|build"
    "unit|swift test: unit and end-to-end tests on the chip model|build"
    "python|the Python client: pytest against acceld on the chip model, the examples, pip install|build"
    "sensorproxy|acceld-sensorproxy: iio-sensor-proxy's D-Bus interface on a private bus, with monitor-sensor, gdbus and dbus-send|build"
    "gateway|acceld-gateway: the live page in headless Chromium, Prometheus, MQTT, hostile HTTP|build"
    "ros2|ROS 2 without ROS: acceld-ros2 heard through PyPI's own Cyclone DDS on loopback, accelctl record --format mcap read back by rosbags and mcap-ros2-support, the generated DDS types current|build"
    "tsan|ThreadSanitizer: the canary's deliberate race reported, then the sampler's and control side's suites and the acceld they start, built with -sanitize=thread, with no report|"
    "fuzz|the request, trace and configuration parsers under libFuzzer (${FUZZ_SECONDS:-60} s each)|"
    "release|the static release build (Swift runtime linked in), the man pages and completions, shared by the stages below|"
    "kernel|kernel in the loop: acceld on a real kernel's i2c-dev and the chip emulator, the kernel's drivers as peers (QEMU)|release"
    "package|the Debian packages (dpkg-buildpackage): lintian, and piuparts in a bookworm chroot, each alone and together, with the upgrade from the previous release|release"
    "boot|the Debian packages under a real systemd (debootstrap, QEMU), with the upgrade|release"
    "arm64|the cross-build with Debian's Swift, the arm64 packages and their boot on an emulated Cortex-A53|release"
)
field() { local IFS='|'; read -r -a parts <<< "$1"; echo "${parts[$2]:-}"; }
stage_names=()
for entry in "${stages[@]}"; do stage_names+=("$(field "$entry" 0)"); done

list_stages() {
    echo "scripts/test.sh [STAGE...]: the stages, in the order they run (make test-STAGE runs one):"
    for entry in "${stages[@]}"; do printf '  %-12s %s\n' "$(field "$entry" 0)" "$(field "$entry" 1)"; done
}
case "${1:-}" in
    --list|-l) list_stages; exit 0 ;;
    --help|-h) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; echo; list_stages; exit 0 ;;
esac

# The stages asked for, each after what it needs, in the table's order.
wanted=" "
want() {
    local entry
    for entry in "${stages[@]}"; do
        [ "$(field "$entry" 0)" = "$1" ] || continue
        local need; need=$(field "$entry" 2)
        [ -z "$need" ] || want "$need"
        wanted+="$1 "
        return 0
    done
    echo "test.sh: no stage '$1'" >&2
    list_stages >&2
    exit 2
}
if [ $# -eq 0 ]; then wanted=" ${stage_names[*]} "; else for name in "$@"; do want "$name"; done; fi

# python3-minimal runs the unprivileged client of one end-to-end test (as
# nobody) and writes the results; systemd provides systemd-analyze for the
# unit file checks; tmux runs accelctl watch in a real terminal.
# socat: the README's own example of talking to the socket (docs stage).
source scripts/setup.sh python3-minimal systemd tmux socat
source scripts/test-cache.sh  # $ACCELD_CACHE, and what ACCELD_TEST_CACHE=off means
results=.build-test/results logs=.build-test/logs
rm -rf "$results" && mkdir -p "$results" "$logs"

# Runs a command, hiding lines that match $1 (SwiftPM's progress).
quietly() {
    local filter=$1; shift
    "$@" 2>&1 | { grep -vE "$filter" || true; }
    return "${PIPESTATUS[0]}"
}

# What each stage runs.
stage_graph() { python3 scripts/module-graph.py --check; }
stage_harness() { python3 scripts/harness_test.py -v; }
stage_docs() { python3 -u scripts/docs-test.py; }
stage_build() { quietly '^\[[0-9]+/[0-9]+\]' swift build; }
stage_unit() {
    # --xunit-output writes XCTest's results there and Swift Testing's
    # beside it (unit-swift-testing.xml).
    quietly '^[[:space:]]*(◇|↳)|^\[[0-9]+/[0-9]+\]' swift test --xunit-output "$results/unit.xml"
}
stage_python() { ACCELD_JUNIT="$PWD/$results/python.xml" ./scripts/python-client-test.sh; }
stage_sensorproxy() { ./scripts/sensorproxy-test.sh; }
# The fleet's invariant (every event once) over 20 s; its figures are
# make fleet-bench's, over 60.
stage_gateway() { FLEET_SECONDS=${FLEET_SECONDS:-20} ./scripts/gateway-test.sh; }
stage_ros2() { ./scripts/ros2-test.sh; }
stage_tsan() { TSAN_XUNIT="$PWD/$results/tsan.xml" ./scripts/tsan-test.sh; }
stage_fuzz() { ./scripts/fuzz.sh; }
stage_release() {
    if [ -n "${release_pid:-}" ]; then
        echo "test.sh: the release build ran beside the unit tests (niced); its output:" >&2
        while [ ! -s "$logs/release-beside.status" ]; do sleep 2; done
        cat "$logs/release-beside.log"
        return "$(cat "$logs/release-beside.status")"
    fi
    ./scripts/build-release.sh
}
# The unit tests mostly wait on daemons and clocks, and the release build
# needs both cores: it runs beside them, niced (the suites pass beside two
# busy loops: make repeat-tests BUSY=2), and the release stage waits for it.
release_pid=""
build_release_beside_unit() {
    case $wanted in *" release "*) ;; *) return 0 ;; esac
    rm -f "$logs/release-beside.status"
    # Its own process group (setsid), so that a run stopped early stops it.
    # SwiftPM starts its compilers at priority 0 whatever its own, so the
    # whole group is reniced while it runs.
    setsid bash -c './scripts/build-release.sh > "$1" 2>&1 < /dev/null & build=$!
        while kill -0 $build 2>/dev/null; do renice -n 10 -g $$ > /dev/null 2>&1; sleep 2; done
        wait $build; echo $? > "$2"' \
        build-release "$logs/release-beside.log" "$logs/release-beside.status" &
    release_pid=$!
    trap 'kill -- "-$release_pid" 2>/dev/null || true' EXIT
}
stage_kernel() { ./scripts/kernel-test.sh; }
stage_package() { ./scripts/package-test.sh; }
stage_boot() { ./scripts/boot-test.sh; }
stage_arm64() { ./scripts/arm64-test.sh; }

command_started=$(date +%s)
summary() { python3 scripts/test-results.py table "$results" "$@"; }
for entry in "${stages[@]}"; do
    name=$(field "$entry" 0)
    case $wanted in *" $name "*) ;; *) continue ;; esac
    echo "== $name: $(field "$entry" 1)" >&2
    [ "$name" != unit ] || build_release_beside_unit
    started=$(date +%s)
    set +e
    ( set -euo pipefail; "stage_$name" ) 2>&1 | tee "$logs/$name.log"
    status=${PIPESTATUS[0]}
    set -e
    seconds=$(( $(date +%s) - started ))
    # The stage's checks as JUnit test cases; a check inconclusive in this
    # run and the one before fails the stage here.
    python3 scripts/test-results.py junit "$name" "$logs/$name.log" "$status" "$seconds" "$results" || status=1
    echo "test.sh: $name took $seconds s" >&2
    # The stages after it take the release build as it is.
    [ "$name" != release ] || [ "$status" -ne 0 ] || export ACCELD_RELEASE_BUILT=1
    if [ "$status" -ne 0 ]; then
        echo "test.sh: the stage '$name' FAILED (exit $status); its last lines:" >&2
        tail -25 "$logs/$name.log" >&2
        summary "$(( $(date +%s) - command_started ))" >&2
        echo "test.sh: stopped at '$name'; its whole log is $logs/$name.log, the results so far in $results/" >&2
        exit 1
    fi
done
summary "$(( $(date +%s) - command_started ))"
