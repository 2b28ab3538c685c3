#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs inside the booted Debian guest, under its real systemd, as the
# oneshot acceld-boot-test.service (scripts/boot-test.sh builds the guest).
# Installs the acceld package the way a Pi owner would (alone, then the
# gateway, the sensor proxy, the ROS 2 bridge and the Python client beside it), then checks socket
# activation, notify readiness, the service user, udev, the device sandbox,
# the watchdog, stop and removal; then make install and uninstall from the
# source tree; then the upgrade from the previous release's package. The
# payload (the packages, this script, guest-lib.sh, in previous/ the previous
# release's package, and in src/ what make install reads) is in /payload. Last line: "BOOT-CHECKS: N passed, M failed".
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
I2CSET=/usr/sbin/i2cset
STUB_BUS=1
insert_stub() { modprobe i2c-stub "$@"; }
. /payload/guest-lib.sh
. /payload/package-checks.sh
. /payload/ros2-checks.sh

socket=/run/acceld/acceld.sock
show() { systemctl show acceld.service --value -p "$1"; }
# Polls a command for up to $1 seconds.
within() { local seconds=$1; shift; for _ in $(seq $((seconds * 5))); do "$@" && return 0; sleep 0.2; done; return 1; }
# One client: prints acceld's hello, then one reply line per request.
ask() {
    python3 - "$socket" "$@" <<'PYTHON'
import socket, sys
client = socket.socket(socket.AF_UNIX)
client.settimeout(30)
client.connect(sys.argv[1])
stream = client.makefile("rwb")
print(stream.readline().decode().strip())
for request in sys.argv[2:]:
    stream.write(request.encode() + b"\n")
    stream.flush()
    print(stream.readline().decode().strip())
PYTHON
}
frames() { accelctl events --socket $socket --json --streams frames --count 2 2>&1; }
ctrl_reg1() { i2cget -y $STUB_BUS 0x1c 0x20; }
powered_up() { [ $(( $(ctrl_reg1) & 0x40 )) -ne 0 ]; }
powered_down() { [ $(( $(ctrl_reg1) & 0x40 )) -eq 0 ]; }

echo "systemd $(systemctl --version | head -1 | cut -d' ' -f2), kernel $(uname -r)"

# 1. The package, as a Pi owner installs it: the daemon alone, which needs
# none of the others.
out=$(apt-get install -y /payload/acceld_*.deb 2>&1); status=$?
echo "$out" | grep -E "^(Setting up|acceld:|E:)" 
check "apt-get install ./acceld_*.deb succeeds offline (dependencies from the base system), alone" \
    sh -c '[ '$status' = 0 ] && ! dpkg -l acceld-gateway acceld-sensorproxy python3-acceld 2>/dev/null | grep -q "^ii"'
id acceld
check "sysusers created the system user acceld, in group i2c" \
    sh -c '[ $(id -u acceld) -lt 1000 ] && id -nG acceld | grep -qw i2c'
check "the postinst enabled and started acceld.socket; acceld.service waits for a client" \
    sh -c '[ "$(systemctl is-enabled acceld.socket)" = enabled ] && systemctl -q is-active acceld.socket && ! systemctl -q is-active acceld.service'
check "the socket is acceld:acceld 0660, as acceld.socket says" \
    [ "$(stat -c '%U:%G %a' $socket)" = "acceld:acceld 660" ]
man acceld 2>&1 | grep -E "^(NAME|FILES|EXIT STATUS|SEE ALSO)" | tr '\n' ' '; echo
check "man acceld and man accelctl show the generated pages with FILES and EXIT STATUS" \
    sh -c 'for page in acceld accelctl; do man $page 2>/dev/null | grep -q "^EXIT STATUS" && man $page 2>/dev/null | grep -q "^FILES" || exit 1; done'
out=$(bash -c 'source /usr/share/bash-completion/completions/accelctl
    COMP_LINE="accelctl events --streams "; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(accelctl events --streams ""); COMP_CWORD=3
    _accelctl; echo "${COMPREPLY[*]}"' 2>&1); echo "completing 'accelctl events --streams ': $out"
check "bash completes accelctl's --streams with the stream names" contains "$out" "frames orientation shake freefall movement device status tap vibration machine events"
check "zsh and fish completions are where those shells look" \
    [ -s /usr/share/zsh/vendor-completions/_accelctl -a -s /usr/share/fish/vendor_completions.d/acceld.fish ]
# The others, beside it: the gateway and the proxy depend on acceld, the
# Python client only recommends it.
out=$(apt-get install -y /payload/acceld-gateway_*.deb /payload/acceld-sensorproxy_*.deb /payload/acceld-ros2_*.deb /payload/python3-acceld_*.deb 2>&1); status=$?
echo "$out" | grep -E "^(Setting up|acceld|E:)"
check "apt-get install of acceld-gateway, acceld-sensorproxy, acceld-ros2 and python3-acceld beside it succeeds offline; acceld.socket stays enabled and listening" \
    sh -c '[ '$status' = 0 ] && [ "$(systemctl is-enabled acceld.socket)" = enabled ] && systemctl -q is-active acceld.socket'

# 2. Two adapters: QEMU's PIIX4 SMBus (i2c-0, blacklisted at boot so that
# its number is fixed) and the stub chip (i2c-1, the Pi's bus number, so the
# shipped unit and configuration work unedited).
modprobe i2c_piix4
load_stub
udevadm settle
echo "adapters: $(for a in /sys/class/i2c-dev/*; do echo -n "$(basename $a)=$(cat $a/name); "; done)"
check "the stub is i2c-1, QEMU's SMBus is i2c-0" \
    sh -c 'grep -q "stub" /sys/class/i2c-dev/i2c-1/name && grep -qi "piix4\|smbus" /sys/class/i2c-dev/i2c-0/name'
check "the udev rule gave /dev/i2c-0 and /dev/i2c-1 to group i2c, mode 0660" \
    [ "$(stat -c '%G %a' /dev/i2c-0 /dev/i2c-1 | sort -u)" = "i2c 660" ]

# 3. Socket activation and readiness.
out=$(ask '{"class":"status"}'); echo "$out"
check "the first client starts acceld.service through the socket and gets hello" contains "$out" '"class":"hello"'
check "the daemon reads the stub chip on /dev/i2c-1" contains "$out" '"chip":"LIS302DL","location":"/dev/i2c-1 at 0x1c"'
within 10 sh -c '[ "$(systemctl show acceld.service --value -p ActiveState)" = active ]'
systemctl show acceld.service -p Type -p ActiveState -p SubState -p MainPID -p StatusText -p NRestarts
check "acceld.service is Type=notify and active: READY=1 reached systemd" \
    sh -c '[ "$(systemctl show acceld.service --value -p Type)" = notify ] && [ "$(systemctl show acceld.service --value -p ActiveState)" = active ]'
check "STATUS= from sd_notify shows in systemctl" sh -c '[ -n "$(systemctl show acceld.service --value -p StatusText)" ]'
pid=$(show MainPID)
grep -E "^(Uid|Gid|Groups)" /proc/$pid/status
check "the daemon runs as acceld (uid, gid) with i2c as a supplementary group" sh -c '
    set -- $(grep ^Uid /proc/'$pid'/status); [ "$2" = "$(id -u acceld)" ] || exit 1
    set -- $(grep ^Gid /proc/'$pid'/status); [ "$2" = "$(id -g acceld)" ] || exit 1
    grep ^Groups /proc/'$pid'/status | grep -qw "$(getent group i2c | cut -d: -f3)"'
out=$(frames); echo "$out" | head -1
check "clients get the stub's registers in g (56/-56/-128 digits: 1.008/-1.008/-2.304 g)" contains "$out" '"acc":\[1.0080,-1.0080,-2.3040\]'
python_client_check
check "the examples are where their users look: Swift in /usr/share/doc/acceld/examples, Python in /usr/share/doc/python3-acceld/examples" \
    [ -s /usr/share/doc/python3-acceld/examples/bubble_level.py -a -s /usr/share/doc/acceld/examples/swift/BubbleLevel.swift ]

# 4. The sandbox: DevicePolicy=closed lets the service open /dev/i2c-1 and
# nothing else. Outside the unit, user acceld can open /dev/i2c-0 (group
# i2c); inside it, the same open fails. A drop-in's DeviceAllow= opens it,
# which is how docs/INSTALL.md says to use another bus.
# (QEMU's SMBus has no I2C block reads, hence --allow-byte-reads.)
out=$(setpriv --reuid=acceld --regid=acceld --init-groups acceld sample --bus 0 --allow-byte-reads --seconds 0.1 2>&1); status=$?
echo "outside the unit, as acceld: exit $status: $out"
check "outside the unit, acceld can open /dev/i2c-0 (no chip there: exit 68)" \
    sh -c '[ '$status' = 68 ] && echo "$0" | grep -q "nothing answers at 0x1c on /dev/i2c-0"' "$out"
dropin=/etc/systemd/system/acceld.service.d
mkdir -p $dropin
printf '[Service]\nExecStart=\nExecStart=/usr/bin/acceld --config /etc/acceld/acceld.conf --bus 0 --allow-byte-reads\n' > $dropin/bus0.conf
systemctl daemon-reload
systemctl restart acceld.service
within 60 sh -c '[ "$(systemctl show acceld.service --value -p ActiveState)" = failed ]' \
    || echo "acceld.service did not fail within 60 s"
# This invocation's lines only: on a starved host systemd adds "Consumed
# 1.2s CPU time" after the daemon's own, so the last few lines may not hold it.
invocation=$(systemctl show acceld.service --value -p InvocationID)
journalctl _SYSTEMD_INVOCATION_ID=$invocation + INVOCATION_ID=$invocation --no-pager -o cat
systemctl show acceld.service -p Result -p ExecMainStatus -p NRestarts
check "inside the unit /dev/i2c-0 is refused (permission, exit 77), and not restarted in a loop" \
    sh -c '[ "$(systemctl show acceld.service --value -p ExecMainStatus)" = 77 ] && [ "$(systemctl show acceld.service --value -p ActiveState)" = failed ] && journalctl _SYSTEMD_INVOCATION_ID=$0 -o cat | grep -q "permission denied opening /dev/i2c-0"' "$invocation"
# (Restart=no: an absent chip is worth retrying in service, not here.)
printf 'DeviceAllow=/dev/i2c-0 rw\nRestart=no\n' >> $dropin/bus0.conf
systemctl daemon-reload
systemctl reset-failed acceld.service
systemctl restart acceld.service
within 60 sh -c '[ "$(systemctl show acceld.service --value -p ActiveState)" = failed ]' \
    || echo "acceld.service did not fail within 60 s"
journalctl _SYSTEMD_INVOCATION_ID=$(systemctl show acceld.service --value -p InvocationID) --no-pager -o cat
check "with a drop-in's DeviceAllow=/dev/i2c-0 the service opens it (no chip there: exit 68)" \
    sh -c '[ "$(systemctl show acceld.service --value -p ExecMainStatus)" = 68 ]'
rm -r $dropin
systemctl daemon-reload
systemctl reset-failed acceld.service

# 5. Calibration, kept in the state directory.
out=$(ask '{"class":"calibrate","offset":[0.1,0,0],"scale":[1,1,1]}'); echo "$out"
ls -l /var/lib/acceld/
check "a root client's calibration is saved in /var/lib/acceld, owned by acceld" \
    sh -c '[ "$(stat -c %U /var/lib/acceld/calibration.json)" = acceld ]'
out=$(frames); echo "$out" | head -1
check "the calibration applies at once (x: 1.008 - 0.1 = 0.908 g)" contains "$out" '"acc":\[0.9080,-1.0080,-2.3040\]'

# 6. The watchdog: a stopped daemon misses its pings; systemd kills and
# restarts it, and clients reconnect through the same socket.
pid=$(show MainPID); restarts=$(show NRestarts)
echo "stopping PID $pid with SIGSTOP (WatchdogSec=$(show WatchdogUSec))"
kill -STOP "$pid"
within 60 sh -c '[ "$(systemctl show acceld.service --value -p NRestarts)" -gt '$restarts' ] && [ "$(systemctl show acceld.service --value -p ActiveState)" = active ]'
journalctl -u acceld.service --no-pager -o cat | grep -i watchdog | tail -2
check "systemd's watchdog restarted the stopped daemon (NRestarts $restarts -> $(show NRestarts), PID $pid -> $(show MainPID))" \
    sh -c '[ "$(systemctl show acceld.service --value -p NRestarts)" -gt '$restarts' ] && [ "$(systemctl show acceld.service --value -p MainPID)" != '$pid' ]'
out=$(frames); echo "$out" | head -1
check "clients reconnect after the restart, and the restarted daemon loaded the calibration" contains "$out" '"acc":\[0.9080,-1.0080,-2.3040\]'

# 7. Stop: the chip powered down, the socket still there, the state kept.
echo "CTRL_REG1 while running: $(ctrl_reg1)"
check "while running, the chip is powered up (CTRL_REG1 PD set)" powered_up
systemctl stop acceld.service
echo "CTRL_REG1 after stop: $(ctrl_reg1)"
check "systemctl stop: the daemon powered the chip down (CTRL_REG1 PD clear)" powered_down
check "after stop the socket file stays, and acceld.socket still listens" \
    sh -c '[ -S '$socket' ] && systemctl -q is-active acceld.socket && ! systemctl -q is-active acceld.service'
check "after stop the state directory keeps the calibration" [ -s /var/lib/acceld/calibration.json ]
out=$(frames); echo "$out" | head -1
check "the next client starts the daemon again, calibrated" contains "$out" '"acc":\[0.9080,-1.0080,-2.3040\]'

# 8. The exposure rating (docs/INSTALL.md records it).
systemd-analyze security acceld.service --no-pager | grep -E "✗|Overall"
exposure=$(systemd-analyze security acceld.service --no-pager | tail -1 | grep -oE '[0-9]+\.[0-9]+')
check "systemd-analyze security rates acceld.service $exposure (at most 2.0: OK)" \
    awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.0) }'

# 8b. The gateway: installed, not enabled; started once its section asks
# for a face, it runs as its own user under its unit's hardening and
# reaches acceld through the socket (group acceld).
check "acceld-gateway's units are installed but neither enabled nor running" \
    sh -c '[ -e /usr/lib/systemd/system/acceld-gateway.service ] && ! systemctl -q is-enabled acceld-gateway.service && ! systemctl -q is-active acceld-gateway.service'
sed -i -e '/^\[gateway\]/,$ s/^http = false/http = true/' -e '/^\[gateway\]/,$ s/^metrics = false/metrics = true/' /etc/acceld/acceld.conf
systemctl start acceld-gateway.service
systemctl status acceld-gateway.service --no-pager -l 2>&1 | tail -4
fetch() { python3 -c "import sys, urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8080' + sys.argv[1], timeout=5).read().decode())" "$1" 2>&1; }
# acceld's counters reach /metrics with its first status, a second or so
# after the connection (the hello): wait for what the check asserts.
published() { fetch /metrics | grep -q '^acceld_samples_published_total [1-9]'; }
within 20 published
out=$(fetch /metrics)
echo "$out" | grep -E '^acceld_(gateway_daemon_connected|samples_published_total|device_state\{state="ok"\}) '
check "acceld-gateway.service (Type=notify) serves /metrics with acceld connected through its socket" \
    sh -c 'systemctl -q is-active acceld-gateway.service && echo "$1" | grep -q "^acceld_samples_published_total [1-9]"' _ "$out"
check "the gateway runs as acceld-gateway, with acceld as a supplementary group" sh -c '
    pid=$(systemctl show acceld-gateway.service --value -p MainPID)
    [ "$(stat -c %U /proc/$pid)" = acceld-gateway ] && grep -q "^Groups:.*$(getent group acceld | cut -d: -f3)" /proc/$pid/status'
check "it serves the live page from /usr/share/acceld/web" contains "$(fetch /)" "acceld-motion\|app.js"
gateway_exposure=$(systemd-analyze security acceld-gateway.service --no-pager | tail -1 | grep -oE '[0-9]+\.[0-9]+')
check "systemd-analyze security rates acceld-gateway.service $gateway_exposure (at most 3.0)" \
    awk -v e="$gateway_exposure" 'BEGIN { exit !(e != "" && e <= 3.0) }'
systemctl stop acceld-gateway.service

# 8c. The sensor proxy: installed, not enabled. With iio-sensor-proxy
# masked (docs/SENSORPROXY.md: both units name the same BusName=), it owns
# net.hadess.SensorProxy under the real dbus-daemon, and monitor-sensor,
# iio-sensor-proxy's own client, run as nobody, shows the orientation acceld
# reads from the stub, then the new one when the registers tilt the chip.
check "acceld-sensorproxy.service is installed but neither enabled nor running" \
    sh -c '[ -e /usr/lib/systemd/system/acceld-sensorproxy.service ] && ! systemctl -q is-enabled acceld-sensorproxy.service && ! systemctl -q is-active acceld-sensorproxy.service'
# Portrait, +Y up (x: 0 - 0.1 g of calibration, y: 1.008 g).
set_burst_sample 0x00 0x38 0x00
systemctl mask iio-sensor-proxy.service 2>&1
systemctl daemon-reload
systemctl start acceld-sensorproxy.service
systemctl status acceld-sensorproxy.service --no-pager -l 2>&1 | tail -4
check "acceld-sensorproxy.service (Type=dbus) is active: it owns net.hadess.SensorProxy on the system bus" \
    sh -c 'systemctl -q is-active acceld-sensorproxy.service && busctl --system status net.hadess.SensorProxy >/dev/null'
has_accelerometer() { busctl --system get-property net.hadess.SensorProxy /net/hadess/SensorProxy net.hadess.SensorProxy HasAccelerometer 2>&1; }
within 30 sh -c '[ "$(busctl --system get-property net.hadess.SensorProxy /net/hadess/SensorProxy net.hadess.SensorProxy HasAccelerometer)" = "b true" ]'
check "HasAccelerometer is true: it reached acceld through the socket ($(has_accelerometer))" [ "$(has_accelerometer)" = "b true" ]
check "it runs as acceld-sensorproxy, with acceld as a supplementary group" sh -c '
    pid=$(systemctl show acceld-sensorproxy.service --value -p MainPID)
    [ "$(stat -c %U /proc/$pid)" = acceld-sensorproxy ] && grep -q "^Groups:.*$(getent group acceld | cut -d: -f3)" /proc/$pid/status'
monitor_log=/tmp/monitor-sensor.log
setpriv --reuid=nobody --regid=nogroup --clear-groups stdbuf -oL -eL monitor-sensor > $monitor_log 2>&1 &
monitor=$!
shows() { grep -qE "(orientation: |orientation changed: )$1" $monitor_log; }
within 60 shows normal
cat $monitor_log
check "monitor-sensor (as nobody) shows acceld's orientation: normal (the stub's +Y up)" shows normal
# Tilted: +X up (x: 1.116 - 0.1 g).
set_burst_sample 0x3e 0x00 0x00
within 60 shows right-up
tail -2 $monitor_log
check "the stub's registers tilt the chip to +X up: monitor-sensor shows right-up" shows right-up
status=$(systemctl show acceld-sensorproxy.service --value -p StatusText); echo "STATUS: $status"
check "systemctl status says who watches: monitor-sensor's claim" contains "$status" "watched for 1 claim"
systemctl restart acceld.service
within 60 grep -q "+++ Accelerometer appeared" $monitor_log
tail -4 $monitor_log
check "acceld restarted: monitor-sensor saw the accelerometer disappear and appear again, the name kept" \
    sh -c 'grep -q -- "--- Accelerometer disappeared" '$monitor_log' && grep -q "+++ Accelerometer appeared" '$monitor_log' && systemctl -q is-active acceld-sensorproxy.service'
kill $monitor
journalctl -u acceld-sensorproxy.service --no-pager -o cat | tail -4
within 30 sh -c 'journalctl -u acceld-sensorproxy.service -o cat | grep -q "no claims left"'
check "monitor-sensor's claim went when it left the bus (the journal says so)" \
    sh -c 'journalctl -u acceld-sensorproxy.service -o cat | grep -q "orientation no longer watched, no claims left"'
sensorproxy_exposure=$(systemd-analyze security acceld-sensorproxy.service --no-pager | tail -1 | grep -oE '[0-9]+\.[0-9]+')
check "systemd-analyze security rates acceld-sensorproxy.service $sensorproxy_exposure (at most 3.0)" \
    awk -v e="$sensorproxy_exposure" 'BEGIN { exit !(e != "" && e <= 3.0) }'
systemctl stop acceld-sensorproxy.service
# The later checks expect the stub's first sample.
set_burst_sample 0x38 0xc8 0x80

# 8d. The ROS 2 bridge (ros2-checks.sh).
ros2_checks

# 9. Removal: the service goes, the user and the calibration stay; the
# gateway, the proxy and the bridge, which depend on acceld, go with it.
out=$(apt-get remove -y acceld 2>&1); status=$?
echo "$out" | grep -E "^(Removing|E:)"
check "apt-get remove stops the service and the socket, and removes the units" \
    sh -c '[ '$status' = 0 ] && ! systemctl -q is-active acceld.socket && ! systemctl -q is-active acceld.service && [ ! -e /usr/lib/systemd/system/acceld.service ]'
check "apt-get remove acceld removes acceld-gateway, acceld-sensorproxy and acceld-ros2 with it (their Depends), and keeps python3-acceld" \
    sh -c '! dpkg -l acceld-gateway acceld-sensorproxy acceld-ros2 2>/dev/null | grep -q "^ii" && [ ! -e /usr/lib/systemd/system/acceld-gateway.service ] && dpkg -l python3-acceld | grep -q "^ii"'
check "after remove the chip is powered down" powered_down
check "after remove the acceld user and the calibration in /var/lib/acceld stay" \
    sh -c 'id acceld >/dev/null && [ -s /var/lib/acceld/calibration.json ]'

# 10. Purge, then make install from the source tree on the live system
# (PREFIX=/usr/local, what `sudo make install` runs), and make uninstall.
apt-get purge -y acceld acceld-gateway acceld-sensorproxy acceld-ros2 python3-acceld >/dev/null 2>&1
check "apt-get purge removes the configuration and the calibration" [ ! -e /etc/acceld -a ! -e /var/lib/acceld ]
check "nothing of the Python client is left after purging python3-acceld (its __pycache__ neither)" [ ! -e /usr/lib/python3/dist-packages/acceld ]
userdel acceld; groupdel i2c
cd /payload/src
out=$(PREFIX=/usr/local ./scripts/install.sh install 2>&1); status=$?; echo "$out"
check "make install (PREFIX=/usr/local) succeeds and creates the acceld user in group i2c again" \
    sh -c '[ '$status' = 0 ] && id -nG acceld | grep -qw i2c'
check "the installed unit starts /usr/local/bin/acceld" \
    grep -q "^ExecStart=/usr/local/bin/acceld --config /etc/acceld/acceld.conf" /usr/local/lib/systemd/system/acceld.service
check "make install re-applied the udev rule for the new i2c group" [ "$(stat -c %G /dev/i2c-1)" = i2c ]
systemctl enable --now acceld.socket 2>&1
out=$(frames); echo "$out" | head -1
check "units, sysusers and udev rule from /usr/local: socket activation works, uncalibrated" contains "$out" '"acc":\[1.0080,-1.0080,-2.3040\]'
echo "bus = 1  # edited" >> /etc/acceld/acceld.conf
out=$(PREFIX=/usr/local ./scripts/install.sh install 2>&1); echo "$out"
check "a second make install keeps the edited configuration, and puts the new one beside it" \
    sh -c 'grep -q edited /etc/acceld/acceld.conf && [ -e /etc/acceld/acceld.conf.new ]'
out=$(PREFIX=/usr/local ./scripts/install.sh uninstall 2>&1); echo "$out"
check "make uninstall stops the units and removes the files; the edited configuration stays" \
    sh -c '! systemctl -q is-active acceld.socket && [ ! -e /usr/local/bin/acceld -a ! -e /usr/local/lib/systemd/system/acceld.socket ] && [ -e /etc/acceld/acceld.conf -a ! -e /etc/acceld/acceld.conf.new ]'

# 11. Upgrade from the previous release's package (package-checks.sh).
upgrade_checks true frames

echo "BOOT-CHECKS: $pass passed, $fail failed"
