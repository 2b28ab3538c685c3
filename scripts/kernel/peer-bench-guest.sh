#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the peer benchmark's guest (scripts/peer-bench.sh): one vCPU,
# the chip emulator, and, alternately, acceld with one client and the
# Python poller a Pi user would write (peer-poller.py), at 100 and 400 Hz
# on the LIS302DL and at 400 Hz on the LIS3DH (acceld with its FIFO, the
# client allowing 50 ms). Per run: CPU % of each process (utime + stime
# of /proc/PID/stat over the window), the samples it got a second, and
# context switches per sample (every thread's voluntary and involuntary
# switches). Busybox sh and awk.
PATH=/bin:/sbin:/usr/bin:/usr/sbin
SECONDS_PER_RUN=${1:-15}
ROUNDS=${2:-2}
. /emulator-lib.sh
insmod /lib/modules/i2c-dev.ko
emu_load || { echo "peer-bench: the emulator did not load"; exit 1; }
HZ_TICKS=100  # USER_HZ: /proc/PID/stat counts in 1/100 s

ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
switches() { cat /proc/$1/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }
power_down() { i2cset -y $EMU_BUS 0x1c 0x20 0x07; i2cset -y $EMU_BUS 0x18 0x20 0x07; }

# measure ADDRESS PID...: after a warm-up, one window; prints "seconds
# delivered reads dropped" of the chip, then "ticks switches" per PID.
measure() {
    local address=$1; shift
    sleep 4  # start-up (a second or two of the vCPU for a static binary), turn-on
    local c0=$(emu $address counters) before="" after=""
    for pid in "$@"; do before="$before $(ticks $pid) $(switches $pid)"; done
    sleep $SECONDS_PER_RUN
    for pid in "$@"; do after="$after $(ticks $pid) $(switches $pid)"; done
    local c1=$(emu $address counters)
    echo "$c0 $c1 | $before | $after" | awk -F'|' '{
        split($1, c, " "); n = split($2, b, " "); split($3, a, " ")
        printf "%.3f %d %d %d", (c[8] - c[1]) / 1e9, c[11] - c[4], c[12] - c[5], c[10] - c[3]
        for (i = 1; i <= n; i += 2) printf " %d %d", a[i] - b[i], a[i + 1] - b[i + 1]
        print "" }'
}

# thread_ticks PID: "tid name ticks" for each of its threads.
thread_ticks() {
    for task in /proc/$1/task/*; do
        echo "${task##*/} $(tr ' ' _ < $task/comm) $(awk '{ print $14 + $15 }' $task/stat)"
    done 2>/dev/null
}

# acceld_run LABEL RATE [ACCELD OPTIONS -- CLIENT OPTIONS]
acceld_run() {
    local label=$1 rate=$2 address=0x1c; shift 2
    local daemon_options="" client_options="" side=daemon
    for option in "$@"; do
        [ "$option" = -- ] && { side=client; continue; }
        [ $side = daemon ] && daemon_options="$daemon_options $option" || client_options="$client_options $option"
        [ "$option" = 0x18 ] && address=0x18
    done
    start_daemon bench --bus $EMU_BUS --rate $rate $daemon_options || return
    accelctl events --socket /tmp/bench.sock --json --streams frames $client_options > /dev/null 2>&1 &
    local client=$!
    (sleep 4; thread_ticks $daemon > /tmp/threads.before; sleep $SECONDS_PER_RUN; thread_ticks $daemon > /tmp/threads.after) &
    local threads=$!
    local m=$(measure $address $daemon $client)
    wait $threads
    kill $client; wait $client 2>/dev/null
    stop_daemon
    power_down
    echo "$label|acceld+client|$m" >> /tmp/runs
    echo "$m" | awk -v label="$label" -v hz=$HZ_TICKS '{
        printf "%-22s acceld+client  CPU %5.1f + %4.1f = %5.1f %%   samples/s %6.1f   switches/sample %.2f (acceld %.2f, client %.2f)   dropped by the chip %d\n",
            label, $5 / hz / $1 * 100, $7 / hz / $1 * 100, ($5 + $7) / hz / $1 * 100, $2 / $1,
            ($6 + $8) / $2, $6 / $2, $8 / $2, $4 }'
    # Where acceld's CPU went, by thread (ticks of 10 ms in the window).
    awk 'NR == FNR { before[$1] = $3; next } { printf " %s %d", $2, $3 - before[$1] }
         BEGIN { printf "%-22s   acceld by thread:", "" } END { print "" }' /tmp/threads.before /tmp/threads.after
}

# python_run LABEL RATE [lis3dh]
python_run() {
    local label=$1 rate=$2 part=${3:-} address=0x1c
    [ -n "$part" ] && address=0x18
    PYTHONPATH=/opt/smbus2 python3 -S -B /peer-poller.py $EMU_BUS $rate $part > /dev/null 2>/tmp/poller.log &
    local poller=$!
    local m=$(measure $address $poller)
    kill $poller; wait $poller 2>/dev/null
    power_down
    echo "$label|python|$m" >> /tmp/runs
    # The poller prints one line per read: its rate is the chip's reads;
    # "distinct" counts the reads that found a new sample (data-ready).
    echo "$m" | awk -v label="$label" -v hz=$HZ_TICKS '{
        printf "%-22s python         CPU %5.1f %%                 samples/s %6.1f (distinct %.1f)   switches/sample %.2f   dropped by the chip %d\n",
            label, $5 / hz / $1 * 100, $3 / $1, $2 / $1, $6 / $3, $4 }'
    [ -s /tmp/poller.log ] && tail -3 /tmp/poller.log
}

# pair_run LABEL RATE acceld|python: two programs that each want every
# sample at once: acceld with two clients, or two pollers each reading the
# chip itself (a second program pays the whole cost again). Total CPU %
# of every process in the window goes to /tmp/pairs.
pair_run() {
    local label=$1 rate=$2 kind=$3 pids=""
    if [ "$kind" = acceld ]; then
        start_daemon bench --bus $EMU_BUS --rate $rate || return
        pids=$daemon
        for n in 1 2; do
            accelctl events --socket /tmp/bench.sock --json --streams frames > /dev/null 2>&1 &
            pids="$pids $!"
        done
    else
        for n in 1 2; do
            PYTHONPATH=/opt/smbus2 python3 -S -B /peer-poller.py $EMU_BUS $rate > /dev/null 2>/tmp/poller.log &
            pids="$pids $!"
        done
    fi
    local m=$(measure 0x1c $pids)
    for pid in $pids; do [ "$pid" = "${daemon:-}" ] || kill $pid; done
    [ "$kind" = acceld ] && stop_daemon
    wait 2>/dev/null
    power_down
    local cpu=$(echo "$m" | awk -v hz=$HZ_TICKS '{ t = 0; for (i = 5; i <= NF; i += 2) t += $i; printf "%.1f", t / hz / $1 * 100 }')
    echo "$label|$kind|$cpu" >> /tmp/pairs
    printf "%-22s %-14s CPU %5.1f %% (all processes)   dropped by the chip %d\n" "$label" "$kind" "$cpu" "$(echo "$m" | awk '{ print $4 }')"
}

# rt_run LABEL PRIORITY [ACCELD OPTIONS]: acceld at 400 Hz with one client
# taking every frame, beside two busy loops on the one vCPU, its sampler at
# SCHED_FIFO PRIORITY (0: normal scheduling); paced by the chip's INT1 with
# --interrupt (issue 38). The samples the chip made and acceld
# never read (the emulator's dropped) go to /tmp/realtime.
rt_run() {
    local label=$1 priority=$2; shift 2
    printf '[daemon]\nrealtime-priority = %d\n' $priority > /tmp/realtime.conf
    start_daemon bench --bus $EMU_BUS --rate 400 --config /tmp/realtime.conf "$@" || return
    accelctl events --socket /tmp/bench.sock --json --streams frames > /dev/null 2>&1 &
    local client=$!
    yes > /dev/null & local busy1=$!
    yes > /dev/null & local busy2=$!
    local m=$(measure 0x1c $daemon)
    kill $busy1 $busy2 $client; wait $busy1 $busy2 $client 2>/dev/null
    grep -q "normal priority" /tmp/bench.log && echo "$label: $(grep 'normal priority' /tmp/bench.log)"
    stop_daemon
    power_down
    echo "$m" | awk -v label="$label" '{ printf "%-22s made %d, read %d, dropped by the chip %d (%.2f %%)\n", label, $2 + $4, $2, $4, $4 * 100 / ($2 + $4) }'
    echo "$label|$(echo "$m" | awk '{ print $2 + $4, $4 }')" >> /tmp/realtime
}

# floor_run LABEL OPTIONS: accel-bench floor, the design's timing alone
# (no chip, no pipeline, no socket): a DispatchSourceTimer repeating on a
# serial queue, or a thread sleeping on clock_nanosleep. Its CPU % of the
# one vCPU goes to /tmp/floors.
floor_run() {
    local label=$1; shift
    local line=$(accel-bench floor --seconds $SECONDS_PER_RUN --no-hop "$@" 2>&1 | grep '^floor:')
    echo "$label|$(echo "$line" | sed -n 's/.* CPU \([0-9.]*\) %.*/\1/p')" >> /tmp/floors
    printf "%-22s %s\n" "$label" "$line"
}

# The clocksource says what a clock read costs: a vDSO read of the TSC,
# or a system call and an emulated device read (hpet, acpi_pm).
echo "peer-bench guest: $(uname -r), $(grep -c ^processor /proc/cpuinfo) vCPU, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), emulator on i2c-$EMU_BUS, windows of $SECONDS_PER_RUN s, $ROUNDS round(s)"
: > /tmp/runs
# PEER_ONLY (a pattern, as the third argument): only the runs whose label matches.
only=${3:-.}
acceld_run_() { echo "$1" | grep -qE "$only" && acceld_run "$@"; return 0; }
python_run_() { echo "$1" | grep -qE "$only" && python_run "$@"; return 0; }
for round in $(seq $ROUNDS); do
    acceld_run_ "LIS302DL 100 Hz" 100
    acceld_run_ "LIS302DL 100 Hz, 50 ms" 100 -- --latency 50
    python_run_ "LIS302DL 100 Hz" 100
    acceld_run_ "LIS302DL 400 Hz" 400
    acceld_run_ "LIS302DL 400 Hz, 50 ms" 400 -- --latency 50
    python_run_ "LIS302DL 400 Hz" 400
    acceld_run_ "LIS3DH FIFO 400 Hz" 400 --address 0x18 --part LIS3DH -- --latency 50
    python_run_ "LIS3DH FIFO 400 Hz" 400 lis3dh
done

# Two programs at 400 Hz, and the real-time sampler beside two busy loops
# (REALTIME_SECONDS windows: 60 by default), each once per round.
: > /tmp/pairs
: > /tmp/realtime
pair_run_() { echo "$1" | grep -qE "$only" && pair_run "$@"; return 0; }
rt_run_() { echo "$1" | grep -qE "$only" && rt_run "$@"; return 0; }
for round in $(seq $ROUNDS); do
    pair_run_ "two programs 400 Hz" 400 acceld
    pair_run_ "two programs 400 Hz" 400 python
done
window=$SECONDS_PER_RUN
SECONDS_PER_RUN=${REALTIME_SECONDS:-60}
for round in $(seq $ROUNDS); do
    rt_run_ "busy loops, real-time on" 10
    rt_run_ "busy loops, real-time off" 0
    rt_run_ "busy loops, interrupt-paced" 10 --interrupt accel_emu:lis302dl-0x1c-int1
done
SECONDS_PER_RUN=$window

# The floor, once: the timer alone against the poller's whole cost.
: > /tmp/floors
floor_run_() { echo "$1" | grep -qE "$only" && floor_run "$@"; return 0; }
floor_run_ "timer floor 100 Hz" --rate 100
floor_run_ "timer floor 400 Hz" --rate 400
floor_run_ "sleeper floor 100 Hz" --rate 100 --thread
floor_run_ "sleeper floor 400 Hz" --rate 400 --thread

awk -F'|' -v hz=$HZ_TICKS '
    FILENAME == "/tmp/floors" { floor[$1] = $2; next }
    $2 == "python" { split($3, m, " "); n[$1]++; p[$1] += m[5] / hz / m[1] * 100 }
    END {
        if (!("timer floor 100 Hz" in floor) || !n["LIS302DL 100 Hz"]) exit
        printf "peer-bench: a bare DispatchSourceTimer alone (no chip, no pipeline, no socket) / python CPU at 100 Hz %.2f, at 400 Hz %.2f (a clock_nanosleep thread: %.2f, %.2f)\n",
            floor["timer floor 100 Hz"] / (p["LIS302DL 100 Hz"] / n["LIS302DL 100 Hz"]),
            floor["timer floor 400 Hz"] / (p["LIS302DL 400 Hz"] / n["LIS302DL 400 Hz"]),
            floor["sleeper floor 100 Hz"] / (p["LIS302DL 100 Hz"] / n["LIS302DL 100 Hz"]),
            floor["sleeper floor 400 Hz"] / (p["LIS302DL 400 Hz"] / n["LIS302DL 400 Hz"])
    }' /tmp/floors /tmp/runs

awk -F'|' '
    FILENAME == "/tmp/pairs" { cpu[$2] += $3; n[$2]++; next }
    { split($2, m, " "); made[$1] += m[1]; lost[$1] += m[2] }
    END {
        if (n["acceld"] && n["python"])
            printf "peer-bench: two programs at 400 Hz, acceld+2 clients / 2 pollers CPU %.2f\n", (cpu["acceld"] / n["acceld"]) / (cpu["python"] / n["python"])
        on = "busy loops, real-time on"; off = "busy loops, real-time off"
        if (made[on] && made[off])
            printf "peer-bench: 400 Hz beside two busy loops, samples lost with the real-time sampler %d of %d, without %d of %d\n", lost[on], made[on], lost[off], made[off]
        paced = "busy loops, interrupt-paced"
        if (made[paced])
            printf "peer-bench: 400 Hz beside two busy loops, paced by the chip'"'"'s INT1 (real-time thread): samples lost %d of %d\n", lost[paced], made[paced]
    }' /tmp/pairs /tmp/realtime

# The table: means over the rounds. CPU in % of the one vCPU; samples a
# second as each got them; switches per sample summed over all threads.
# A configuration "…, 50 ms" (the client allows 50 ms, so acceld hands its
# frames over in batches) is compared with the poller at the same rate.
echo
echo "| configuration | acceld + client CPU % | python CPU % | ratio | samples/s acceld / python | switches per sample acceld + client / python |"
echo "|---|---|---|---|---|---|"
awk -F'|' -v hz=$HZ_TICKS '
    { split($3, m, " "); key = $1; if (!(key in order)) { order[key] = ++keys; names[keys] = key } }
    $2 == "acceld+client" { n = ++an[key]; acpu[key] += (m[5] + m[7]) / hz / m[1] * 100; arate[key] += m[2] / m[1]; asw[key] += (m[6] + m[8]) / m[2] }
    $2 == "python" { n = ++pn[key]; pcpu[key] += m[5] / hz / m[1] * 100; prate[key] += m[3] / m[1]; psw[key] += m[6] / m[3] }
    END {
        for (i = 1; i <= keys; i++) {
            k = names[i]; q = k; sub(/, 50 ms$/, "", q)
            if (!an[k] || !pn[q]) continue
            a = acpu[k] / an[k]; p = pcpu[q] / pn[q]; ratio[k] = a / p
            printf "| %s | %.1f | %.1f | %.2f | %.1f / %.1f | %.2f / %.2f |\n", k, a, p, ratio[k], arate[k] / an[k], prate[q] / pn[q], asw[k] / an[k], psw[q] / pn[q]
        }
        # A configuration that PEER_ONLY left out shows as n/a, not 0.
        printf "peer-bench: the client taking every frame at once: acceld+client / python CPU at 100 Hz %s, at 400 Hz %s\n",
            shown("LIS302DL 100 Hz"), shown("LIS302DL 400 Hz")
        printf "peer-bench: acceld+client / python CPU at 100 Hz %s, at 400 Hz %s, LIS3DH FIFO at 400 Hz %s\n",
            shown("LIS302DL 100 Hz, 50 ms"), shown("LIS302DL 400 Hz, 50 ms"), shown("LIS3DH FIFO 400 Hz")
    }
    function shown(key) { return key in ratio ? sprintf("%.2f", ratio[key]) : "n/a" }' /tmp/runs
