# SPDX-License-Identifier: Apache-2.0
# Sourced by guest-checks.sh after gpio-checks.sh: acceld paced by the chip
# emulator's INT lines through the GPIO character device ([device]
# interrupt, issue 38), on the LIS302DL, the LIS3DH and the LSM6DSO. For
# each: gpioinfo names acceld as the line's consumer; over a window every
# sample the chip made is a frame or a counted gap, each frame's step is
# the chip's own (the `count` motion), one read per sample at most; each
# frame's stamp is set against the emulator's own instants (phase_start_ns
# + n × period_ns); SIGTERM exits 0, lets go of the line and leaves the
# chip's routing as acceld found it. The timer-paced path's stamps are
# measured the same way, for docs/PERFORMANCE.md. Busybox sh and awk.
. /emulator-lib.sh

rmmod accel_emu 2>/dev/null
emu_load parts=lis302dl@0x1c,lis3dh@0x18,lsm6dso@0x6b
emu_ppm 10000

# stamp_errors FILE T0 T1 START PERIOD: each frame's t (between T0 and T1,
# ns) against the nearest true instant START + n × PERIOD: "frames p50 p99
# max" in µs, from a histogram of 5 µs bins (busybox awk cannot sort).
stamp_errors() {
    awk -F'"seq":|,"t":|,"acc":\\[' -v t0="$2" -v t1="$3" -v start="$4" -v period="$5" '
        /^\{"class":"frame"/ {
            t = $3 * 1e9
            if (t > t1) exit
            if (t <= t0) next
            k = int((t - start) / period + 0.5); e = t - start - k * period; if (e < 0) e = -e
            bin = int(e / 5000); if (bin > 4000) bin = 4000
            count[bin]++; n++; if (e > worst) worst = e }
        END {
            for (bin = 0; bin <= 4000; bin++) {
                seen += count[bin]
                if (!p50 && seen >= 0.5 * n) p50 = (bin + 1) * 5
                if (!p99 && seen >= 0.99 * n) p99 = (bin + 1) * 5
            }
            printf "%d %d %d %d\n", n, p50, p99, worst / 1000 }' "$1"
}

# paced_run NAME ADDRESS LINE RATE [ACCELD OPTIONS]: acceld on the chip at
# ADDRESS, paced by LINE when LINE is not "timer"; sets $result ("pass|fail
# figures"), $stamps ("frames p50 p99 max"), $consumer (gpioinfo's line
# while acceld ran), $status (acceld's exit) and $late.
paced_run() {
    local name=$1 address=$2 line=$3 rate=$4 period start; shift 4
    local pacing="--interrupt accel_emu:$line"
    [ "$line" = timer ] && pacing=""
    start_daemon $name --bus $EMU_BUS --address $address --rate $rate $pacing "$@" || { result="fail acceld did not start"; return; }
    consumer=$([ "$line" = timer ] || gpioinfo accel_emu | grep "\"$line\"")
    watch_chip $name $address
    end_client
    # The chip's phase while acceld runs (it powers the chip down at exit).
    period=$(emu $address period_ns); start=$(emu $address phase_start_ns); period_us=$((period / 1000))
    kill -TERM $daemon; wait $daemon; status=$?
    stamps=$(stamp_errors /tmp/$name-stream ${a%% *} ${b%% *} $start $period)
    late=$((late_b - late_a))
    result=$(echo "$a $b $period $(stream_summary /tmp/$name-stream ${a%% *} ${b%% *} $count) $stamps" | awk -v late=$late '{
        made = $9 - $2; frames = $16; gaps = $18; reads = ($21 > 0 ? $22 / $21 : 0); counted = frames + gaps - made
        ok = counted <= 2 && counted >= -2 && $26 == 0 && $19 == 0 && reads <= 1.02 && $31 * 1000 < 0.25 * $15
        printf "%s made %d = %d frames + %d gaps, frames whose step was not the chip'"'"'s %d, reads/sample %.3f, stamps against the chip'"'"'s instants p50 %d µs, p99 %d µs, max %d µs (period %d µs; the chip'"'"'s clock late %d times)", \
            (ok ? "pass" : "fail"), made, frames, gaps, $26, reads, $30, $31, $32, $15 / 1000, late }')
    echo "$name: ${result#* }"
}

# interrupt_check PART ADDRESS LINE RATE [ACCELD OPTIONS]: paced_run, three
# attempts at most, judged as the phase lock's checks are (judge).
interrupt_check() {
    local part=$1 address=$2 line=$3 rate=$4 attempt earlier=""; shift 4
    for attempt in 1 2 3; do
        paced_run int $address $line $rate "$@"
        [ "${result%% *}" = pass ] && break
        retry_note $attempt $late
    done
    local what="$part at $rate Hz paced by its INT1 on $line: every sample a frame or a counted gap, each step the chip's, at most one read a sample, stamps within a quarter period of the chip's instants (${result#* }$earlier)"
    judge "$result" "$what" check "$what" [ "${result%% *}" = pass ]
    check "$part: gpioinfo names acceld as $line's consumer while it runs ($consumer)" contains "$consumer" '"acceld"'
    local after; after=$(gpioinfo accel_emu | grep "\"$line\"")
    check "$part: SIGTERM while acceld waits on the line: exit $status, the line let go ($after)" sh -c '[ '$status' = 0 ] && echo "$0" | grep -q unused' "$after"
}

# The LIS302DL: someone else's data ready on INT2 (CTRL_REG3 I2CFG = 100),
# which acceld must leave as it found it.
echo count > $EMU/emu-0x1c/motion
count="256 0.018"
$I2CSET -y $EMU_BUS 0x1c 0x22 0x20
interrupt_check LIS302DL 0x1c lis302dl-0x1c-int1 400
routing=$($I2CGET -y $EMU_BUS 0x1c 0x22)
check "LIS302DL: acceld left CTRL_REG3 as it found it, INT2's data ready routed ($routing)" [ "$routing" = 0x20 ]
$I2CSET -y $EMU_BUS 0x1c 0x22 0x00

# The same chip paced by acceld's timer, for the stamps' comparison (its
# phase lock's probes make it read more than once a sample: only the
# stamps are judged here; the phase lock's own checks judge the rest).
paced_run timer 0x1c timer 400
check "LIS302DL at 400 Hz paced by the timer, for comparison: its stamps within a quarter period of the chip's instants too (${result#* })" \
    sh -c 'set -- $0; [ $3 -lt $(($1 / 4)) ]' "$period_us $stamps"

echo count > $EMU/emu-0x18/motion
count="4096 0.001"
interrupt_check LIS3DH 0x18 lis3dh-0x18-int1 400 --part LIS3DH

echo count > $EMU/emu-0x6b/motion
count="65536 0.000488"
interrupt_check LSM6DSO 0x6b lsm6dso-0x6b-int1 416 --range 16

# A line that never fires (INT2 wired, INT1 routed): exit 74, naming the
# line and the pin.
out=$(acceld --bus $EMU_BUS --address 0x1c --socket /tmp/silent.sock --interrupt accel_emu:lis302dl-0x1c-int2 2>&1); status=$?
echo "$out" | tail -1
check "a line that never fires stops acceld with exit 74, naming the line and the pin" \
    sh -c '[ '$status' = 74 ] && echo "$0" | grep -q "no edge on gpiochip[0-9]* line 1 (lis302dl-0x1c-int2) within a second"' "$out"
out=$(acceld --bus $EMU_BUS --address 0x1c --socket /tmp/silent.sock --interrupt accel_emu:nosuchline 2>&1); status=$?
check "a line the chip does not have: exit 78, with what to give instead" \
    sh -c '[ '$status' = 78 ] && echo "$0" | grep -q "no GPIO line is named .nosuchline.\|has no line .nosuchline."' "$out"
out=$(accelctl probe --bus $EMU_BUS --only-bus --part LIS302DL --interrupt accel_emu:lis302dl-0x1c-int2 2>&1); status=$?
echo "$out" | grep INT
check "accelctl probe --interrupt finds that INT2 reaches the line and INT1 is wired nowhere" \
    sh -c 'echo "$0" | grep -q "INT2 reaches gpiochip[0-9]* line 1 (lis302dl-0x1c-int2)" && echo "$0" | grep -q "INT1 is wired nowhere"' "$out"
emu_ppm 0
