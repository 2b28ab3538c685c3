# SPDX-License-Identifier: Apache-2.0
# Sourced by guest-checks.sh after lsm6dso-checks.sh: the chip emulator's
# INT pins as GPIO lines (kernel/accel-emu/emu_gpio.c, docs/EMULATOR.md),
# independent of acceld. libgpiod's own tools (Debian bookworm's gpiod
# 1.6: gpiodetect, gpioinfo, gpiofind, gpioget, gpioset, gpiomon, on the
# GPIO v1 uAPI) show them as on a board; gpio-watch
# (scripts/kernel/gpio-watch.c) holds a line through the GPIO v2 uAPI, as
# acceld will, and reads the chip after each edge. Uses check, judge and
# retry_note (guest-lib.sh, emulator-checks.sh) and emulator-lib.sh's
# helpers. Rates are judged from the edges' kernel timestamps against the
# chip's true rate (1e9 / period_ns), within 10 %, never as counts in a
# wall-clock window; a rate check that fails runs again, three times at
# most, and is inconclusive when its third attempt ran while the host
# starved the guest (the chip's clock ran late).
. /emulator-lib.sh

# Three chips, six lines: LIS302DL INT1 and INT2 at offsets 0 and 1, the
# LIS3DH's at 2 and 3, the LSM6DSO's at 4 and 5.
rmmod accel_emu 2>/dev/null
emu_load parts=lis302dl@0x1c,lis3dh@0x18,lsm6dso@0x6b
set -- $(gpiofind lis302dl-0x1c-int1)
GPIOCHIP=$1

# level ADDRESS N: the pin's level now.
level() { set -- $(emu $1 int$2); echo $1; }
set_reg() { $I2CSET -y $EMU_BUS "$@"; }

# 1. The controller and its named lines, as gpioinfo shows a board's.
detect=$(gpiodetect 2>&1)
info=$(gpioinfo accel_emu 2>&1)
echo "$detect"; echo "$info"
names=$(echo "$info" | awk -F'"' '/line +[0-9]+:/ { printf "%s ", $2 }')
inputs=$(echo "$info" | grep -c ' input ')
check "gpioinfo lists the accel_emu controller ($GPIOCHIP) with its 6 named lines, inputs: $names" \
    sh -c 'echo "$0" | grep -q "\[accel_emu\] (6 lines)" && [ "$1" = "lis302dl-0x1c-int1 lis302dl-0x1c-int2 lis3dh-0x18-int1 lis3dh-0x18-int2 lsm6dso-0x6b-int1 lsm6dso-0x6b-int2 " ] && [ "$2" = 6 ]' \
    "$detect" "$names" "$inputs"
out=$(gpioset accel_emu 0=1 2>&1); status=$?
check "a line is an input only: gpioset is refused (exit $status: $out)" [ "$status" != 0 ]

# 2. Data ready on INT1, seen by libgpiod's gpiomon (rising edges), while a
# small reader (gpio-watch -i) reads the chip's STATUS and outputs after
# each event gpiomon prints (-b: a line each as it comes), and after 1 ms
# without one (the two hops, gpiomon then the reader, can take longer than
# a period in a starved guest): each read clears data ready, so the line
# falls, and rises at the next sample.
# Checked over 2 s: the edges come at the chip's rate (within 10 %, from
# their kernel timestamps), gpiomon saw each edge the pin made, and the pin
# rose once per sample read (the emulator's own counts). Then the reader
# stops and nobody reads for 0.5 s: the line stays high (data ready is
# latched until read) and the edges stop (one at most, the sample after
# the last read).
#
# gpiomon_drdy NAME ADDRESS OFFSET: the caller has routed data ready to
# the pin. Sets $result and $exact ("pass|fail figures"), and $late.
gpiomon_drdy() {
    local part=$1 address=$2 offset=$3 mon reader a b c late_a late_b period
    rm -f /tmp/mon-fifo; mkfifo /tmp/mon-fifo
    gpio-watch -i -w 1000 -b $EMU_BUS -a $address -r 0xa7:7 -m 0x08 < /tmp/mon-fifo > /tmp/mon-$address 2>&1 &
    reader=$!
    gpiomon -b -r -F '%e %s %n' $GPIOCHIP $offset > /tmp/mon-fifo 2>&1 &
    mon=$!
    sleep 1
    late_a=$(emu $address late); a=$(emu $address pins)
    sleep 2
    b=$(emu $address pins); late_b=$(emu $address late)
    kill -USR1 $reader
    sleep 0.5
    c=$(emu $address pins)
    kill $mon; wait $mon 2>/dev/null; wait $reader 2>/dev/null
    level=$(gpioget $GPIOCHIP $offset)
    period=$(emu $address period_ns)
    late=$((late_b - late_a))
    reader=$(sed -n 's/^gpio-watch: //p' /tmp/mon-$address)
    # pins: "t_ns samples delivered", then INT1's "level rises falls raised"
    summary=$(awk -v period=$period -v a="$a" -v b="$b" -v c="$c" -v level=$level -v reader="$reader" -v stopped="${reader##* }" '
        BEGIN { split(a, x, " "); split(b, y, " "); split(c, z, " "); t0 = x[1]; t1 = y[1] }
        $1 == 1 { t = $2 * 1e9 + $3; if (t < t0) next
            if (t <= t1) { n++; if (n == 1) first = t; last = t }
            if (t > stopped && stopped > 0) after++ }
        END {
            made = y[2] - x[2]; delivered = y[3] - x[3]; rises = y[5] - x[5]
            rate = n > 1 ? (n - 1) / (last - first) * 1e9 : 0; truth = 1e9 / period; error = rate / truth - 1
            ok = n > 1 && (error < 0 ? -error : error) <= 0.10 && n - rises <= 2 && rises - n <= 2 && after + 0 <= 1 && z[4] == 1 && level == 1
            exact = rises > 0 && rises - delivered <= 2 && delivered - rises <= 2
            printf "%s %s edges at %.1f Hz of the chip'"'"'s %.1f (%+.1f %%): gpiomon saw %d edges in the window, the pin rose %d times, %d samples made, %d read; once nobody read: %d edges, the pin level %d, gpioget %s (reader: %s)\n", \
                (ok ? "pass" : "fail"), (exact ? "pass" : "fail"), rate, truth, error * 100, n, rises, made, delivered, after, z[4], level, reader }' /tmp/mon-$address)
    result="${summary%% *} ${summary#* * }"
    summary=${summary#* }
    exact="${summary%% *} ${summary#* }"
}

# data_ready NAME ADDRESS OFFSET ROUTE: three attempts at most, then judged;
# then the exact part, from the last attempt.
data_ready() {
    local part=$1 address=$2 offset=$3 route=$4 attempt earlier=""
    for attempt in 1 2 3; do
        gpiomon_drdy $part $address $offset
        echo "$part, gpiomon, attempt $attempt: ${result#* }"
        [ "${result%% *}" = pass ] && break
        retry_note $attempt $late
    done
    local what="$part at 400 Hz, data ready routed to INT1 ($route): gpiomon sees rising edges at the chip's rate within 10 % while a reader reads each; with nobody reading the line stays high and the edges stop (${result#* }$earlier)"
    judge "$result" "$what" check "$what" [ "${result%% *}" = pass ]
    check "$part: INT1 rose once per sample read, as data ready is latched until read (${exact#* })" [ "${exact%% *}" = pass ]
}

echo count > $EMU/emu-0x1c/motion
set_reg 0x1c 0x20 0xc7          # CTRL_REG1: 400 Hz, powered, X Y Z
set_reg 0x1c 0x22 0x04          # CTRL_REG3: I1CFG = 100, data ready on INT1
data_ready LIS302DL 0x1c 0 "CTRL_REG3 I1CFG = 100"

echo count > $EMU/emu-0x18/motion
set_reg 0x18 0x20 0x77          # CTRL_REG1: 400 Hz, normal mode, X Y Z
set_reg 0x18 0x22 0x10          # CTRL_REG3: I1_ZYXDA
data_ready LIS3DH 0x18 2 "CTRL_REG3 I1_ZYXDA"

# 3. The GPIO v2 uAPI, as acceld will use it: gpio-watch holds INT1 with
# GPIO_V2_LINE_FLAG_EDGE_RISING and reads the chip after each edge, 2 s,
# and after 1 ms without one (-w 1000: in a starved guest a reader woken
# by the edge alone is often later than a period, measured to lose 10 to
# 30 % of the samples at 400 Hz; the edges are what is checked here).
# Each event's kernel timestamp is compared with the emulator's own
# instant of the newest sample made (phase: sample k at start + k × period
# exactly): the lateness is the hrtimer's, the edge being raised from the
# chip's tick. The `count` motion tells which sample each read found.
#
# v2_watch NAME ADDRESS OFFSET GPIO-WATCH-OPTIONS...: sets $result, $late.
v2_watch() {
    local part=$1 address=$2 offset=$3 late_a period before after out; shift 3
    set -- $(emu $address phase) "$@"
    period=$2
    late_a=$(emu $address late); before=$(emu $address pins)
    out=$(gpio-watch -c /dev/$GPIOCHIP -l $offset -t 2 -b $EMU_BUS -a $address -s $1 -P $2 "$@" 2>&1)
    after=$(emu $address pins); late=$(( $(emu $address late) - late_a ))
    echo "$out"
    set -- $before $after   # pins: INT1's raised is the 7th field
    result=$(echo "$out" | awk -v period=$period -v expect="${V2_EXPECT:-1}" -v late=$late -v raised=$(( ${18} - $7 )) '/^gpio-watch: events/ {
        for (i = 2; i < NF; i += 2) f[$i] = $(i + 1)
        p50 = $(NF - 8); p99 = $(NF - 7); max = $(NF - 6); same = $(NF - 4); later = $(NF - 3); other = $(NF - 2)
        truth = 1e9 / period / expect; rate = f["rising"] > 1 ? (f["rising"] - 1) / f["span_ns"] * 1e9 : 0; error = rate / truth - 1
        ok = (error < 0 ? -error : error) <= 0.10 && f["seq_gaps"] == 0 && f["falling"] == 0 && p50 * 1000 < period / 4
        if (same + later + other > 0) ok = ok && same >= 0.9 * (same + later + other) && other == 0
        printf "%s edges at %.2f Hz of %.2f (%+.1f %%), %d events of the %d interrupts the emulator raised, sequence gaps %d, %d reads (%d found nothing new); timestamp after the sample'"'"'s instant: median %.0f us, p99 %.0f us, max %.0f us (a period is %.0f us); reads of the edge'"'"'s sample %d, of a later one %d, of another %d; the chip'"'"'s clock late %d times", \
            (ok ? "pass" : "fail"), rate, truth, error * 100, f["events"], raised, f["seq_gaps"], f["reads"], f["empty"], p50, p99, max, period / 1000, same, later, other, late }')
    [ -n "$result" ] || result="fail gpio-watch said: $out"
}

# v2_check NAME ADDRESS OFFSET WHAT GPIO-WATCH-OPTIONS...: three attempts at most.
v2_check() {
    local part=$1 address=$2 offset=$3 what=$4 attempt earlier=""; shift 4
    for attempt in 1 2 3; do
        v2_watch $part $address $offset "$@"
        echo "$part, GPIO v2, attempt $attempt: ${result#* }"
        [ "${result%% *}" = pass ] && break
        retry_note $attempt $late
    done
    what="$what (${result#* }$earlier)"
    judge "$result" "$what" check "$what" [ "${result%% *}" = pass ]
}

v2_check LIS302DL 0x1c 0 "GPIO v2 on the LIS302DL's INT1 at 400 Hz: a rising edge per sample read, kernel timestamps at the sample's tick, no sequence gap" \
    -w 1000 -r 0xa7:7 -m 0x08 -x 1:8
# The LIS3DH at 100 Hz: one v2 check at 400 Hz is enough to show the rate,
# and one at a slower rate stays conclusive when the host is busy.
set_reg 0x18 0x20 0x57          # CTRL_REG1: 100 Hz, normal mode, X Y Z
v2_check LIS3DH 0x18 2 "GPIO v2 on the LIS3DH's INT1 at 100 Hz: a rising edge per sample read, kernel timestamps at the sample's tick, no sequence gap" \
    -w 1000 -r 0xa7:7 -m 0x08 -x 1:10

# 4. The LIS3DH's INT2 carries no data ready: CTRL_REG6 takes every bit it
# has (I2_CLICK, I2_IA1, I2_IA2, I2_BOOT, I2_ACT: 0xf8) and keeps them, and
# the pin stays low while INT1 rises for each sample a reader reads.
set_reg 0x18 0x25 0xf8
a=$(emu 0x18 pins)
gpio-watch -p 400 -t 1 -b $EMU_BUS -a 0x18 -r 0xa7:7 -m 0x08 > /dev/null 2>&1
b=$(emu 0x18 pins)
value=$(gpioget $GPIOCHIP 3); reg6=$($I2CGET -y $EMU_BUS 0x18 0x25)
set -- $a $b    # pins: t_ns samples delivered, INT1 level rises falls raised, INT2 the same
made=$(( ${13} - $2 )) rises1=$(( ${16} - $5 )) rises2=$(( ${20} - $9 )) level2=${19}
echo "LIS3DH INT2 with CTRL_REG6 $reg6: pins $a, then $b; gpioget INT2 $value"
check "the LIS3DH's INT2 never carries data ready: CTRL_REG6 keeps $reg6, INT2 rose $rises2 times and reads $level2 (gpioget $value) while INT1 rose $rises1 times for $made samples" \
    [ "$reg6" = 0xf8 -a $rises2 = 0 -a "$level2$value" = 00 -a $rises1 -gt 0 ]
set_reg 0x18 0x25 0x00

# 5. The LSM6DSO: data ready (INT1_DRDY_XL) at 208 Hz, latched until the
# accelerometer's output is read (a read from STATUS_REG through OUTZ_H_A);
# then the FIFO (accelerometer batched at 208 Hz, continuous mode) with its
# watermark at 8 words on INT1 (INT1_FIFO_TH): an edge each 8 samples,
# the FIFO drained after each as st_lsm6dsx does.
echo count > $EMU/emu-0x6b/motion
set_reg 0x6b 0x10 0x50          # CTRL1_XL: 208 Hz, ±2 g
set_reg 0x6b 0x0d 0x01          # INT1_CTRL: INT1_DRDY_XL
v2_check LSM6DSO 0x6b 4 "GPIO v2 on the LSM6DSO's INT1 at 208 Hz (INT1_DRDY_XL): a rising edge per sample read, kernel timestamps at the sample's tick, no sequence gap" \
    -w 1000 -r 0x1e:16 -m 0x01 -x 10:16
set_reg 0x6b 0x07 8             # FIFO_CTRL1: watermark 8 words
set_reg 0x6b 0x09 0x05          # FIFO_CTRL3: the accelerometer batched at 208 Hz
set_reg 0x6b 0x0a 0x06          # FIFO_CTRL4: continuous mode
set_reg 0x6b 0x0d 0x08          # INT1_CTRL: INT1_FIFO_TH
V2_EXPECT=8 v2_check LSM6DSO 0x6b 4 "GPIO v2 on the LSM6DSO's INT1 with the FIFO at 208 Hz (INT1_FIFO_TH, watermark 8): a rising edge each 8 samples, the FIFO drained after each" \
    -d lsm6dso
set_reg 0x6b 0x0a 0x00          # FIFO_CTRL4: bypass

# 6. Polarity: data ready routed and nobody reading, the pin is high;
# active low (LIS302DL IHL, LIS3DH INT_POLARITY, LSM6DSO H_LACTIVE) drives
# it low, as gpioget reads it, and gpioget --active-low reads 1.
# polarity NAME ADDRESS OFFSET REG HIGH LOW: REG written HIGH then LOW.
polarity() {
    local part=$1 address=$2 offset=$3 reg=$4 high=$5 low=$6 l1 g1 l2 g2 g2l
    set_reg $address $reg $high; sleep 0.05
    l1=$(level $address 1); g1=$(gpioget $GPIOCHIP $offset)
    set_reg $address $reg $low; sleep 0.05
    l2=$(level $address 1); g2=$(gpioget $GPIOCHIP $offset); g2l=$(gpioget -l $GPIOCHIP $offset)
    echo "$part polarity: $reg=$high level $l1 (gpioget $g1), $reg=$low level $l2 (gpioget $g2, -l $g2l)"
    check "$part: active low ($reg $high -> $low) inverts INT1: data ready waiting, the pin reads $l1 then $l2 (gpioget $g1 then $g2, --active-low $g2l)" \
        [ "$l1$g1$l2$g2$g2l" = 11001 ]
}
set_reg 0x1c 0x22 0x04
polarity LIS302DL 0x1c 0 0x22 0x04 0x84
set_reg 0x18 0x22 0x10
polarity LIS3DH 0x18 2 0x25 0x00 0x02
set_reg 0x6b 0x0d 0x01
polarity LSM6DSO 0x6b 4 0x12 0x04 0x24

# 7. Wake-up: each part's own inertial or wake-up function routed to INT1,
# latched, the board at rest (0 0 1000 mg). gpio-watch holds the line
# (rising edges, no reads) while the force steps to 500 0 1000 mg: one
# rising edge, after the step, none before; the source register says which
# event; the pin stays high once the force is back at rest (latched) and
# falls when the source register is read. The delay from the step to the
# edge is shown in periods (the next sample's, and the timer's latency).
#
# wake_check NAME ADDRESS OFFSET SOURCE EXPECTED WHAT REGISTER=VALUE...:
# the registers are written in order, then the source is read once.
wake_check() {
    local part=$1 address=$2 offset=$3 source=$4 expected=$5 what=$6 watch step period l_high l_rest l_read got
    shift 6
    echo "0 0 1000" > $EMU/emu-$address/motion
    for write in "$@"; do set_reg $address ${write%=*} ${write#*=}; done
    sleep 0.1
    $I2CGET -y $EMU_BUS $address $source > /dev/null
    gpio-watch -c /dev/$GPIOCHIP -l $offset -e rising -t 2 -v > /tmp/wake-$address 2>&1 &
    watch=$!
    sleep 0.8
    step=$(cat $EMU/emu-$address/phase)
    echo "500 0 1000" > $EMU/emu-$address/motion
    sleep 0.3
    l_high=$(level $address 1)
    echo "0 0 1000" > $EMU/emu-$address/motion
    sleep 0.1
    l_rest=$(level $address 1)
    got=$($I2CGET -y $EMU_BUS $address $source)
    sleep 0.05
    l_read=$(level $address 1)
    wait $watch
    set -- $step
    result=$(awk -v t=$4 -v period=$2 -v levels="$l_high$l_rest$l_read" -v got=$got -v expected=$expected '
        $1 == "EVENT" && $5 == "rising" { if ($2 < t) before++; else { after++; if (after == 1) first = $2 } }
        END { delay = after ? (first - t) / period : -1
            printf "%s %d rising edges after the step (%.2f periods after it), %d before; source %s; the pin %s high, back at rest %s, after the source was read %s", \
                (after == 1 && before + 0 == 0 && got == expected && levels == "110" ? "pass" : "fail"), after, delay, before, got, \
                substr(levels, 1, 1), substr(levels, 2, 1), substr(levels, 3, 1) }' /tmp/wake-$address)
    echo "$part wake-up: ${result#* }; $(tail -1 /tmp/wake-$address)"
    check "$part: $what on INT1, latched: one rising edge when the force steps from 0 to 500 mg on X, the source register $expected, the pin held until it is read (${result#* })" \
        [ "${result%% *}" = pass ]
}
# LIS302DL, 100 Hz: FF_WU_1 on X high over 14 × 18 mg (FF_WU_CFG_1 LIR | XHIE), I1CFG = 001.
wake_check LIS302DL 0x1c 0 0x31 0x42 "FF_WU_1 (X high over 252 mg)" \
    0x20=0x47 0x22=0x01 0x32=14 0x33=0 0x30=0x42
# LIS3DH, 100 Hz: IA1 on X high over 16 × 16 mg (INT1_CFG XHIE, CTRL_REG5 LIR_INT1), I1_IA1.
wake_check LIS3DH 0x18 2 0x31 0x42 "IA1 (X high over 256 mg)" \
    0x20=0x57 0x23=0x00 0x25=0x00 0x24=0x08 0x32=16 0x33=0 0x30=0x02 0x22=0x40
# LSM6DSO, 104 Hz: wake-up on a slope over 2 × 31.25 mg (TAP_CFG0 LIR, TAP_CFG2
# INTERRUPTS_ENABLE), MD1_CFG INT1_WU.
wake_check LSM6DSO 0x6b 4 0x1b 0x0c "the wake-up (a slope over 62.5 mg)" \
    0x12=0x04 0x0d=0x00 0x10=0x40 0x56=0x01 0x58=0x80 0x5b=2 0x5c=0 0x5e=0x20
rmmod accel_emu
