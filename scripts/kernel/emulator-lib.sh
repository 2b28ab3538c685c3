# SPDX-License-Identifier: Apache-2.0
# Sourced by the guests that use the chip emulator (accel_emu.ko, from
# kernel/accel-emu): emulator-checks.sh in the kernel stage and
# peer-bench-guest.sh. Busybox sh and awk.

# emu_load [parameters]: loads the emulator; sets EMU_BUS (the N of
# /dev/i2c-N, found by the adapter's name) and EMU (its sysfs folder).
emu_load() {
    insmod /lib/modules/accel_emu.ko "$@" || return 1
    EMU_BUS=""
    for adapter in /sys/class/i2c-adapter/i2c-*; do
        [ "$(cat "$adapter/name")" = accel_emu ] && EMU=$adapter && EMU_BUS=${adapter##*i2c-}
    done
    [ -n "$EMU_BUS" ]
}
# emu ADDRESS ATTRIBUTE: one of a chip's sysfs files (samples, dropped, ...;
# counters: "t_ns samples dropped delivered reads empty_reads fifo_level").
emu() { cat "$EMU/emu-$1/$2"; }
emu_ppm() { echo "$1" > /sys/module/accel_emu/parameters/clock_ppm; }

# start_daemon NAME ARGS...: acceld on /tmp/NAME.sock, its log in
# /tmp/NAME.log; sets $daemon. Fails if the socket never appears.
start_daemon() {
    local name=$1; shift
    rm -f "/tmp/$name.sock"
    acceld --socket "/tmp/$name.sock" --calibration-file "/tmp/$name-calibration.json" "$@" 2>"/tmp/$name.log" &
    daemon=$!
    for i in $(seq 100); do [ -S "/tmp/$name.sock" ] && return 0; sleep 0.1; done
    echo "acceld did not start:"; cat "/tmp/$name.log"
    return 1
}
stop_daemon() { kill -TERM "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; }

# stream_summary FILE T0 T1 [MODULUS G_PER_DIGIT]: what a client's JSON
# stream (`events --json --streams frames status`) shows between two
# instants on CLOCK_MONOTONIC in ns (the emulator's `counters` times):
# "frames span gaps duplicates seq_rate published wakes lost empty_reads
# skipped mismatches step chip_step". Frames are cut by their own timestamps; seq_rate is
# sequence numbers per second of those timestamps (the sampler's fit of the
# chip's clock). published..empty_reads are differences between the first
# and last status messages (one a second) that came after a frame of the
# window. With the chip's `count` motion, X carries each sample's number
# modulo MODULUS (in digits of G_PER_DIGIT): skipped is the samples the
# chip made between the frames that no frame carried, mismatches the frames
# whose sequence step differs from the chip's step (modulo MODULUS), and
# step and chip_step the largest sequence step and the chip's there.
stream_summary() {
    # Frames split on their first fields (busybox awk is slow with regular
    # expressions on every line under emulation); reading stops past T1.
    awk -F'"seq":|,"t":|,"acc":\\[' -v t0="$2" -v t1="$3" -v modulus="${4:-0}" -v digit="${5:-1}" '
        function value(name,   s) { s = $0; if (!sub(".*\"" name "\":", "", s)) return 0; sub(/[],}].*/, "", s); return s + 0 }
        /^\{"class":"frame"/ {
            s = $2 + 0; t = $3 * 1e9
            if (t > t1) exit
            if (t <= t0) next
            inside = 1
            x = $4 + 0; x = int(x / digit + (x < 0 ? -0.5 : 0.5))
            index_ = modulus ? ((x % modulus) + modulus) % modulus : 0
            n++
            if (n == 1) { first = s; tfirst = t } else {
                if (s > last + 1) gaps += s - last - 1; else if (s <= last) dups++
                if (modulus) {
                    step = ((index_ - lastindex) % modulus + modulus) % modulus; skipped += step - 1
                    if (step != (s - last) % modulus) mismatches++
                    if (s - last > biggest) { biggest = s - last; biggest_chip = step }
                }
            }
            last = s; tlast = t; lastindex = index_ }
        /^\{"class":"status"/ && inside {
            if (!seen++) { p0 = value("published"); w0 = value("wakes"); l0 = value("lost"); e0 = value("emptyReads") }
            p1 = value("published"); w1 = value("wakes"); l1 = value("lost"); e1 = value("emptyReads") }
        END { printf "%d %d %d %d %.3f %d %d %d %d %d %d %d %d\n", n, (n ? last - first + 1 : 0), gaps, dups,
                     (tlast > tfirst ? (last - first) / (tlast - tfirst) * 1e9 : 0), p1 - p0, w1 - w0, l1 - l0, e1 - e0,
                     skipped, mismatches, biggest, biggest_chip }' "$1"
}
