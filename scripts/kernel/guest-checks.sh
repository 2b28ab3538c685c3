#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the QEMU guest (busybox, a real Debian kernel, i2c-stub):
# the project's own binaries against /dev/i2c-0, then against the chip
# emulator's adapter (emulator-checks.sh). Each check prints
# "CHECK PASS|FAIL: name"; the last line counts them. i2c-tools are called
# by absolute path: busybox's built-in i2cget would shadow them.
PATH=/bin:/sbin:/usr/bin:/usr/sbin
I2CGET=/usr/sbin/i2cget I2CSET=/usr/sbin/i2cset I2CDUMP=/usr/sbin/i2cdump I2CDETECT=/usr/sbin/i2cdetect
STUB_BUS=0
insert_stub() { insmod /lib/modules/i2c-stub.ko "$@"; }
. /guest-lib.sh
# How long each part of the run took on the guest's clock: the stage's
# time is mostly this guest's (docs/TESTING.md, Times).
section_began=$(cut -d' ' -f1 /proc/uptime)
took() {
    local now; now=$(cut -d' ' -f1 /proc/uptime)
    echo "guest: $1 took $(awk -v a=$section_began -v b=$now 'BEGIN { printf "%.0f", b - a }') s"
    section_began=$now
}

insmod /lib/modules/i2c-dev.ko
insmod /lib/modules/i2c-smbus.ko
load_stub
echo "kernel $(uname -r); adapters: $(ls /dev/i2c-*)"

finish() {
    [ $unsure = 0 ] || echo "kernel-test: $unsure timing check(s) inconclusive: the host starved the guest in every attempt (see CHECK INCONCLUSIVE above)"
    echo "KERNEL-CHECKS: $pass passed, $fail failed"
    exit 0
}
# While working on one section: ACCELD_KERNEL_ONLY="interrupt-checks.sh"
# (scripts/kernel-test.sh) runs only those of the files below.
if [ -s /only ]; then
    for section in $(cat /only); do . "/$section"; done
    finish
fi

# 1. probe finds the chip through CI2C, and reads I2C_FUNCS as the kernel reports them.
out=$(accelctl probe --bus 0 --only-bus 2>&1); status=$?
echo "$out"
check "probe finds WHO_AM_I 0x3b at 0x1c on /dev/i2c-0" sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "found LIS302DL/LIS331DL at 0x1c on /dev/i2c-0"' "$out"
funcs=$($I2CDETECT -F 0)
echo "$funcs" | grep -E "I2C block read|SMBus Read Byte"
kernel_block=$(echo "$funcs" | grep "I2C Block Read" | grep -q yes && echo yes || echo no)
check "I2C_FUNCS read and understood (I2C block read: $kernel_block, as i2cdetect -F says)" contains "$out" "I2C block read $kernel_block"

# 2. configure writes the whole configuration (over garbage left behind) and reads it back.
$I2CSET -y 0 0x1c 0x21 0x10; $I2CSET -y 0 0x1c 0x22 0x24
out=$(acceld sample --bus 0 --range 8 --rate 400 --seconds 0.1 2>&1); status=$?
echo "$out" | head -3
r1=$($I2CGET -y 0 0x1c 0x20); r2=$($I2CGET -y 0 0x1c 0x21); r3=$($I2CGET -y 0 0x1c 0x22)
echo "after sample: CTRL_REG1=$r1 CTRL_REG2=$r2 CTRL_REG3=$r3"
check "configure wrote CTRL_REG1..3 (read back, then powered down: 0xa7 0x00 0x00)" [ "$status" = 0 -a "$r1" = 0xa7 -a "$r2" = 0x00 -a "$r3" = 0x00 ]
check "samples from the I2C block read convert at ±8 g (56 digits = 4.032 g)" contains "$out" "4.032"

# 3. errors from the kernel, each with its own advice and exit code.
out=$(acceld sample --bus 0 --address 0x1d --seconds 0.1 2>&1); status=$?
echo "$out"
check "a wrong address gives 'nothing answers' (exit 68)" sh -c '[ '$status' = 68 ] && echo "$0" | grep -q "nothing answers at 0x1d"' "$out"
out=$(acceld sample --bus 7 2>&1); status=$?
check "a missing bus gives its advice (exit 69)" sh -c '[ '$status' = 69 ] && echo "$0" | grep -q "no I2C bus at /dev/i2c-7"' "$out"

# 4. dump's raw values are i2cdump's.
dump=$(accelctl dump --bus 0 2>&1)
echo "$dump" | head -6
table=$($I2CDUMP -y 0 0x1c b)
# (busybox awk has no strtonum: hex by hand)
mismatches=$(echo "$dump" | awk -v table="$table" '
    function h(s,   i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
    BEGIN { n = split(table, rows, "\n"); for (i = 2; i <= n; i++) { split(rows[i], c, " "); base = h(substr(c[1], 1, 2)); for (j = 0; j < 16; j++) v[base + j] = c[j + 2] } }
    /^0x[0-9a-f][0-9a-f]  / && $3 ~ /^0x/ { a = h($1); if (("0x" v[a]) != $3) { print $1, $2, $3, "i2cdump:", v[a]; bad++ } ; seen++ }
    END { print "compared", seen + 0 }')
echo "$mismatches"
check "dump's raw values equal i2cdump's" sh -c 'echo "$0" | grep -q "compared [1-9]" && ! echo "$0" | grep -q i2cdump:' "$mismatches"

# 5. acceld on the real bus: a client gets the registers' values in g.
acceld --bus 0 --socket /tmp/acceld.sock --calibration-file /tmp/calibration.json 2>/tmp/acceld.log &
daemon=$!
for i in $(seq 50); do [ -S /tmp/acceld.sock ] && break; sleep 0.1; done
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames --count 3 2>&1)
echo "$frames" | head -1
check "a client of acceld gets 56/-56/-128 digits as 1.008/-1.008/-2.304 g at ±2 g" contains "$frames" '"acc":\[1.0080,-1.0080,-2.3040\]'
set_burst_sample 0x01 0xff 0x7f
sleep 0.3
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames --count 2 2>&1)
check "a feeder's new register values reach the client (1/-1/127 digits)" contains "$frames" '"acc":\[0.0180,-0.0180,2.2860\]'
# i2c-stub's STATUS never clears its data-ready bit: acceld must still
# publish one sample per chip period, never duplicates (issue 13).
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames device --seconds 4 2>&1)
rate=$(echo "$frames" | awk -F'"seq":|,"t":|,"acc"' '/"class":"frame"/ { n++; if (!first) { s0 = $2; t0 = $3; first = 1 } s1 = $2; t1 = $3 }
    END { if (t1 > t0) printf "%.1f %.1f %d %d", (n - 1) / (t1 - t0), (s1 - s0) / (t1 - t0), n, s1 - s0 + 1 }')
state=$(accelctl status --socket /tmp/acceld.sock --json 2>&1 | grep -o '"impossibleReady":[0-9]*')
echo "frames/s, seq/s, frames, seq span: $rate; $state"
check "a data-ready bit stuck at 1 (i2c-stub): frames at the ODR within 2 %, none twice ($rate; $state)" sh -c 'set -- $0; awk -v f=$1 -v s=$2 -v n=$3 -v span=$4 "BEGIN { exit !(f <= 102 && s >= 98 && s <= 102 && n <= span) }"' "$rate"
out=$(accelctl configure --socket /tmp/acceld.sock --range 8 2>&1); echo "$out"
sleep 0.3
frames=$(accelctl events --socket /tmp/acceld.sock --json --streams frames --count 2 2>&1)
check "after configure --range 8 the same digits read 72 mg each" contains "$frames" '"acc":\[0.0720,-0.0720,9.1440\]'
kill -TERM $daemon; wait $daemon; status=$?
r1=$($I2CGET -y 0 0x1c 0x20)
echo "acceld exited $status; CTRL_REG1=$r1"
check "SIGTERM: acceld exits 0 and powers the chip down (PD clear: 0x27)" [ "$status" = 0 -a "$r1" = 0x27 ]
cat /tmp/acceld.log

# 6. an adapter without I2C block reads: a clear refusal, or byte reads when allowed.
load_stub 0x007f0000
set_sample 0x38 0xc8 0x80
out=$(acceld sample --bus 0 --seconds 0.1 2>&1); status=$?
echo "$out"
check "without I2C block reads acceld says why and how (exit 72)" sh -c '[ '$status' = 72 ] && echo "$0" | grep -q "lacks I2C block reads"' "$out"
out=$(acceld sample --bus 0 --seconds 0.1 --allow-byte-reads 2>&1); status=$?
echo "$out" | head -3
check "--allow-byte-reads falls back to byte reads and converts the same" sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "1.008"' "$out"
load_stub

# 7. the kernel's own lis3lv02d driver as a peer: same registers, same g.
insmod /lib/modules/lis3lv02d.ko
insmod /lib/modules/lis3lv02d_i2c.ko
echo lis3lv02d 0x1c > /sys/bus/i2c/devices/i2c-0/new_device
sleep 0.5
position=/sys/devices/platform/lis3lv02d/position
if [ -r $position ]; then
    kernel=""
    for s in "0x38 0xc8 0x80" "0x01 0xff 0x7f" "0x10 0xf0 0x00"; do
        set_sample $s
        kernel="$kernel $(cat $position)"
    done
    echo "kernel positions (mg):$kernel"
    echo 0x1c > /sys/bus/i2c/devices/i2c-0/delete_device
    ours=""
    for s in "0x38 0xc8 0x80" "0x01 0xff 0x7f" "0x10 0xf0 0x00"; do
        set_sample $s
        ours="$ours $(acceld sample --bus 0 --seconds 0.05 --every 1 2>/dev/null | awk 'function mg(g) { return int(g * 1000 + (g < 0 ? -0.5 : 0.5)) } !/^#/ { printf "(%d,%d,%d)", mg($5), mg($6), mg($7); exit }')"
    done
    echo "acceld positions (mg):$ours"
    check "acceld's conversion agrees with the kernel's lis3lv02d (mg at ±2 g)" [ "$kernel" = "$ours" ]
else
    bad "the kernel's lis3lv02d did not bind to the stub chip ($(dmesg | grep -i lis3 | tail -2))"
fi

# 8. A LIS3DH at 0x18 beside the LIS302DL at 0x1c, on one stub adapter.
# i2c-stub knows nothing of the auto-increment bit, so a burst from 0xA7
# reads its own entries 0xA7..0xAD: the sample is seeded there (and at the
# 0x80 aliases the kernel's st_accel reads through regmap), 12 bits
# left-justified, little-endian: x = +1000, y = -500, z = -2048 digits.
rmmod i2c-stub
insert_stub chip_addr=0x1c,0x18
$I2CSET -y 0 0x1c 0x0f 0x3b
set_burst_sample 0x38 0xc8 0x80
seed_lis3dh() {  # x_l x_h y_l y_h z_l z_h
    for a in 0x0f 0x8f; do $I2CSET -f -y 0 0x18 $a 0x33; done
    for a in 0x27 0xa7; do $I2CSET -f -y 0 0x18 $a 0x0f; done
    i=0
    for v in "$@"; do $I2CSET -f -y 0 0x18 $((0xa8 + i)) $v; i=$((i + 1)); done
}
seed_lis3dh 0x80 0x3e 0xc0 0xe0 0x00 0x80
out=$(accelctl probe --bus 0 --only-bus 2>&1); status=$?
echo "$out"
check "probe finds both: the LIS3DH family at 0x18 and the LIS302DL at 0x1c" sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "0x18: WHO_AM_I 0x33: LIS3DH or LIS2DH12" && echo "$0" | grep -q "0x1c: WHO_AM_I 0x3b: LIS302DL"' "$out"
out=$(acceld sample --bus 0 --address 0x18 --seconds 0.1 2>&1); status=$?
echo "$out" | head -2
check "WHO_AM_I 0x33 without --part is refused, naming the candidates (exit 78)" sh -c '[ '$status' = 78 ] && echo "$0" | grep -q "LIS3DH, LIS2DH12 all answer with"' "$out"
for range in "2 1.000 -0.500 -2.048" "8 4.000 -2.000 -8.192"; do
    set -- $range
    out=$(acceld sample --bus 0 --address 0x18 --part LIS3DH --range $1 --seconds 0.1 --every 1 2>&1); status=$?
    echo "$out" | head -3
    got=$(echo "$out" | grep -v '^#' | head -1 | awk '{ print $2, $3, $4, $5, $6, $7 }')
    check "acceld sample --part LIS3DH at ±$1 g: 1000/-500/-2048 digits as $2/$3/$4 g" [ "$status" = 0 -a "$got" = "1000 -500 -2048 $2 $3 $4" ]
done
c4=$($I2CGET -y 0 0x18 0x23)
check "configure wrote CTRL_REG4 with BDU, FS = ±8 g and HR (0xa8), read back" [ "$c4" = 0xa8 ]

# 9. The kernel's st_accel (IIO) bound to the stub's LIS3DH: raw x scale is
# acceld's g for the same registers.
insmod /lib/modules/industrialio.ko; insmod /lib/modules/kfifo_buf.ko; insmod /lib/modules/industrialio-triggered-buffer.ko
insmod /lib/modules/st_sensors.ko; insmod /lib/modules/st_accel.ko; insmod /lib/modules/st_sensors_i2c.ko; insmod /lib/modules/st_accel_i2c.ko
echo lis3dh 0x18 > /sys/bus/i2c/devices/i2c-0/new_device
sleep 0.5
iio=$(grep -l lis3dh /sys/bus/iio/devices/iio:device*/name 2>/dev/null | head -1 | xargs -r dirname)
if [ -n "$iio" ]; then
    ls $iio | tr '\n' ' '; echo
    # The scale is per axis (in_accel_x_scale) on this kernel, shared on others.
    kernel=$(for axis in x y z; do
        raw=$(cat $iio/in_accel_${axis}_raw); scale=$(cat $iio/in_accel_${axis}_scale 2>/dev/null || cat $iio/in_accel_scale)
        echo "st_accel $axis: raw $raw x scale $scale" >&2
        awk -v r=$raw -v s=$scale 'BEGIN { v = r * s / 9.80665 * 1000; printf "%d ", (v < 0 ? v - 0.5 : v + 0.5) }'
    done)
    echo "st_accel: mg: $kernel"
    echo 0x18 > /sys/bus/i2c/devices/i2c-0/delete_device
    # st_accel wrote its own configuration; seed the sample again.
    seed_lis3dh 0x80 0x3e 0xc0 0xe0 0x00 0x80
    ours=$(acceld sample --bus 0 --address 0x18 --part LIS3DH --seconds 0.05 --every 1 2>/dev/null | awk '!/^#/ { printf "%d %d %d ", $5 * 1000, $6 * 1000, $7 * 1000; exit }')
    echo "acceld: mg: $ours"
    check "acceld's conversion agrees with the kernel's st_accel for a LIS3DH (raw x in_accel_scale, mg at ±2 g)" [ "$kernel" = "$ours" ]
else
    bad "the kernel's st_accel did not bind to the stub's LIS3DH ($(dmesg | grep -iE 'st_accel|lis3dh|iio' | tail -3))"
fi

# 10. The FIFO's SMBus fallback on the real i2c-dev: i2c-stub has no plain
# I2C transfers, so a FIFO read comes in 30-byte block reads of five whole
# samples. FIFO_SRC is seeded at 10 waiting samples, and 0xA8..0xC5 with
# the same sample five times (the stub does not wrap 0x2D to 0x28).
seed_lis3dh $(for i in 1 2 3 4 5; do echo 0x80 0x3e 0xc0 0xe0 0x00 0x80; done)
$I2CSET -f -y 0 0x18 0x2f 0x0a
acceld --bus 0 --address 0x18 --part LIS3DH --rate 400 --socket /tmp/lis3dh.sock --calibration-file /tmp/c3.json 2>/tmp/lis3dh.log &
daemon=$!
for i in $(seq 50); do [ -S /tmp/lis3dh.sock ] && break; sleep 0.1; done
accelctl events --socket /tmp/lis3dh.sock --json --streams frames --latency 100 --seconds 3 > /tmp/lis3dh-frames 2>&1 &
client=$!
sleep 1.5
fifo=$(accelctl status --socket /tmp/lis3dh.sock --json 2>&1 | grep -o '"fifo":[0-9]*')
wait $client
total=$(grep -c '"class":"frame"' /tmp/lis3dh-frames); n=$(grep -c '"acc":\[1.0000,-0.5000,-2.0480\]' /tmp/lis3dh-frames)
tail -1 /tmp/lis3dh-frames; echo "device while the client watched: $fifo"
check "FIFO reads through 30-byte SMBus blocks on i2c-stub carry the seeded sample ($n of $total frames; $fifo)" sh -c '[ '$total' -ge 50 -a '$n' = '$total' ] && echo "$0" | grep -q "\"fifo\":[1-9]"' "$fifo"
kill -TERM $daemon; wait $daemon
cat /tmp/lis3dh.log | tail -3

took "checks 1 to 10 (i2c-stub, the kernel's drivers as peers)"

# 11. The chip emulator: chips with their own clock, data-ready that
# clears, overrun, a FIFO (emulator-checks.sh).
. /emulator-checks.sh
took emulator-checks.sh

# 12. acceld on the kernel's st_accel, through IIO (iio-checks.sh).
. /iio-checks.sh
took iio-checks.sh

# 13. ST's six-axis LSM6DSO: acceld on i2c-dev, the kernel's st_lsm6dsx as
# a peer, its FIFO into IIO buffers (lsm6dso-checks.sh).
. /lsm6dso-checks.sh
took lsm6dso-checks.sh

# 14. The emulator's INT pins as GPIO lines: libgpiod's tools and the GPIO
# v2 uAPI on data ready, the FIFO's watermark and polarity (gpio-checks.sh).
. /gpio-checks.sh
took gpio-checks.sh

# 15. acceld paced by those lines: stamps against the emulator's instants,
# every sample numbered, the line let go at SIGTERM (interrupt-checks.sh).
. /interrupt-checks.sh
took interrupt-checks.sh

# 16. [power] wake-on-motion: asleep on a still board, the chip's wake-up
# unit on the INT line wakes acceld, its CPU asleep (wake-checks.sh).
. /wake-checks.sh
took wake-checks.sh

finish
