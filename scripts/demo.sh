#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job on the simulated chip: builds acceld, starts the daemon on
# the chip model (asked for explicitly with --simulate; acceld never falls
# back to it by itself), the live page beside it, and accelctl's readable
# view of what acceld serves, until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
Usage: scripts/demo.sh [--part PART] [--seconds N] [MOTION]

Builds acceld, acceld-gateway and accelctl, starts acceld on the chip model
and shows what it serves in words: the events as they happen (orientation,
shake, free fall, movement, tap), with their local time, and one frame a
second as a summary. The live page is on http://127.0.0.1:8080 (DEMO_PORT
sets another port) until the demo ends.

  MOTION        what moves the chip model: demo (the default: the six faces,
                a shake, a drop), tour, shake, drop, rest, machine (a motor),
                or a trace file
  --part PART   the part the model plays, LIS302DL unless named: LIS3DH,
                LSM6DSO (which adds the rotation rate and yaw) or another
                of the table of parts in docs/DRIVER.md
  --seconds N   end after N seconds (default: run until Ctrl-C)
  -h, --help    this text
EOF
}

motion=demo part="" seconds=""
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --part) part=${2:?--part needs a part name}; shift 2 ;;
        --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
        -*) echo "demo: unknown option $1" >&2; usage >&2; exit 64 ;;
        *) motion=$1; shift ;;
    esac
done
if [ -n "$seconds" ] && ! [[ $seconds =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "demo: --seconds takes a number of seconds, not '$seconds'" >&2; exit 64
fi

# Said before anything else, so that a person sees it start at once.
echo "demo: checking what it needs, then building" >&2
source scripts/setup.sh

# SwiftPM prints "[step/steps] Compiling ..." per step: shown as one line
# that counts on a terminal, every 50 steps otherwise; the packages it
# fetches on a fresh clone and errors as they come.
progress() {
    awk -v tty="$([ -t 2 ] && echo 1 || echo 0)" '
        /^\[[0-9]+\/[0-9]+\]/ { split(substr($1, 2), n, "/"); if (tty) printf "\rdemo: building %s: step %d of %d ", product, n[1], n[2] > "/dev/stderr";
                                else if (n[1] % 50 == 0 && n[1] > 0) printf "demo: building %s: step %d of %d\n", product, n[1], n[2] > "/dev/stderr"; next }
        /error:|warning: / { print > "/dev/stderr"; next }
        /^(Fetching|Fetched|Computing|Creating working copy|Working copy)/ { print "demo: " $0 > "/dev/stderr"; next }
        /Build of product|Build complete/ { if (tty) printf "\r\033[K" > "/dev/stderr"; print "demo: " product " built" > "/dev/stderr" }' product="$1"
}
echo "demo: building acceld, acceld-gateway and accelctl (the first build takes a few minutes)" >&2
for product in acceld acceld-gateway accelctl; do
    swift build --product $product 2>&1 | progress $product || true
done
for product in acceld acceld-gateway accelctl; do
    [ -x .build/debug/$product ] || { echo "demo: the build of $product failed (the errors are above)" >&2; exit 1; }
done

scratch=$(mktemp -d -t acceld-demo.XXXXXX)
socket=$scratch/acceld.sock
daemon="" gateway=""
# The gateway may have ended already (port taken: exit 69): its status is
# not the demo's, and the scratch folder goes whatever it was.
trap 'kill $daemon $gateway 2>/dev/null || true; wait $daemon $gateway 2>/dev/null || true; rm -rf "$scratch"' EXIT
# Ctrl-C reaches the whole process group: the client may end before the
# trap runs (its daemon gone, exit 74), so the trap only notes it.
interrupted=""
trap 'interrupted=1' INT TERM
.build/debug/acceld --simulate "$motion" ${part:+--part "$part"} --socket "$socket" \
    --calibration-file "$scratch/calibration.json" 2> "$scratch/acceld.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; kill -0 $daemon 2>/dev/null || break; sleep 0.1; done
[ -S "$socket" ] || { echo "demo: acceld did not start:" >&2; cat "$scratch/acceld.log" >&2; exit 1; }
port=${DEMO_PORT:-8080}
.build/debug/acceld-gateway --http --web-root Web --socket "$socket" --listen "127.0.0.1:$port" 2> "$scratch/gateway.log" &
gateway=$!
# Serving (it says so) or gone (its port taken): a busy machine may take seconds to tell.
for _ in $(seq 100); do grep -q "serving on" "$scratch/gateway.log" && break; kill -0 $gateway 2>/dev/null || break; sleep 0.1; done
if kill -0 $gateway 2>/dev/null; then
    echo "demo: the live page is on http://127.0.0.1:$port while the demo runs" >&2
else
    echo "demo: no live page: $(cat "$scratch/gateway.log") (set DEMO_PORT to another port)" >&2
fi
echo "demo: acceld (pid $daemon) serves the chip model ($motion${part:+ as the $part}) on $socket;" \
     "${seconds:+for $seconds s, }Ctrl-C ends the demo" >&2
# Events in words with their local time, and a frame a second.
.build/debug/accelctl events --socket "$socket" events device frames --rate 1 ${seconds:+--seconds "$seconds"} &
client=$!
status=0
wait $client || status=$?
if [ -n "$interrupted" ] || [ $status -gt 128 ]; then
    # The trap ended the first wait; the client's goodbye comes first.
    wait $client 2>/dev/null || true
    echo
    echo "demo: stopped" >&2
    exit 0
fi
exit $status
