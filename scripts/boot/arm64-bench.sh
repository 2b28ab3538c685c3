#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs inside the emulated arm64 guest instead of arm64-checks.sh when
# ACCELD_ARM64_BENCH=1 (scripts/arm64-boot-test.sh): the package installed,
# acceld at 400 Hz on the chip emulator's LIS302DL under systemd, then
# `accel-bench pipeline` and a `accel-bench load` of 4 clients taking every
# frame (as scripts/bench.sh's live runs). TCG on a Cortex-A53 is no board:
# the figures compare arm64 builds with each other, not with hardware.
# BENCH_PIPELINE_ARGS and BENCH_LOAD_SECONDS come from the payload's
# bench.env. Last line: "BENCH-CHECKS: N passed, M failed".
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
. /payload/guest-lib.sh
. /payload/arm64-lib.sh
booted=$(cut -d. -f1 /proc/uptime)
. /payload/bench.env
bench=/payload/accel-bench

echo "systemd $(systemctl --version | head -1 | cut -d' ' -f2), kernel $(uname -r), uname -m $(uname -m), $(nproc) CPUs"
out=$(apt-get install -y /payload/acceld_*_arm64.deb 2>&1); status=$?
echo "$out" | grep -E "^(Setting up acceld|E:)"
check "apt-get install ./acceld_*_arm64.deb" [ $status = 0 ]
emu_start
echo tilt > "$EMU/emu-0x1c/motion"
point_at_emulator
sed -i -E 's/^rate = (100|auto)$/rate = 400/' /etc/acceld/acceld.conf  # auto since issue 28, 100 before
out=$(ask); echo "$out"
within 20 is_active
check "acceld.service is active on the emulator's LIS302DL at 400 Hz" \
    sh -c 'is_active() { [ "$(systemctl is-active acceld.service)" = active ]; }; is_active && echo "$0" | grep -q "\"rate\":400"' "$out"
pid=$(show MainPID)

echo "== accel-bench pipeline $BENCH_PIPELINE_ARGS"
started=$(date +%s)
out=$($bench pipeline $BENCH_PIPELINE_ARGS 2>&1); echo "$out"
echo "(took $(( $(date +%s) - started )) s)"
check "accel-bench pipeline reports samples per second" contains "$out" "^pipeline: .* million samples/s"

echo "== accel-bench load: acceld at 400 Hz on accel_emu, 4 clients taking every frame, $BENCH_LOAD_SECONDS s"
out=$($bench load --socket "$socket" --clients 4 --seconds "$BENCH_LOAD_SECONDS" --pid "$pid" 2>&1); status=$?
echo "$out"
check "accel-bench load ran its $BENCH_LOAD_SECONDS s against acceld (exit $status)" [ $status = 0 -a -n "$out" ]
echo "emulator: $(for f in samples dropped delivered late; do echo -n "$f $(cat $EMU/emu-0x1c/$f) "; done)"
systemctl show acceld.service -p NRestarts -p StatusText

echo "GUEST-TIME: booted in $booted s, the checks ran $(( $(cut -d. -f1 /proc/uptime) - booted )) s"
echo "BENCH-CHECKS: $pass passed, $fail failed"
