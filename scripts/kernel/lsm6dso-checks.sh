# SPDX-License-Identifier: Apache-2.0
# Sourced by guest-checks.sh after iio-checks.sh: ST's six-axis LSM6DSO,
# played by the emulator at 0x6a and 0x6b (kernel/accel-emu/emu_six_axis.c).
# acceld reads the one at 0x6b on i2c-dev, accelerometer and gyroscope
# through its tagged FIFO; the kernel's own st_lsm6dsx drives the one at 0x6a as a peer:
# its one-shot reads, then its tagged FIFO streamed into two IIO buffers
# (accel and anglvel), then acceld on the accelerometer's buffer.
# Busybox sh and awk.

emu_load parts=lsm6dso@0x6a,lsm6dso@0x6b
insmod /lib/modules/st_lsm6dsx.ko
insmod /lib/modules/st_lsm6dsx_i2c.ko

# within "X Y Z" "X Y Z" TOLERANCE: each axis within TOLERANCE.
within() {
    [ -n "$1" ] && awk -v p="$1" -v q="$2" -v e="$3" 'function d(u, v) { return u > v ? u - v : v - u }
        BEGIN { n = split(p, a, " "); split(q, b, " "); exit !(n == 3 && d(a[1], b[1]) <= e && d(a[2], b[2]) <= e && d(a[3], b[3]) <= e) }'
}

# 1. i2c-dev: WHO_AM_I 0x6c found, the force in g, the daemon's attitude.
probe=$(accelctl probe --bus $EMU_BUS --only-bus 2>&1); status=$?
echo "$probe" | grep -i "lsm6dso\|0x6b"
check "LSM6DSO: accelctl probe finds the LSM6DSO at 0x6b (WHO_AM_I 0x6c)" \
    sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "found LSM6DSO.* at 0x6b"' "$probe"

echo "250 -500 1000" > $EMU/emu-0x6b/motion
out=$(acceld sample --bus $EMU_BUS --address 0x6b --rate 104 --seconds 0.2 --every 1 2>&1); status=$?
echo "$out" | head -3
sampled=$(echo "$out" | grep -v '^#' | tail -1 | awk '{ print $5, $6, $7 }')
close=no; within "$sampled" "0.250 -0.500 1.000" 0.001 && close=yes
check "LSM6DSO on i2c-dev: acceld sample reads the force the chip was given at ±2 g ($sampled)" [ "$status" = 0 -a $close = yes ]

# The tilt (±30° about Y every 8 s, ±20° about X every 13 s) with the
# rotation rate that makes it, which never turns the board's heading: the
# fused attitude's heading (the Z-Y-X yaw ψ, as 2(wz + xy) = cos θ sin ψ of
# the frames' quaternion w, x, y, z) stays put only if the gyroscope's axes
# and signs are the accelerometer's. On the chip model it spans 0.018 with
# the datasheet's 1 dps offset, 0.55 with the Z rate's sign flipped. (The
# frames' yaw is Core Motion's, in another order of axes: it swings by 13°
# on this tilt.) Busybox awk has no sqrt: the peak rate is the largest
# component, about 24 dps. The client takes 416 frames, 4 s of the chip's
# samples however long a starved guest needs for them (60 s at most).
echo tilt > $EMU/emu-0x6b/motion
if start_daemon six --bus $EMU_BUS --address 0x6b --rate 104; then
    sleep 1
    timeout 60 accelctl events --socket /tmp/six.sock --json --streams frames --count 416 > /tmp/six-stream 2>&1
    stop_daemon
fi
# heading FILE: "frames peak span" of a client's JSON frames.
heading() {
    awk '
    /"class":"frame"/ && /rotationRate/ {
        q = $0; sub(/.*"quaternion":\[/, "", q); sub(/\].*/, "", q); split(q, c, ",")
        w = $0; sub(/.*"rotationRate":\[/, "", w); sub(/\].*/, "", w); split(w, r, ",")
        n++; heading = 2 * (c[1] * c[4] + c[2] * c[3])
        for (i = 1; i <= 3; i++) { rate = (r[i] < 0 ? -r[i] : r[i]) * 57.29578; if (rate > peak) peak = rate }
        if (n == 1 || heading < low) low = heading; if (n == 1 || heading > high) high = heading }
    END { printf "%d %.1f %.3f\n", n, peak, high - low }' "$1"
}
set -- $(heading /tmp/six-stream)
echo "LSM6DSO daemon on i2c-dev: $1 frames with rotationRate, peak rate $2 dps, heading span $3"
tail -2 /tmp/six.log
check "LSM6DSO on i2c-dev: frames carry the tilt's rotation rate (peak $2 dps of the tilt's 24) and a heading that stays put (2(wz + xy) spans $3, under 0.035: 2°)" \
    awk -v n="$1" -v peak="$2" -v span="$3" 'BEGIN { exit !(n == 416 && peak >= 10 && peak <= 30 && span < 0.035) }'

# The tagged FIFO on i2c-dev: acceld keeps it in continuous mode with both
# sensors batched (FIFO_CTRL3/4) and reads gyroscope and accelerometer
# words in one transfer. With `count`, both sensors' X carry each sample's
# 16-bit number; at ±16 g an accelerometer digit (0.488 mg) shows in the
# frames' four decimals, and the rate's is 70 mdps (1.2 mrad/s). At once
# (watermark 1) and batched for a client allowing 50 ms (19 samples, 38
# words, 266 bytes a transfer): every frame is the sample its number says
# and carries that sample's own rate, and the chip drops none; a gap in
# the client's sequence must be frames acceld told it it dropped (a
# client too slow to read). The fusion's learnt offset would shift the
# rate's count (the `count` motion is no real motion): the daemon runs
# with it fixed at 0. Measured again, three times at most, as the LIS3DH's
# FIFO is.
cat > /tmp/fixed-bias.conf <<'CONF'
[fusion]
bias-gain = 0
still-seconds = 60
CONF
#
# unpaired FILE T0 T1: "UNPAIRED DROPPED": frames in the window whose
# rate's X count is not their acceleration's X count, and the frames
# acceld said it dropped for this client.
unpaired() {
    awk -v t0="$2" -v t1="$3" '
        /^\{"class":"dropped"/ && inside { d = $0; sub(/.*"count":/, "", d); sub(/[,}].*/, "", d); dropped += d }
        /^\{"class":"frame"/ {
            t = $0; sub(/.*"t":/, "", t); sub(/,.*/, "", t); t *= 1e9
            if (t > t1) exit
            if (t <= t0) next
            inside = 1
            a = $0; sub(/.*"acc":\[/, "", a); sub(/,.*/, "", a)
            r = $0; if (!sub(/.*"rotationRate":\[/, "", r)) { bad++; next }; sub(/,.*/, "", r)
            a = a / 0.000488; r = r / 0.00122173
            d = (a > r ? a - r : r - a); if (d > 1.5) bad++ }
        END { print bad + 0, dropped + 0 }' "$1"
}
tagged_fifo() {  # NAME [CLIENT OPTIONS]
    local name=$1; shift
    earlier=""
    for attempt in 1 2 3; do
        start_daemon $name --bus $EMU_BUS --address 0x6b --rate 416 --range 16 --config /tmp/fixed-bias.conf || { result="fail acceld did not start"; late=0; break; }
        watch_chip $name 0x6b "$@"
        end_client
        stop_daemon
        result=$(echo "$a $b $(stream_summary /tmp/$name-stream ${a%% *} ${b%% *} $count) $(unpaired /tmp/$name-stream ${a%% *} ${b%% *})" | awk '{
            made = $9 - $2; dropped = $10 - $3
            printf "%s made %d, frames %d, gaps %d (acceld dropped %d for the client), twice %d, steps not the chip'"'"'s %d, another sample'"'"'s rate %d, the chip dropped %d, acceld'"'"'s lost rose %d, wakes/sample %.3f", \
                (dropped == 0 && $17 == $29 && $18 == 0 && $25 == 0 && $28 == 0 && $15 - made <= 4 && made - $15 <= 4 ? "pass" : "fail"), \
                made, $15, $17, $29, $18, $25, $28, dropped, $22, $21 / ($20 ? $20 : 1) }')
        late=$((late_b - late_a))
        echo "LSM6DSO FIFO, $name ${*:-at once}, attempt $attempt: ${result#* }"
        [ "${result%% *}" = pass ] && break
        retry_note $attempt $late
    done
    tail -2 /tmp/$name.log
}
echo count > $EMU/emu-0x6b/motion
count="65536 0.000488"
tagged_fifo tagged
name="LSM6DSO FIFO on i2c-dev at once: every sample at the chip's rate, each frame its own sample and rate, none dropped (${result#* }$earlier)"
judge "$result" "$name" check "$name" [ "${result%% *}" = pass ]
tagged_fifo batched --latency 50
name="LSM6DSO FIFO on i2c-dev, latency 50 ms: batches of both sensors' words, each frame its own sample and rate, none dropped (${result#* }$earlier)"
judge "$result" "$name" check "$name" [ "${result%% *}" = pass ]

# 2. st_lsm6dsx on the chip at 0x6a: the kernel's driver, probing its
# sensor hub as it does (nothing behind it), then its one-shot reads.
echo lsm6dso 0x6a > /sys/bus/i2c/devices/i2c-$EMU_BUS/new_device
for i in $(seq 50); do
    accel=$(grep -l '^lsm6dso_accel$' /sys/bus/iio/devices/iio:device*/name 2>/dev/null | head -1 | xargs -r dirname)
    gyro=$(grep -l '^lsm6dso_gyro$' /sys/bus/iio/devices/iio:device*/name 2>/dev/null | head -1 | xargs -r dirname)
    [ -n "$accel" -a -n "$gyro" ] && break
    sleep 0.2
done
echo "st_lsm6dsx: accel ${accel##*/}, gyro ${gyro##*/}"; dmesg | grep -i lsm6dsx | tail -3
check "st_lsm6dsx binds to the emulated LSM6DSO: lsm6dso_accel and lsm6dso_gyro" [ -n "$accel" -a -n "$gyro" ]

echo "250 -500 1000" > $EMU/emu-0x6a/motion
echo "10000 -20000 30000" > $EMU/emu-0x6a/rate
read_axes() {  # DEVICE TYPE UNIT: the three axes' raw × scale / UNIT
    local scale; scale=$(cat $1/in_$2_scale 2>/dev/null || cat $1/in_$2_x_scale)
    echo "$(cat $1/in_$2_x_raw) $(cat $1/in_$2_y_raw) $(cat $1/in_$2_z_raw)" |
        awk -v s="$scale" -v u="$3" '{ printf "%.4f %.4f %.4f\n", $1 * s / u, $2 * s / u, $3 * s / u }'
}
forces=$(read_axes $accel accel 9.80665) rates=$(read_axes $gyro anglvel 0.01745329)
echo "st_lsm6dsx one-shot: $forces g; $rates dps"
close=no; within "$forces" "0.250 -0.500 1.000" 0.001 && within "$rates" "10 -20 30" 0.3 && close=yes
check "st_lsm6dsx one-shot reads: the force ($forces g) and the rate ($rates dps) the chip was given" [ $close = yes ]

# 3. Its FIFO: both sensors at 104 Hz into their IIO buffers, with the
# `count` motion (X carries each sample's number in both). After the
# gyroscope joined (st_lsm6dsx flushes and restarts the FIFO then), every
# accelerometer scan follows the one before, the gyroscope's carry the same
# numbers, and the timestamps (the chip's 25 µs counter) step one period.
echo count > $EMU/emu-0x6a/motion
for device in "$accel accel" "$gyro anglvel"; do
    dir=${device% *} type=${device#* }
    for axis in x y z; do echo 1 > $dir/scan_elements/in_${type}_${axis}_en; done
    echo 1 > $dir/scan_elements/in_timestamp_en
    echo 104 > $dir/sampling_frequency
    echo 256 > $dir/buffer/length
    echo 1 > $dir/buffer/enable
done
timeout 20 head -c 1280 /dev/${accel##*/} > /tmp/lsm-accel.bin &
timeout 20 head -c 1280 /dev/${gyro##*/} > /tmp/lsm-gyro.bin
wait
for dir in $accel $gyro; do echo 0 > $dir/buffer/enable; done
# (the scale is the kernel's rounding of 8.75 mdps to whole nanoradians: 0.2 % off)
# Scans of 16 bytes: X, Y, Z (s16), padding, the timestamp (s64, ns).
scans() { od -A n -v -t u2 "$1" | awk 'NF == 8 { printf "%d %.0f\n", $1, $5 + $6 * 65536 + $7 * 4294967296 + $8 * 281474976710656 }'; }
scans /tmp/lsm-gyro.bin > /tmp/lsm-gyro.txt
fifo=$(scans /tmp/lsm-accel.bin | awk -v gyro=/tmp/lsm-gyro.txt '
    BEGIN { while ((getline line < gyro) > 0) { split(line, g, " "); if (!ng) first = g[1]; seen[g[1]] = 1; ng++ } }
    ng && $1 >= first { n++; if (n > 1) { if ($1 != last + 1) breaks++; if ($2 <= t) backwards++; span += $2 - t }
                  if (!($1 in seen)) unpaired++; last = $1; t = $2 }
    END { printf "%d %d %d %d %d %.0f\n", n, ng, breaks, backwards, unpaired, (n > 1 ? span / (n - 1) : 0) }')
set -- $fifo
echo "st_lsm6dsx FIFO: $1 accel scans after the gyroscope joined, $2 gyro scans; $3 breaks in the numbers, $4 timestamps not after the last, $5 accel scans with no gyro scan of their number; mean step $6 ns"
check "st_lsm6dsx FIFO at 104 Hz: consecutive accel scans, each with its gyro scan, one period apart by the chip's timestamps ($fifo)" \
    awk -v n="$1" -v ng="$2" -v breaks="$3" -v back="$4" -v unpaired="$5" -v step="$6" \
        'BEGIN { exit !(n >= 40 && ng >= 40 && breaks == 0 && back == 0 && unpaired <= 1 && step > 9615384 * 0.99 && step < 9615384 * 1.01) }'

# 4. acceld through IIO on st_lsm6dsx's two devices, on the tilt: the
# gyroscope's buffer beside the accelerometer's, each frame with the rate of
# its own sample, the heading steady as on i2c-dev.
echo tilt > $EMU/emu-0x6a/motion
if start_daemon iio6 --iio ${accel##*/} --rate 104; then
    sleep 1
    timeout 60 accelctl events --socket /tmp/iio6.sock --json --streams frames --count 416 > /tmp/iio6-tilt 2>&1
    stop_daemon
fi
set -- $(heading /tmp/iio6-tilt)
echo "acceld --iio ${accel##*/} with ${gyro##*/} beside: $1 frames with rotationRate, peak rate $2 dps, heading span $3"
grep -m1 "gyroscope" /tmp/iio6.log
check "IIO: acceld reads st_lsm6dsx's gyroscope beside its accelerometer: frames carry the tilt's rate (peak $2 dps) and a steady heading (2(wz + xy) spans $3)" \
    awk -v n="$1" -v peak="$2" -v span="$3" 'BEGIN { exit !(n == 416 && peak >= 10 && peak <= 30 && span < 0.035) }'

# Then its numbering, with `count`: each frame is the sample its number
# says (16-bit X, modulo 65536). At ±16 g, so that a digit (0.488 mg) shows
# in the frames' four decimals: acceld leaves the range to the driver.
echo count > $EMU/emu-0x6a/motion
scale=$(tr ' ' '\n' < $accel/in_accel_scale_available | sort -n | tail -1)
echo $scale > $accel/in_accel_scale
digit=$(awk -v s="$(cat $accel/in_accel_scale)" 'BEGIN { printf "%.9f", s / 9.80665 }')
if start_daemon iio6 --iio ${accel##*/} --rate 104; then
    watch_chip iio6 0x6a
    end_client
    stop_daemon
    set -- $(stream_summary /tmp/iio6-stream ${a%% *} ${b%% *} 65536 $digit)
    summary="$1 frames, seq span $2, gaps $3, twice $4, the chip's samples no frame carried ${10}, steps not the chip's ${11}"
else
    set -- 0 0 0 0 0 0 0 0 0 0 1
    summary="acceld did not start"
fi
echo "acceld --iio ${accel##*/} at $(cat $accel/in_accel_scale) m/s² a digit: $summary"; tail -2 /tmp/iio6.log
check "IIO: acceld reads st_lsm6dsx's accelerometer buffer, every frame the sample its number says ($summary)" \
    [ "$1" -gt 0 -a "$4" = 0 -a "${11}" = 0 ]

echo 0x6a > /sys/bus/i2c/devices/i2c-$EMU_BUS/delete_device
rmmod st_lsm6dsx_i2c st_lsm6dsx
rmmod accel_emu
