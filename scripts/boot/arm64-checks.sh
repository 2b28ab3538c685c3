#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs inside the emulated arm64 Debian guest, under its real systemd, as
# the oneshot acceld-boot-test.service (scripts/arm64-boot-test.sh builds
# the guest). Few, decisive checks, as TCG on a Cortex-A53 is slow: the
# arm64 package installs offline; acceld, socket-activated, reads the chip
# emulator's LIS302DL; the watchdog brings back a stopped daemon; accelctl
# probe finds the chips; the upgrade from the previous release; dpkg
# refusing an amd64 package. Payload in /payload: the packages, previous/
# (the previous release's package), foreign/ (an amd64 package), this script, arm64-lib.sh, guest-lib.sh. Last line: "BOOT-CHECKS: N passed, M failed".
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
. /payload/guest-lib.sh
. /payload/package-checks.sh
. /payload/arm64-lib.sh
booted=$(cut -d. -f1 /proc/uptime)

echo "systemd $(systemctl --version | head -1 | cut -d' ' -f2), kernel $(uname -r), uname -m $(uname -m), dpkg $(dpkg --print-architecture), $(nproc) CPUs"

# 0. An amd64 package on this board: dpkg refuses the archive whole,
# before any maintainer script runs, and nothing is installed.
out=$(dpkg -i /payload/foreign/acceld_*_amd64.deb 2>&1); status=$?
echo "$out" | grep -E "architecture"
check "dpkg refuses the amd64 package on arm64 before unpacking it: nothing of acceld is installed" \
    sh -c '[ '$status' != 0 ] && echo "$0" | grep -q "package architecture (amd64) does not match system (arm64)" &&
           ! dpkg-query -W -f="\${Status}" acceld 2>/dev/null | grep -q . && [ ! -e /usr/bin/acceld ]' "$out"

# 1. The package, as a board's owner installs it, with the Python client
# (the gateway and the sensor proxy are the amd64 boot test's).
out=$(apt-get install -y /payload/acceld_*_arm64.deb /payload/python3-acceld_*_all.deb 2>&1); status=$?
echo "$out" | grep -E "^(Setting up (acceld|python3-acceld)|acceld:|E:)"
check "apt-get install ./acceld_*_arm64.deb ./python3-acceld_*_all.deb succeeds offline on $(uname -m) (dpkg: $(dpkg --print-architecture))" \
    sh -c '[ '$status' = 0 ] && [ "$(uname -m)" = aarch64 ] && [ "$(dpkg --print-architecture)" = arm64 ]'

# 2. The chip emulator's LIS302DL at 0x1c, where the configuration expects
# the chip; its bus, the only one on this board, is i2c-0 rather than the
# Pi's i2c-1: the configuration and a drop-in say so (point_at_emulator).
emu_start
point_at_emulator
echo "emulator: i2c-$EMU_BUS ($(stat -c '%G %a' /dev/i2c-$EMU_BUS)); $(dmesg | grep 'accel_emu: i2c' | tail -2 | sed 's/.*accel_emu: //' | tr '\n' ' ')"
check "accel_emu is i2c-$EMU_BUS, group i2c and 0660 (udev); acceld.socket is listening" \
    sh -c '[ "$(stat -c "%G %a" /dev/i2c-'$EMU_BUS')" = "i2c 660" ] && systemctl -q is-active acceld.socket && [ -S '$socket' ]'
out=$(client 2); echo "$out"
check "the first client starts acceld.service through the socket: hello from the LIS302DL on /dev/i2c-$EMU_BUS at 0x1c" \
    contains "$out" '"chip":"LIS302DL","location":"/dev/i2c-'$EMU_BUS' at 0x1c"'
check "frames carry the emulator's force in g (1008/-1008/-2304 mg: 1.008/-1.008/-2.304 g)" contains "$out" "$FRAME_ACC"
python_client_check
within 20 is_active
systemctl show acceld.service -p Type -p ActiveState -p SubState -p MainPID -p StatusText
check "systemctl is-active acceld.service: active, Type=notify (READY=1 reached systemd)" \
    sh -c '[ "$(systemctl is-active acceld.service)" = active ] && [ "$(systemctl show acceld.service --value -p Type)" = notify ]'

# 3. The watchdog: a stopped daemon misses its pings; systemd kills and
# restarts it, and clients come back through the same socket.
pid=$(show MainPID); restarts=$(show NRestarts)
echo "stopping PID $pid with SIGSTOP (WatchdogSec=$(show WatchdogUSec))"
kill -STOP "$pid"
within 90 sh -c '[ "$(systemctl show acceld.service --value -p NRestarts)" -gt '$restarts' ] && [ "$(systemctl show acceld.service --value -p ActiveState)" = active ]'
journalctl -u acceld.service --no-pager -o cat | grep -i watchdog | tail -1
out=$(client 1); echo "$out" | tail -1
check "systemd's watchdog restarted the stopped daemon (NRestarts $restarts -> $(show NRestarts), PID $pid -> $(show MainPID)), and a client gets frames again" \
    sh -c '[ "$(systemctl show acceld.service --value -p NRestarts)" -gt '$restarts' ] && [ "$(systemctl show acceld.service --value -p MainPID)" != '$pid' ] && echo "$0" | grep -q "$1"' "$out" "$FRAME_ACC"

# 4. Bring-up: accelctl refuses the chip while acceld answers (exit 75)
# and says to stop the units; stopped, probe finds the chips on the
# emulator's bus.
out=$(accelctl probe --bus $EMU_BUS --only-bus 2>&1); status=$?
systemctl stop acceld.socket acceld.service
probe=$(accelctl probe --bus $EMU_BUS --only-bus 2>&1); echo "$probe" | tail -3
check "accelctl probe refuses while acceld runs (exit $status); stopped, it finds the LIS302DL at 0x1c and the LIS3DH family at 0x18 on i2c-$EMU_BUS" \
    sh -c '[ '$status' = 75 ] && echo "$0" | grep -q "0x1c: WHO_AM_I 0x3b: LIS302DL" && echo "$0" | grep -q "0x18: WHO_AM_I 0x33: LIS3DH"' "$probe"
systemctl start acceld.socket

# 5. The upgrade from the previous release's package, on a fresh state:
# the calibration and an edited configuration survive, the running daemon
# is restarted once, onto the new binary, and a connected client
# reconnects to the new version (boot-checks.sh's assertions).
apt-get purge -y acceld >/dev/null 2>&1
check "apt-get purge removes the package, its configuration and its state" \
    sh -c '! dpkg -s acceld >/dev/null 2>&1 && [ ! -e /etc/acceld -a ! -e /var/lib/acceld ]'
upgrade_checks point_at_emulator "client 1"

echo "GUEST-TIME: booted in $booted s, the checks ran $(( $(cut -d. -f1 /proc/uptime) - booted )) s"
echo "BOOT-CHECKS: $pass passed, $fail failed"
