#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The peer benchmark (issue 13, `make peer-bench`): what acceld with one
# client costs against the 20-line Python poller a Raspberry Pi user would
# write, on the chip emulator, in one boot of the kernel stage's Debian
# kernel under QEMU with one vCPU. Prints a line per run, the table (means
# over the rounds) and last the summary line. Not part of the test
# command: it measures, it does not pass or fail (it fails only when the
# guest never reports). docs/PERFORMANCE.md ("Peer benchmark") has results.
# PEER_SECONDS (default 15): each run's window; PEER_ROUNDS (default 2):
# how many times each configuration runs, alternating; PEER_ONLY: a
# pattern, only the runs whose label matches (for measuring one change);
# PEER_REALTIME_SECONDS (default 60): the window of the real-time runs
# (acceld at 400 Hz beside two busy loops, its sampler at SCHED_FIFO or not).
set -euo pipefail
cd "$(dirname "$0")/.."
# python3: Debian's own interpreter and standard library, copied into the
# guest (the one first on PATH may be a pyenv build).
source scripts/setup.sh qemu-system-x86 busybox-static cpio kmod xz-utils make python3
seconds=${PEER_SECONDS:-15}
rounds=${PEER_ROUNDS:-2}
only=${PEER_ONLY:-.}  # a pattern: only the runs whose label matches (e.g. 'FIFO')
realtime=${PEER_REALTIME_SECONDS:-60}

source scripts/kernel/qemu-host.sh  # sets $cache, $kernel_dir and $modules
stage=peer-bench
source scripts/kernel/emulator.sh   # sets $emulator, or fails naming the headers package

echo "peer-bench: building acceld, accelctl and accel-bench (release, static Swift runtime)" >&2
# accel-bench floor: what the DispatchSourceTimer alone costs in the guest.
./scripts/build-release.sh accel-bench

# smbus2 from PyPI (pip honours PIP_FIND_LINKS), unpacked for the guest.
wheels=$cache/wheels
if ! ls "$wheels"/smbus2-*.whl >/dev/null 2>&1; then
    mkdir -p "$wheels"
    pip=$(command -v pip || command -v pip3 || true)
    if [ -n "$pip" ]; then "$pip" download --quiet --no-deps -d "$wheels" smbus2
    else /usr/bin/python3 -m pip download --quiet --no-deps -d "$wheels" smbus2; fi
fi
wheel=$(ls "$wheels"/smbus2-*.whl | tail -1)

# The initramfs: busybox, acceld and accelctl, Debian's python3 with the
# standard library modules the poller imports (found by importing them on
# the host with the same interpreter) and the libraries ldd names, smbus2,
# i2c-dev and the emulator.
python=/usr/bin/python3
root=$cache/peer-initramfs
rm -rf "$root" && mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,run,lib/modules,opt/smbus2}
cp /usr/bin/busybox "$root/bin/"
cp .build-static/release/acceld .build-static/release/accelctl .build-static/release/accel-bench "$root/usr/bin/"
cp "$(readlink -f $python)" "$root/usr/bin/python3"
$python -m zipfile -e "$wheel" "$root/opt/smbus2"
stdlib=$($python -S -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
PYTHONPATH="$root/opt/smbus2" $python -S -c '
import json, sys, time, smbus2
for module in list(sys.modules.values()):
    path = getattr(module, "__file__", None)
    if path and path.startswith(sys.argv[1]): print(path)' "$stdlib" > "$cache/peer-modules"
# Codecs are looked up by name at run time; os.py is the landmark python
# finds its prefix by.
(cat "$cache/peer-modules"; find "$stdlib/encodings" -name '*.py'; echo "$stdlib/os.py") | sort -u | while read -r file; do
    mkdir -p "$root$(dirname "$file")"
    cp "$file" "$root$file"
done
mkdir -p "$root$stdlib/lib-dynload"
for binary in "$root"/usr/bin/* $(grep '\.so$' "$cache/peer-modules"); do
    for library in $(ldd "$binary" | grep -o '/[^ ]*'); do
        mkdir -p "$root$(dirname "$library")"
        cp -L "$library" "$root$library"
    done
done
cp "$(find "$modules" -name i2c-dev.ko | head -1)" "$emulator" "$root/lib/modules/"
cp scripts/kernel/emulator-lib.sh scripts/kernel/peer-bench-guest.sh scripts/kernel/peer-poller.py "$root/"
cat > "$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
echo "PEER-START"
REALTIME_SECONDS=$realtime sh /peer-bench-guest.sh $seconds $rounds '$only' 2>&1
echo "PEER-END"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null) > "$cache/peer-initramfs.cpio"
size=$(( $(stat -c %s "$cache/peer-initramfs.cpio") / 1048576 ))
memory=$(( size * 3 + 256 ))

model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "peer-bench: $(date -u '+%Y-%m-%d %H:%M UTC'), host $(nproc) cores ($model), load average $(cut -d' ' -f1-3 /proc/loadavg); guest $(basename "$modules"), QEMU TCG, 1 vCPU, ${size} MB initramfs" >&2
echo "peer-bench: $rounds round(s) of 10 runs of $seconds s each, alternating acceld + client(s) and the Python poller(s), 2 of $realtime s beside busy loops, then the timer's floor" >&2
log="$cache/peer-console.log"
started=$(date +%s)
timeout $(( rounds * 10 * (seconds + 15) + rounds * 2 * (realtime + 15) + 4 * seconds + 180 )) qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m "$memory" -nographic -no-reboot \
    -kernel "$kernel_dir/vmlinux" -initrd "$cache/peer-initramfs.cpio" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3" > "$log" 2>&1 || true
echo "peer-bench: the guest ran for $(( $(date +%s) - started )) s; host load average at the end $(cut -d' ' -f1-3 /proc/loadavg)" >&2

sed -n '/PEER-START/,/PEER-END/p' "$log" | tr -d '\r' | grep -v -e PEER-START -e PEER-END
tr -d '\r' < "$log" | grep -q '^peer-bench: acceld+client / python CPU' || {
    echo "peer-bench: the guest never printed its summary; its console:" >&2
    tail -40 "$log" >&2
    exit 1
}
