# SPDX-License-Identifier: Apache-2.0
# Sourced by guest-checks.sh after interrupt-checks.sh: [power]
# wake-on-motion on the chip emulator (acceld --wake-on-motion, paced by
# the chip's INT1 through the GPIO character device). On the LIS3DH, the
# LSM6DSO and the LIS302DL, each at its normal rate with an events-only
# client (`watch` ["events","device"]) on a still board tilted 30° about Y
# (500 0 866 mg, so the wake-up unit's high-pass filter must take gravity
# out): the `asleep` device event comes once the board has been still for
# --still-seconds 2, and asleep it stays (the chip at the part's slow
# rate, INT1 quiet); the emulator's `shake` motion brings `awake`, and the
# first motion event after it carries "wake":"chip"; the time from the
# chip's wake-up edge (the true instant of the first shaken sample, from
# the emulator's `phase`) to acceld's first read of a sample after it
# (the emulator's INT1 probe) is printed in periods of the configured
# rate, and the first event's start must lie on the chip's clock, within
# 0.5 s after that edge; SIGTERM while asleep exits 0, lets go of
# the line and leaves the pins' routing as acceld found it. On the
# LIS302DL, acceld's CPU time (utime + stime, /proc/PID/stat) over 20 s
# asleep against 20 s with wake-on-motion off, reading at the full rate
# (docs/PERFORMANCE.md, "Wake-on-motion").
# Busybox sh and awk.
. /emulator-lib.sh

rmmod accel_emu 2>/dev/null
emu_load parts=lis302dl@0x1c,lis3dh@0x18,lsm6dso@0x6b

# wait_for FILE PATTERN COUNT SECONDS [FROM]: until FILE has COUNT lines
# with PATTERN (after its first FROM lines); fails after SECONDS.
wait_for() {
    local i=0
    while [ $i -lt $(($4 * 5)) ]; do
        [ "$(tail -n +$((${5:-0} + 1)) "$1" 2>/dev/null | grep -c -- "$2")" -ge "$3" ] && return 0
        sleep 0.2; i=$((i + 1))
    done
    return 1
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
lines() { wc -l < "$1"; }
# registers ADDRESS REG...: their values, space-separated (none of them
# clears anything).
registers() {
    local address=$1 out="" reg; shift
    for reg in "$@"; do out="$out$($I2CGET -y $EMU_BUS $address $reg) "; done
    echo "${out% }"
}

# threads PID: a line per thread, "tid ticks ns name": utime + stime in
# clock ticks (1/100 s) and the scheduler's run time in ns (schedstat).
threads() {
    local task
    for task in /proc/$1/task/*; do
        echo "${task##*/} $(sed 's/^.*) //' $task/stat 2>/dev/null | awk '{ print $12 + $13 }') $(cut -d' ' -f1 $task/schedstat 2>/dev/null || echo 0) $(tr ' ' _ < $task/comm 2>/dev/null)"
    done 2>/dev/null
}
# cpu_window PID SECONDS: acceld's CPU over a window of SECONDS. Sets $cpu
# ("ticks seconds percent ns_percent": utime + stime from /proc/PID/stat,
# in ticks, and the threads' schedstat run time, exact to the ns) and
# prints the threads that ran.
cpu_window() {
    local t0 t1 c0 c1
    threads $1 > /tmp/threads-a
    t0=$(uptime_s); c0=$(awk '{ print $14 + $15 }' /proc/$1/stat)
    sleep $2
    t1=$(uptime_s); c1=$(awk '{ print $14 + $15 }' /proc/$1/stat)
    threads $1 > /tmp/threads-b
    ns=$(awk 'NR == FNR { ns[$1] = $3; next } { d = $3 - ns[$1]; total += d; if (d > 0) printf "%s %.1f ms, ", $4, d / 1e6 > "/dev/stderr" } END { printf "%.0f", total }' /tmp/threads-a /tmp/threads-b 2>/tmp/threads-ran)
    echo "  threads that ran: $(cat /tmp/threads-ran)"
    cpu=$(awk -v c=$((c1 - c0)) -v t0=$t0 -v t1=$t1 -v ns=$ns 'BEGIN { printf "%d %.2f %.3f %.3f", c, t1 - t0, c / 100 / (t1 - t0) * 100, ns / 1e9 / (t1 - t0) * 100 }')
}

# wake_run PART ADDRESS LINE RATE SLOW "ROUTING REGISTERS" "PRESET
# REG=VALUE..." [ACCELD OPTIONS]: the whole story on one chip (SLOW: the
# rate it watches at); prints its checks. The PRESET writes (another
# program's routing, on INT2) are made before acceld starts; ROUTING's
# registers must read the same after it stops.
wake_run() {
    local part=$1 address=$2 line=$3 rate=$4 slow=$5 routing=$6 preset=$7 write found left started
    local events mark asleep_at quiet phase shaken woke probe first result stamped counters after_line status sleeps pins_a pins_b last
    shift 7
    echo "500 0 866" > $EMU/emu-$address/motion
    for write in $preset; do $I2CSET -y $EMU_BUS $address ${write%=*} ${write#*=}; done
    found=$(registers $address $routing)
    started=$(uptime_s)
    start_daemon wake --bus $EMU_BUS --address $address --rate $rate --interrupt accel_emu:$line \
        --wake-on-motion --still-seconds 2 "$@" || { bad "$part: acceld --wake-on-motion did not start"; return; }
    events=/tmp/wake-$address-events
    accelctl events --socket /tmp/wake.sock --json --streams events device > $events 2>&1 &
    client=$!

    # 1. Still for 2 s, an events-only client: asleep; and asleep it
    # stays: for 2 s no awake event, the chip at its slow rate, INT1 quiet.
    if ! wait_for $events '"event":"asleep"' 1 30; then
        bad "$part at $rate Hz on $line: no asleep device event within 30 s of a still board ($(tail -2 /tmp/wake.log | tr '\n' ' '); the client saw: $(tr '\n' ' ' < $events | cut -c1-400))"
        kill $client; stop_daemon; return
    fi
    asleep_at=$(awk -v s=$started -v t=$(uptime_s) 'BEGIN { printf "%.1f", t - s }')
    grep -m1 '"event":"asleep"' $events
    check "$part at $rate Hz on $line, --wake-on-motion --still-seconds 2, an events-only client, the board still and tilted: the asleep device event within $asleep_at s of acceld's start" true
    pins_a=$(emu $address int1)
    sleep 2
    pins_b=$(emu $address int1)
    quiet="the chip at $(emu $address odr) Hz, INT1 (level rises falls raised) $pins_a then $pins_b, awake events $(grep -c '"event":"awake"' $events)"
    echo "$part asleep for 2 s: $quiet; $(registers $address 0x20 0x21 0x22 0x30 0x32) at 0x20 0x21 0x22 0x30 0x32"
    check "$part asleep on a still board stays asleep for 2 s: the chip at $slow Hz, INT1 quiet, no awake event ($quiet)" \
        sh -c '[ "$0" = "$1" ] && echo "$2" | grep -q "the chip at '$slow' Hz.*awake events 0$"' "$pins_a" "$pins_b" "$quiet"
    # Awake meanwhile (the check above failed): wait for the next sleep.
    grep -q '"event":"awake"' $events && { wait_for $events '"event":"asleep"' 2 30 || echo "$part: (not asleep again within 30 s)"; }

    # 2. CPU while asleep, on the part the caller names.
    if [ "$part" = "$cpu_part" ]; then
        cpu_window $daemon 20
        cpu_asleep=$cpu
        echo "$part asleep: acceld's CPU over the window: utime + stime ${cpu_asleep%% *} ticks in $(echo $cpu_asleep | cut -d' ' -f2) s, $(echo $cpu_asleep | cut -d' ' -f3) % of a core; run time (schedstat) $(echo $cpu_asleep | cut -d' ' -f4) %"
    fi

    # 3. A shake wakes it (the emulator's `shake` motion: samples from the
    # instant it is written on are shaken, so the wake-up edge is the first
    # sample of the slow phase at or after that instant): awake, then the
    # first motion event carries "wake":"chip". Timed from that edge's
    # true instant, in periods of the configured rate: when the emulator
    # raised the pin (its tick's latency), acceld's rate write (the new
    # phase's start, where the rate changes), and the first read after the
    # rise that delivered a sample (INT1's probe), acceld's first frame;
    # the first event's start (dated from the first sample that moved) is
    # shown beside them.
    mark=$(lines $events)
    echo 1 > $EMU/emu-$address/int1_probe
    phase=$(cat $EMU/emu-$address/phase)
    echo shake > $EMU/emu-$address/motion
    shaken=$(cat $EMU/emu-$address/motion)
    wait_for $events '"wake":"chip"' 1 10 $mark
    woke=$(cat $EMU/emu-$address/phase)
    probe=$(cat $EMU/emu-$address/int1_probe)
    tail -n +$((mark + 1)) $events | grep -v '"phase":"end"' | cut -c1-300
    first=$(tail -n +$((mark + 1)) $events | awk 'seen && !/"class":"device"/ { print; exit } /"event":"awake"/ { seen = 1 }')
    echo "phase asleep: $phase; motion: $shaken; phase awake: $woke; INT1's probe (armed rise_ns read_ns): $probe"
    result=$(echo "$phase $shaken $woke $probe" | awk -v line="$first" -v rate=$rate '{
        start = $1; period = $2; t0 = $6; n = int((t0 - start + period - 1) / period); edge = start + n * period
        p = 1e9 / rate; rise = $15; read = $16
        out = sprintf("the wake-up edge at %.6f s (the %.0f Hz phase'"'"'s sample %d), the pin raised %.2f ms after it", edge / 1e9, 1e9 / period, n, (rise - edge) / 1e6)
        out = out ($10 > edge ? sprintf("; acceld wrote the configured rate %.2f periods (%.1f ms) after the edge", ($10 - edge) / p, ($10 - edge) / 1e6) : "; the same rate asleep: no new phase")
        if (read > 0) out = out sprintf("; its first read of a sample %.2f periods of %d Hz (%.1f ms) after the edge", (read - edge) / p, rate, (read - edge) / 1e6)
        else out = out "; no read of a sample after the rise"
        if (line != "") {
            first = line; if (!sub(/.*"start":/, "", first)) { first = line; sub(/.*"t":/, "", first) } sub(/[,}].*/, "", first)
            out = out sprintf("; the first event'"'"'s start %.2f periods (%.3f s) after the edge", (first * 1e9 - edge) / p, first - edge / 1e9)
        }
        printf "%s %s %s", (read > 0 && rise > 0 ? sprintf("%.2f", (read - edge) / p) : "none"), \
            (line != "" ? sprintf("%.3f", first - edge / 1e9) : "none"), out }')
    echo "$part awake: acceld's counters $(accelctl status --socket /tmp/wake.sock --json 2>&1 | grep -o '"counters":{[^}]*}')"
    stamped=$(echo "$result" | cut -d' ' -f2)
    result=$(echo "$result" | cut -d' ' -f1,3-)
    echo "$part wake-up: ${result#* }"
    woke=$(tail -n +$((mark + 1)) $events | grep -m1 '"event":"awake"')
    check "$part: a shake wakes acceld: the awake device event, then the first motion event carries \"wake\":\"chip\" (${first:-no event after awake})" \
        sh -c 'echo "$0" | grep -q "\"event\":\"awake\"" && echo "$1" | grep -q "\"wake\":\"chip\""' "$woke" "$first"
    # Issue 38's target is 2 periods; where the rate changes, the part's
    # datasheet turn-on would come first (7 periods on the LIS3DH in high
    # resolution, 2 on the LSM6DSO), which acceld waits out. Judged against
    # the turn-on and 2; the figure against 2 is printed. Every part here
    # now watches at its configured rate: no turn-on.
    case $part in LIS3DH) turn=7 ;; LSM6DSO) turn=2 ;; *) turn=0 ;; esac
    [ "$slow" = "$rate" ] && turn=0
    echo "FIGURE: $part: motion to acceld's first read ${result%% *} periods of $rate Hz after the chip's wake-up edge (issue 38's target: 2; the part's turn-on after the rate change: $turn)"
    check "$part: acceld's first read of a sample within the turn-on ($turn) and 2 periods of $rate Hz after the chip's wake-up edge (${result#* })" \
        awk -v l="${result%% *}" -v max=$((turn + 2)) 'BEGIN { exit !(l != "none" && l <= max) }'
    # The shake moves every sample from the edge on: the first event's
    # start, on the frames' clock (CLOCK_MONOTONIC), comes within 0.5 s.
    check "$part: the first event after the wake-up is stamped on the chip's clock: its start $stamped s after the wake-up edge (0 to 0.5)" \
        awk -v s="$stamped" 'BEGIN { exit !(s != "none" && s >= 0 && s <= 0.5) }'

    # 4. Still again: asleep again; SIGTERM while asleep.
    wait_for $events '"event":"asleep"' 1 30 $mark || echo "$part: (not asleep again within 30 s of the shake)"
    counters=$(accelctl status --socket /tmp/wake.sock --json 2>&1 | grep -o '"sleeps":[0-9]*,"wakeUps":[0-9]*')
    sleep 0.5
    sleeps="\"sleeps\":$(grep -c '"event":"asleep"' $events),\"wakeUps\":$(grep -c '"event":"awake"' $events)"
    last=$(grep '"class":"device"' $events | tail -1 | sed -n 's/.*"event":"\([a-z-]*\)".*/\1/p')
    kill -TERM $daemon; wait $daemon; status=$?
    echo "$part: the device events: $(grep '"class":"device"' $events | sed 's/.*"message":"\([^"]*\)","event":"\([a-z-]*\)".*/\2 (\1)/' | tr '\n' ';')"
    left=$(registers $address $routing)
    after_line=$(gpioinfo accel_emu | grep "\"$line\"")
    kill $client 2>/dev/null; wait $client 2>/dev/null
    tail -3 /tmp/wake.log
    check "$part: the status counters count the sleeps and wake-ups as the device events do ($counters; events $sleeps)" \
        [ -n "$counters" -a "$counters" = "$sleeps" ]
    check "$part: SIGTERM while asleep (the last device event: ${last:-none}): exit $status, the line let go ($after_line), the routing as acceld found it ($routing: $found, after $left)" \
        sh -c '[ '$status' = 0 ] && echo "$0" | grep -q unused && [ "$1" = "$2" ] && [ "$3" = asleep ]' "$after_line" "$found" "$left" "$last"
    for write in $preset; do $I2CSET -y $EMU_BUS $address ${write%=*} 0x00; done
}

cpu_part=LIS302DL
cpu_asleep=""
# The LIS3DH watches at its rate, its FIFO streaming (the samples around
# the wake-up kept); another program's IA2 on INT2 (CTRL_REG6 I2_IA2).
wake_run LIS3DH 0x18 lis3dh-0x18-int1 100 100 "0x22 0x25" "0x25=0x20" --part LIS3DH
# The LSM6DSO watches at its rate on its high-pass filter, its FIFO
# streaming; another program's gyroscope data ready on INT2.
wake_run LSM6DSO 0x6b lsm6dso-0x6b-int1 104 104 "0x0d 0x0e 0x5e 0x5f" "0x0e=0x02"
# The LIS302DL watches at 100 Hz; another program's data ready on INT2 (I2CFG 100).
wake_run LIS302DL 0x1c lis302dl-0x1c-int1 100 100 "0x22" "0x22=0x20"

# 2. The same chip reading at the full rate, wake-on-motion off: the
# asleep window's CPU against this one.
echo "500 0 866" > $EMU/emu-0x1c/motion
if start_daemon awake --bus $EMU_BUS --address 0x1c --rate 100 --interrupt accel_emu:lis302dl-0x1c-int1; then
    accelctl events --socket /tmp/awake.sock --json --streams events device > /tmp/awake-events 2>&1 &
    client=$!
    sleep 6
    cpu_window $daemon 20
    cpu_awake=$cpu
    kill $client; wait $client 2>/dev/null
    stop_daemon
    echo "LIS302DL at 100 Hz, wake-on-motion off: acceld's CPU over the window: utime + stime ${cpu_awake%% *} ticks in $(echo $cpu_awake | cut -d' ' -f2) s, $(echo $cpu_awake | cut -d' ' -f3) % of a core; run time (schedstat) $(echo $cpu_awake | cut -d' ' -f4) %"
    # Judged on the run time (schedstat, exact to the ns): utime + stime
    # count 10 ms ticks, and 0.1 % of a 20 s window is 2 of them, so the
    # ticks of a process near the target say 0 to 4 from run to run (both
    # figures are shown).
    result=$(echo "$cpu_asleep $cpu_awake" | awk '{
        ratio = ($8 > 0 ? $4 / $8 : -1); tick_ratio = ($5 > 0 ? ($1 / $2) / ($5 / $6) : -1)
        printf "%s asleep %.3f %% of a core (run time; utime + stime %d ticks in %.1f s, %.3f %%), reading at 100 Hz %.3f %% (%d ticks in %.1f s, %.3f %%), the ratio %s (by ticks %s)", \
            (NF == 8 && ratio >= 0 && ratio <= 0.1 ? "pass" : "fail"), $4, $1, $2, $3, $8, $5, $6, $7, \
            (ratio >= 0 ? sprintf("%.4f", ratio) : "undefined"), (tick_ratio >= 0 ? sprintf("%.4f", tick_ratio) : "undefined") }')
    echo "wake-on-motion CPU: ${result#* }"
    # The ratio is judged. The absolute figure is printed against issue
    # 38's 0.1 % of a core: asleep, acceld's threads still come by once a
    # second (the line's wait, for the watchdog; the hub's tick), about a
    # millisecond each under TCG, where a board takes tens of microseconds.
    echo "FIGURE: LIS302DL asleep: $(echo "$result" | cut -d' ' -f3) % of a core (issue 38's target: 0.1 %, on TCG)"
    check "LIS302DL: acceld asleep uses at most 1/10 of its CPU reading at 100 Hz over 20 s (${result#* })" \
        [ "${result%% *}" = pass ]
else
    bad "LIS302DL: acceld at 100 Hz on its INT1 for the CPU comparison"
fi

# Without the INT line, wake-on-motion cannot hear the chip wake: the
# option is a usage error (64), the file's setting a configuration error
# (78), each saying why (docs/ERRORS.md).
out=$(timeout 20 acceld --bus $EMU_BUS --address 0x1c --socket /tmp/nowake.sock --wake-on-motion 2>&1); status=$?
printf '[power]\nwake-on-motion = on\n' > /tmp/nowake.conf
out2=$(timeout 20 acceld --config /tmp/nowake.conf --bus $EMU_BUS --address 0x1c --socket /tmp/nowake.sock 2>&1); status2=$?
echo "$out" | tail -1; echo "$out2" | tail -1
check "wake-on-motion without the INT line: --wake-on-motion exits $status (64), the file's [power] wake-on-motion = on exits $status2 (78), each naming the interrupt" \
    sh -c '[ '$status' = 64 -a '$status2' = 78 ] && echo "$0" | grep -qi "interrupt" && echo "$1" | grep -qi "interrupt"' "$out" "$out2"
rmmod accel_emu
