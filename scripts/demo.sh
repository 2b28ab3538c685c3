#!/usr/bin/env bash
# The main job on the simulated chip: builds acceld, then runs it on the
# chip model (asked for explicitly with --simulate) and prints what it reads.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

echo "demo: building acceld (first build takes a minute or two)" >&2
swift build -c release --product acceld >&2
exec .build/release/acceld sample --simulate "${1:-demo}" --seconds "${SECONDS_TO_RUN:-10}" --every 10
