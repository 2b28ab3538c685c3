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

# iio_stream FILE: "frames first last disorder x y z lost" of a client's
# JSON stream: the last frame's acceleration, the last status's lost.
iio_stream() {
    awk -F'"seq":|,"t":|,"acc":\\[|\\],"gravity"' '
        /^\{"class":"frame"/ { s = $2 + 0; if (n && s <= last) disorder++; last = s; if (!n) first = s; n++; acc = $4 }
        /^\{"class":"status"/ { lost = $0; sub(/.*"lost":/, "", lost); sub(/,.*/, "", lost) }
        END { split(acc, a, ","); printf "%d %d %d %d %s %s %s %d", n, first, last, disorder + 0, a[1], a[2], a[3], lost + 0 }' "$1"
}

for rate in 100 400; do
    made_before=$(emu 0x18 samples)
    start_daemon iio --iio lis3dh --rate $rate || { bad "IIO: acceld --iio lis3dh --rate $rate did not start"; continue; }
    sleep 1
    accelctl events --socket /tmp/iio.sock --json --streams frames status > /tmp/iio-stream 2>&1 &
    client=$!
    sleep 4
    kill $client; wait $client 2>/dev/null
    trigger=$(cat $iio/trigger/current_trigger) frequency=$(cat $iio/sampling_frequency)
    stop_daemon
    left="buffer $(cat $iio/buffer/enable), trigger '$(cat $iio/trigger/current_trigger)'"
    set -- $(iio_stream /tmp/iio-stream)
    frames=$1 first=$2 last=$3 disorder=$4 x=$5 y=$6 z=$7 lost=$8
    echo "IIO at $rate Hz: trigger $trigger, sampling_frequency $frequency; $frames frames, seq $first..$last, lost $lost; last g $x $y $z; the chip made $(( $(emu 0x18 samples) - made_before )); after stop: $left"
    tail -2 /tmp/iio.log
    check "IIO at $rate Hz: acceld reads st_accel's buffer on the chip's own trigger ($trigger), frames in order, the same g as on i2c-dev within a count ($x $y $z vs $direct)" \
        sh -c '[ "$1" = lis3dh-trigger ] && [ "$2" = '$rate' ] && [ '$frames' -gt 0 ] && [ '$disorder' = 0 ] && set -- '"$direct"' &&
               awk -v x='$x' -v y='$y' -v z='$z' -v a=$1 -v b=$2 -v c=$3 "function d(u, v) { return u > v ? u - v : v - u }
                   BEGIN { exit !(x != \"\" && d(x, a) <= 0.004 && d(y, b) <= 0.004 && d(z, c) <= 0.004) }"' _ "$trigger" "${frequency%%.*}"
    check "IIO at $rate Hz: every sample numbered reached the client or was counted lost ($frames frames + gaps = seq $first..$last)" \
        sh -c 'awk -F"\"seq\":" "/^\\{\"class\":\"frame\"/ { s = \$2 + 0; if (n) gaps += s - prev - 1; prev = s; n++ } END { exit !(n > 0 && n + gaps == '$last' - '$first' + 1) }" /tmp/iio-stream'
    check "IIO at $rate Hz: stopped, acceld leaves the buffer off and the trigger unset ($left)" [ "$left" = "buffer 0, trigger ''" ]
done
echo 0x18 > /sys/bus/i2c/devices/i2c-$EMU_BUS/delete_device
rmmod accel_emu
