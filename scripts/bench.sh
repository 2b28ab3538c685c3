#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmarks that print figures (docs/PERFORMANCE.md has the numbers and
# what they mean). Release build. BENCH_SECONDS sets each live run's length
# (default 60). `scripts/bench.sh fifo` runs only the FIFO comparison
# (FIFO_SECONDS, default 600, per run). `scripts/bench.sh compare REF`
# builds REF's acceld (a commit or tag) once in .build-compare/ and runs
# the load configurations of issue 30 alternating REF and this tree,
# COMPARE_ROUNDS (2) rounds of BENCH_SECONDS each.
set -euo pipefail
cd "$(dirname "$0")/.."
only=${1:-}
ref=${2:-}
set --  # setup.sh takes extra packages from the arguments
source scripts/setup.sh

echo "bench: building release" >&2
swift build -c release --product accel-bench >&2
swift build -c release --product acceld >&2
bench="stdbuf -oL .build/release/accel-bench"
seconds=${BENCH_SECONDS:-60}

echo "== $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%d)"

live() {  # rate clients [client-rate] [part] [latency-ms] [seconds]; ACCELD_BIN, CHURN
    local scratch socket pid
    scratch=$(mktemp -d)
    socket=$scratch/acceld.sock
    "${ACCELD_BIN:-.build/release/acceld}" --simulate demo --rate "$1" ${4:+--part "$4"} --socket "$socket" --calibration-file "$scratch/c.json" \
        --config <(printf '[socket]\nmax-clients = 256\n') 2> "$scratch/log" &
    pid=$!
    for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
    echo "== live: acceld${4:+ as a $4} at $1 Hz on the chip model, $2 clients watching everything${3:+ at $3 Hz}${5:+, allowing $5 ms}${CHURN:+, $CHURN more coming and going each second}, ${6:-$seconds} s"
    $bench load --socket "$socket" --clients "$2" ${3:+--rate "$3"} ${5:+--latency "$5"} ${CHURN:+--churn "$CHURN"} --seconds "${6:-$seconds}" --pid "$pid"
    kill -TERM "$pid"; wait "$pid" || true
    rm -rf "$scratch"
}

# The FIFO against sample by sample, in alternating runs (docs/PERFORMANCE.md):
# 16 full-rate clients that allow 50 ms, on a LIS302DL (no FIFO: the latency
# changes nothing) and a LIS3DH (FIFO, watermark 18); then a LIS3DH at
# 1344 Hz with one client.
fifo() {
    local long=${FIFO_SECONDS:-600}
    live 400 16 "" LIS302DL 50 "$long"
    live 400 16 "" LIS3DH 50 "$long"
    live 1344 1 "" LIS3DH 50 "$long"
}
if [ "$only" = fifo ]; then fifo; exit 0; fi

# Issue 30's load rows, this tree against REF's acceld in alternating runs
# (the same accel-bench drives both): 16 clients taking every frame at once
# on a LIS302DL and on a LIS3DH, 16 allowing 50 ms on the LIS3DH, and 8 with
# 20 more coming and going each second.
compare() {
    [ -n "$ref" ] || { echo "bench: compare needs a commit or tag: scripts/bench.sh compare 10fdfaa" >&2; exit 64; }
    local old=.build-compare/$(git rev-parse --short "$ref")
    if [ ! -x "$old/acceld" ]; then
        echo "bench: building $ref's acceld (release) in $old" >&2
        rm -rf "$old-src"
        mkdir -p .build-compare
        git worktree add --detach "$old-src" "$ref" >&2
        (cd "$old-src" && swift build -c release --product acceld >&2)
        mkdir -p "$old"
        cp "$old-src/.build/release/acceld" "$old/acceld"
        git worktree remove --force "$old-src"
    fi
    for round in $(seq "${COMPARE_ROUNDS:-2}"); do
        for build in "$old/acceld" .build/release/acceld; do
            echo "== round $round: $([ "$build" = .build/release/acceld ] && echo "this tree ($(git rev-parse --short HEAD))" || echo "$ref")"
            ACCELD_BIN=$build live 400 16 "" LIS302DL
            ACCELD_BIN=$build live 400 16 "" LIS3DH
            ACCELD_BIN=$build live 400 16 "" LIS3DH 50
            ACCELD_BIN=$build CHURN=20 live 400 8 "" LIS302DL
        done
    done
}
if [ "$only" = compare ]; then compare; exit 0; fi

$bench pipeline
$bench replay --minutes 10
$bench bus --seconds 10 --rate 400
$bench bus --seconds 10 --rate 100
# The detectors' regression table (docs/ALGORITHMS.md), when the recordings are there.
[ -d ../shared/data ] && $bench signal

# The floor under the live figures: the design's timing and 16 plain
# writes a tick, with no chip, pipeline or JSON; and a plain thread instead
# of the DispatchSourceTimer, for comparison.
$bench floor --seconds 30
$bench floor --seconds 30 --clients 16
$bench floor --seconds 30 --clients 16 --thread
live 400 16
live 400 64 50
live 100 16
FIFO_SECONDS=$seconds fifo
