#!/usr/bin/env bash
# The whole test suite: unit and end-to-end tests on the chip model, and the
# CI2C shim against this machine's kernel. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3-minimal runs the unprivileged client of one end-to-end test (as
# nobody); systemd provides systemd-analyze for the unit file checks; tmux
# runs accelctl watch in a real terminal.
source scripts/setup.sh python3-minimal systemd tmux

# Runs a command, hiding lines that match $2, and fails with its status.
quietly() {
    local filter=$1; shift
    set +e
    "$@" 2>&1 | grep -vE "$filter"
    local status=${PIPESTATUS[0]}
    set -e
    [ "$status" -eq 0 ] || { echo "test.sh: '$*' failed (exit $status)" >&2; exit "$status"; }
}

echo "== swift build (the end-to-end tests run the built binaries)" >&2
quietly '^\[[0-9]+/[0-9]+\]' swift build

echo "== swift test" >&2
quietly '^[[:space:]]*(◇|↳)' swift test
