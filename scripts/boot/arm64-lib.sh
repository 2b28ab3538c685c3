# SPDX-License-Identifier: Apache-2.0
# Sourced by the arm64 guest's scripts (arm64-checks.sh, arm64-bench.sh)
# after guest-lib.sh: the chip emulator on the only I2C bus of QEMU's virt
# board, acceld pointed at it, and the socket clients (python3, which
# starts far quicker under emulation than the static accelctl).

socket=/run/acceld/acceld.sock
# What the emulator's fixed force (mg) reads as at ±2 g, 18 mg per digit.
FORCE_MG="1008 -1008 -2304"
FRAME_ACC='"acc":\[1.0080,-1.0080,-2.3040\]'
show() { systemctl show acceld.service --value -p "$1"; }
is_active() { [ "$(show ActiveState)" = active ]; }
# Polls a command for up to $1 seconds.
within() { local seconds=$1; shift; for _ in $(seq $((seconds * 2))); do "$@" && return 0; sleep 0.5; done; return 1; }

# emu_start [parameters]: i2c-dev and accel_emu (LIS302DL at 0x1c, LIS3DH
# at 0x18); sets EMU_BUS (the N of /dev/i2c-N, found by the adapter's
# name) and EMU (its sysfs folder); the LIS302DL holds FORCE_MG.
emu_start() {
    modprobe i2c-dev && modprobe accel_emu "$@" || { echo "cannot load accel_emu"; return 1; }
    udevadm settle
    EMU_BUS=""
    for adapter in /sys/class/i2c-adapter/i2c-*; do
        [ "$(cat "$adapter/name")" = accel_emu ] && EMU=$adapter && EMU_BUS=${adapter##*i2c-}
    done
    [ -n "$EMU_BUS" ] && echo "$FORCE_MG" > "$EMU/emu-0x1c/motion"
}

# The package's configuration and unit name i2c-1, the Pi's bus: point
# both at the emulator's (docs/INSTALL.md: bus and DeviceAllow= agree).
point_at_emulator() {
    sed -i "s/^bus = 1$/bus = $EMU_BUS/" /etc/acceld/acceld.conf
    mkdir -p /etc/systemd/system/acceld.service.d
    printf '[Service]\nDeviceAllow=\nDeviceAllow=/dev/i2c-%s rw\n' "$EMU_BUS" > /etc/systemd/system/acceld.service.d/emulator-bus.conf
    systemctl daemon-reload
}

# ask REQUEST...: acceld's hello, then one reply line per request.
# client N: hello, the watch reply, then N frames.
ask() { python3 - ask "$socket" "$@" <<<"$CLIENT_PY"; }
client() { python3 - frames "$socket" "$1" <<<"$CLIENT_PY"; }
CLIENT_PY='
import socket, sys
mode, path = sys.argv[1], sys.argv[2]
def connect():
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(90)
    client.connect(path)
    stream = client.makefile("rwb")
    return stream, stream.readline().decode().strip()
def send(stream, request):
    stream.write(request.encode() + b"\n"); stream.flush()
if mode == "ask":
    stream, hello = connect(); print(hello)
    for request in sys.argv[3:]:
        send(stream, request); print(stream.readline().decode().strip())
elif mode == "frames":
    stream, hello = connect(); print(hello)
    send(stream, "{\"class\":\"watch\",\"streams\":[\"frames\"],\"rate\":10}")
    print(stream.readline().decode().strip())
    for _ in range(int(sys.argv[3])):
        print(stream.readline().decode().strip())
'
