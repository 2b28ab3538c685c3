# SPDX-License-Identifier: Apache-2.0
# Sourced by guest-checks.sh after emulator-checks.sh: acceld through the
# kernel's own st_accel driver, over IIO (docs/DRIVER.md). The emulator's
# LIS3DH has its INT1 line, so st_accel makes its own data-ready trigger,
# as on a board whose device tree wires the interrupt. A fixed force is
# read on i2c-dev first (normal mode, ±2 g: how st_accel sets the chip),
# then through IIO at 100 and 400 Hz: the same g within a count (4 mg).

emu_load
echo "500 -250 1000" > $EMU/emu-0x18/motion
out=$(acceld sample --bus $EMU_BUS --address 0x18 --part LIS3DH --mode normal --range 2 --seconds 0.2 --every 1 2>&1)
direct=$(echo "$out" | grep -v '^#' | tail -1 | awk '{ print $5, $6, $7 }')
echo "i2c-dev, normal mode, ±2 g: $direct"

echo lis3dh 0x18 > /sys/bus/i2c/devices/i2c-$EMU_BUS/new_device
sleep 0.5
iio=$(grep -l lis3dh /sys/bus/iio/devices/iio:device*/name 2>/dev/null | tail -1 | xargs -r dirname)
id=${iio##*/}
echo "st_accel: $id; triggers: $(cat /sys/bus/iio/devices/trigger*/name 2>/dev/null | tr '\n' ' ')"

out=$(acceld sample --bus $EMU_BUS --address 0x18 --part LIS3DH --seconds 0.1 2>&1); status=$?
echo "$out" | head -1
check "IIO: i2c-dev refuses the address st_accel owns (exit 75), naming the driver and 'acceld --iio $id'" \
    sh -c '[ '$status' = 75 ] && echo "$0" | grep -q "st-accel-i2c" && echo "$0" | grep -q "acceld --iio '$id'"' "$out"
probe=$(accelctl probe --bus $EMU_BUS --only-bus 2>&1); status=$?
echo "$probe" | tail -2
check "IIO: accelctl probe lists $id (lis3dh, st-accel-i2c, i2c-$EMU_BUS at 0x18) with its frequencies" \
    sh -c '[ '$status' = 0 ] && echo "$0" | grep -q "'$id' (lis3dh, st-accel-i2c, i2c-'$EMU_BUS' at 0x18): channels accel.*/100/.* Hz"' "$probe"

# near "X Y Z" "X Y Z": the same g within a count of normal mode (4 mg).
near() {
    [ -n "$1" ] && awk -v p="$1" -v q="$2" 'function d(u, v) { return u > v ? u - v : v - u }
        BEGIN { n = split(p, a, " "); split(q, b, " "); exit !(n == 3 && d(a[1], b[1]) <= 0.004 && d(a[2], b[2]) <= 0.004 && d(a[3], b[3]) <= 0.004) }'
}

out=$(acceld sample --iio lis3dh --rate 100 --seconds 0.5 --every 10 2>&1); status=$?
echo "$out" | head -3
sampled=$(echo "$out" | grep -v '^#' | tail -1 | awk '{ print $5, $6, $7 }')
close=no; near "$sampled" "$direct" && close=yes
check "IIO: acceld sample --iio lis3dh prints the driver's scans in g, as i2c-dev gave them ($sampled vs $direct)" \
    [ "$status" = 0 -a "$close" = yes ]

# Then the daemon at 100 and 400 Hz with the `count` motion: X carries
# each sample's number (modulo 1024 in normal mode's 10 bits, 4 mg a
# digit), so every frame says which sample it holds. Checked, in the
# window watch_chip cuts: no frame twice, and each step in the sequence
# numbers (from the kernel's timestamps) is the chip's own step, so a gap
# counts exactly the samples missing. Retried, like the phase-lock
# checks, when the host starves the guest (emulator-checks.sh).
echo count > $EMU/emu-0x18/motion
for rate in 100 400; do
    attempt=0 earlier="" result=fail
    while [ $attempt -lt 3 ]; do
        attempt=$((attempt + 1))
        found="buffer $(cat $iio/buffer/enable), trigger '$(cat $iio/trigger/current_trigger)'"
        start_daemon iio --iio lis3dh --rate $rate || break
        watch_chip iio 0x18
        end_client
        trigger=$(cat $iio/trigger/current_trigger) frequency=$(cat $iio/sampling_frequency)
        stop_daemon
        left="buffer $(cat $iio/buffer/enable), trigger '$(cat $iio/trigger/current_trigger)'"
        late=$((late_b - late_a))
        set -- $(stream_summary /tmp/iio-stream ${a%% *} ${b%% *} 1024 0.004)
        summary="$1 frames, seq span $2, gaps $3, twice $4, the chip's samples no frame carried ${10}, steps not the chip's ${11}"
        echo "IIO at $rate Hz, attempt $attempt: trigger $trigger, sampling_frequency $frequency; $summary; late ticks $late; after stop: $left"
        tail -2 /tmp/iio.log
        if [ "$1" -gt 0 ] && [ "$4" = 0 ] && [ "${11}" = 0 ]; then result="pass"; break; fi
        result="fail"
        retry_note $attempt $late
    done
    check "IIO at $rate Hz: acceld reads st_accel's buffer on the chip's own trigger ($trigger at ${frequency%%.*} Hz)" \
        [ "$trigger" = lis3dh-trigger -a "${frequency%%.*}" = $rate ]
    name="IIO at $rate Hz: every frame is the sample its number says, and each gap exactly the samples missing ($summary$earlier)"
    judge "$result" "$name" check "$name" [ "$result" = pass ]
    # st_accel sets its own trigger at probe: acceld uses it and leaves it
    # there; only a trigger acceld set (or made) is undone.
    check "IIO at $rate Hz: stopped, acceld leaves the buffer off and the trigger as it found it ($found, now $left)" [ "$left" = "$found" -a "${left%%,*}" = "buffer 0" ]
done
echo 0x18 > /sys/bus/i2c/devices/i2c-$EMU_BUS/delete_device
rmmod accel_emu
