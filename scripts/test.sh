#!/usr/bin/env bash
# The whole test suite: unit and end-to-end tests on the chip model, and the
# CI2C shim against this machine's kernel. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

echo "== swift test" >&2
# "started" lines are noise in a CI log; swift test's own status decides.
set +e
swift test 2>&1 | grep -vE '^[[:space:]]*(◇|↳)'
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "test.sh: swift test failed (exit $status)" >&2; exit "$status"; }
