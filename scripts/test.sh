#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: the kernel-in-the-loop stage (a real Linux kernel's
# i2c-dev under QEMU), the package test (lintian, piuparts), the boot test
# (the Debian package under a real systemd, QEMU, with the upgrade from the
# previous release), the arm64 stage (the cross-build, its package, and
# the same boot on an emulated arm64 board), the parsers under libFuzzer, then unit and end-to-end
# tests on the chip model, the gateway's tests with a real browser and
# Prometheus (scripts/gateway/), acceld-sensorproxy's with monitor-sensor on
# a private D-Bus (scripts/sensorproxy/), and the Python client's tests
# (clients/python).
# Installs what it needs first. docs/TESTING.md describes the stages.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3-minimal runs the unprivileged client of one end-to-end test (as
# nobody); systemd provides systemd-analyze for the unit file checks; tmux
# runs accelctl watch in a real terminal.
source scripts/setup.sh python3-minimal systemd tmux

# stage NAME: prints "== NAME", and how long the stage before it took
# (docs/TESTING.md keeps these figures); stage "" ends the last one.
command_started=$(date +%s) stage_started=$(date +%s) stage_name=""
stage() {
    local now; now=$(date +%s)
    [ -z "$stage_name" ] || echo "test.sh: ${stage_name%%:*} took $(( now - stage_started )) s" >&2
    stage_name=$1 stage_started=$now
    [ -z "$1" ] || echo "== $1" >&2
}

# Runs a command, hiding lines that match $2, and fails with its status.
quietly() {
    local filter=$1; shift
    set +e
    "$@" 2>&1 | grep -vE "$filter"
    local status=${PIPESTATUS[0]}
    set -e
    [ "$status" -eq 0 ] || { echo "test.sh: '$*' failed (exit $status)" >&2; exit "$status"; }
}

stage "the module graph: README.md against Package.swift, and no dependency unused"
python3 scripts/module-graph.py --check

stage "kernel in the loop: acceld and accelctl on a real kernel's i2c-dev (QEMU, i2c-stub)"
if [ "${ACCELD_SKIP_KERNEL:-}" = 1 ]; then
    echo "test.sh: ACCELD_SKIP_KERNEL=1: the kernel stage is skipped (CI never sets it)" >&2
else
    ./scripts/kernel-test.sh
fi

stage "package test: lintian and piuparts on make deb's package (bookworm chroot)"
if [ "${ACCELD_SKIP_PACKAGE:-}" = 1 ]; then
    echo "test.sh: ACCELD_SKIP_PACKAGE=1: the package test is skipped (CI never sets it)" >&2
else
    ./scripts/package-test.sh
fi

stage "boot test: the Debian package under a real systemd (debootstrap, QEMU)"
if [ "${ACCELD_SKIP_BOOT:-}" = 1 ]; then
    echo "test.sh: ACCELD_SKIP_BOOT=1: the boot test is skipped (CI never sets it)" >&2
else
    ./scripts/boot-test.sh
fi

stage "arm64: make arm64 (Debian's Swift in a sid chroot), make deb ARCH=arm64 with lintian, and the arm64 boot test (QEMU virt, Cortex-A53)"
./scripts/arm64-test.sh

stage "fuzzing the request, trace and configuration parsers (libFuzzer, ${FUZZ_SECONDS:-60} s each)"
./scripts/fuzz.sh

stage "swift build (the end-to-end tests run the built binaries)"
quietly '^\[[0-9]+/[0-9]+\]' swift build

stage "swift test"
quietly '^[[:space:]]*(◇|↳)' swift test

stage "acceld-gateway: the live page in headless Chromium, Prometheus, hostile HTTP (scripts/gateway/)"
./scripts/gateway-test.sh

stage "acceld-sensorproxy: iio-sensor-proxy's D-Bus interface on a private bus, with Debian's monitor-sensor, gdbus and dbus-send (scripts/sensorproxy/)"
./scripts/sensorproxy-test.sh

stage "Python client: pytest against acceld on the chip model, the examples, pip install (clients/python)"
./scripts/python-client-test.sh
stage ""
echo "test.sh: every stage passed in $(( $(date +%s) - command_started )) s" >&2
