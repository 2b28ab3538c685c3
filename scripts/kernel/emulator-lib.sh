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

# retry_note ATTEMPT LATE [WHAT]: after a failed attempt, adds it to
# $earlier: the check's line names every failed attempt, and which of the
# run's checks failed in it when the run has two (a window and a stall).
retry_note() {
    earlier="$earlier; attempt $1 failed${3:+ on $3}"
    if [ $2 -gt 0 ]; then earlier="$earlier while the host starved the guest (the chip's clock ran late $2 times)"; fi
}

# judge RESULT NAME COMMAND...: NAME is inconclusive when RESULT failed in
# the third attempt and that attempt ran while the host starved the guest
# ($attempt, $late); otherwise COMMAND (check or stall_check) judges it.
judge() {
    local verdict=$1 what=$2; shift 2
    if [ "${verdict%% *}" != pass ] && [ $attempt = 3 -a $late -gt 0 ]; then inconclusive "$what"; else "$@"; fi
}

# watch_chip NAME ADDRESS [CLIENT OPTIONS]: a client of acceld NAME (until
# end_client), then the chip's counters as $a after 2.5 s (the client's
# start-up) and as $b 3 s later, and its late clock ticks as $late_a and
# $late_b. accelctl writes each line as it comes, so ending it loses
# nothing. The client starts 2 s after acceld: a client starting while the
# sampler acquires the chip's phase (its start-up takes the vCPU for a
# second) left acceld locked to every other sample in 1 of 6 trials at
# 400 Hz, for good: each read overrunning, no probe ever finding the chip
# empty, the fit railed at 1.15 times the nominal period. That is a
# sampler bug (docs/TESTING.md), not what these checks measure.
watch_chip() {
    local name=$1 address=$2; shift 2
    sleep 2
    accelctl events --socket /tmp/$name.sock --json --streams frames status "$@" > /tmp/$name-stream 2>&1 &
    client=$!
    sleep 2.5
    a=$(emu $address counters); late_a=$(emu $address late)
    sleep 3
    b=$(emu $address counters); late_b=$(emu $address late)
}
# (after half a second: a FIFO batch arrives up to a watermark late)
end_client() { sleep 0.5; kill $client; wait $client 2>/dev/null; }
