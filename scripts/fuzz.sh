#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzes the request, trace and configuration parsers with libFuzzer for
# FUZZ_SECONDS each (default 60), starting from the committed corpus in
# Fuzz/corpus (new finds go to a scratch copy, so the tree stays clean).
# A crash fails the run and leaves its input in .build-fuzz/crashes. Linked
# with lld: gold crashes on these binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
seconds=${FUZZ_SECONDS:-60}
export ACCELD_FUZZ=1
mkdir -p .build-fuzz/crashes
for target in request trace config; do
    swift build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld --product "fuzz-$target" 2>&1 \
        | grep -E "error|Build complete" >&2 || true
    binary=.build-fuzz/release/fuzz-$target
    [ -x "$binary" ] || { echo "fuzz: building fuzz-$target failed" >&2; exit 1; }
    scratch=$(mktemp -d)
    echo "== fuzz-$target for ${seconds} s (corpus: Fuzz/corpus/$target)"
    "$binary" "$scratch" "Fuzz/corpus/$target" -max_total_time="$seconds" -max_len=4096 \
        -artifact_prefix=.build-fuzz/crashes/$target- -print_final_stats=1 2>&1 \
        | grep -E "^#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Test unit written" || true
    status=${PIPESTATUS[0]}
    rm -rf "$scratch"
    [ "$status" -eq 0 ] || { echo "fuzz: fuzz-$target found a crash (exit $status): .build-fuzz/crashes/" >&2; exit 1; }
done
