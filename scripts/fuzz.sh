#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzes the request, trace and configuration parsers with libFuzzer for
# FUZZ_SECONDS of a core each (default 60; all at once), starting from the committed corpus in
# Fuzz/corpus (new finds go to a scratch copy, so the tree stays clean).
# A crash fails the run and leaves its input in .build-fuzz/crashes. Linked
# with lld: gold crashes on these binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
seconds=${FUZZ_SECONDS:-60}
export ACCELD_FUZZ=1
# Swift's own backtracer would take the trap's signal before libFuzzer,
# which then never writes the input that crashed.
export SWIFT_BACKTRACE=enable=no
mkdir -p .build-fuzz/crashes
targets=(request trace config)
for target in "${targets[@]}"; do
    swift build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld --product "fuzz-$target" 2>&1 \
        | grep -E "error|Build complete" >&2 || true
    [ -x ".build-fuzz/release/fuzz-$target" ] || { echo "fuzz: building fuzz-$target failed" >&2; exit 1; }
done

# libFuzzer runs on one thread, and its time limit is the wall clock's:
# all the targets at once, for as long as gives each its FUZZ_SECONDS of
# a core (3 targets on 2 cores: 90 s, where two then one took 120).
cores=$(nproc)
wall=$(( seconds * ${#targets[@]} / (cores < ${#targets[@]} ? cores : ${#targets[@]}) ))

# fuzz TARGET: one libFuzzer run; its lines go to .build-fuzz/TARGET.log.
fuzz() {
    local target=$1 scratch status
    scratch=$(mktemp -d)
    set +e
    ".build-fuzz/release/fuzz-$target" "$scratch" "Fuzz/corpus/$target" -max_total_time="$wall" -max_len=4096 \
        -artifact_prefix=".build-fuzz/crashes/$target-" -print_final_stats=1 > ".build-fuzz/$target.log" 2>&1
    status=$?
    set -e
    rm -rf "$scratch"
    return $status
}
failed=()
pids=()
for target in "${targets[@]}"; do
    echo "== fuzz-$target for ${wall} s beside the others, about ${seconds} s of a core (corpus: Fuzz/corpus/$target)"
    fuzz "$target" & pids+=("$!:$target")
done
for entry in "${pids[@]}"; do
    wait "${entry%%:*}" || failed+=("${entry#*:}")
    grep -E "^#[0-9]+ *DONE|stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Test unit written" ".build-fuzz/${entry#*:}.log" \
        | sed "s/^/fuzz-${entry#*:}: /" || true
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: ${failed[*]/#/fuzz-} found a crash: the input is in .build-fuzz/crashes/, the log in .build-fuzz/TARGET.log" >&2; exit 1; }
