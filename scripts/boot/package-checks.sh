# SPDX-License-Identifier: Apache-2.0
# Sourced by both boot tests' guests (boot-checks.sh, arm64-checks.sh): the
# checks they share. Needs check/contains (guest-lib.sh), and from the
# caller: $socket, ask (a client printing hello, then a reply per request),
# show (systemctl show acceld.service's value), within, and the functions
# named in the arguments.

# python_client_check: the Python client in the package, as the system's
# python3 imports it, reads a frame (the stub's and the emulator's z is
# -2.304 g). Root's import leaves __pycache__ behind, which the prerm
# removes.
python_client_check() {
    local out
    out=$(cd / && python3 -c '
import acceld
with acceld.connect() as motion:
    frame = next(m for m in motion.updates(["frames"]) if isinstance(m, acceld.Frame))
    print(acceld.__file__, "z", frame.acc.z)' 2>&1); echo "$out"
    check "the system's python3 imports the package's client (import acceld) and reads a frame" \
        sh -c 'echo "$0" | grep -q "^/usr/lib/python3/dist-packages/acceld/__init__.py z -2.304"' "$out"
}

# The upgrade from the previous release's package (/payload/previous/) to
# the one under test (/payload/acceld_*.deb): the calibration and an edited
# configuration survive, the running daemon is restarted once, onto the new
# binary, and a connected client reconnects to the new version.

# upgrade_checks PREPARE FRAME: PREPARE points the freshly installed
# previous release at this guest's chip (or is true); FRAME prints a frame.
upgrade_checks() {
    local prepare=$1 frame=$2 previous package out status client pid since new starts
    rm -rf /etc/acceld /var/lib/acceld
    previous=$(ls /payload/previous/acceld_*.deb)
    package=$(ls /payload/acceld_*.deb)
    out=$(apt-get install -y "$previous" 2>&1); status=$?
    echo "$out" | grep -E "^(Setting up acceld|E:)"
    check "the previous release's package $(basename "$previous") installs" [ $status = 0 ]
    $prepare
    sed -i -E 's/^rate = (100|auto)$/rate = 400/' /etc/acceld/acceld.conf  # auto since issue 28, 100 before
    out=$(ask '{"class":"calibrate","offset":[0.2,0,0],"scale":[1,1,1]}'); echo "$out" | head -1
    check "under the previous release: the edited rate (400 Hz) applies and a calibration is saved" \
        sh -c 'echo "$0" | grep -q "\"rate\":400" && [ -s /var/lib/acceld/calibration.json ]' "$out"
    python3 /payload/reconnect-client.py "$socket" > /tmp/reconnect.log 2>&1 &
    client=$!
    within 60 grep -q '^frame' /tmp/reconnect.log
    pid=$(show MainPID)
    sleep 1; since=$(date '+%Y-%m-%d %H:%M:%S'); sleep 1
    # --force-confold, as an unattended upgrade; the same version twice (a
    # first release on an architecture) is reinstalled, so that the
    # package's upgrade path still runs.
    local reinstall=
    [ "$(dpkg-deb -f "$previous" Version)" != "$(dpkg-deb -f "$package" Version)" ] || reinstall=--reinstall
    out=$(apt-get install -y $reinstall -o Dpkg::Options::=--force-confold "$package" 2>&1); status=$?
    echo "$out" | grep -E "^(Preparing|Unpacking|Setting up acceld|E:)"
    new=$(dpkg-query -W -f='${Version}' acceld)
    check "apt-get upgrades it to $new (from $(basename "$previous"))" \
        sh -c '[ '$status' = 0 ] && [ "'$new'" = "$(dpkg-deb -f '"$package"' Version)" ]'
    ls /etc/acceld/
    # The release's own acceld.conf changed too, so dpkg keeps the edited
    # file and puts the new defaults beside it as .dpkg-dist, as Debian does
    # with every changed conffile; nothing else appears.
    check "the edited configuration survives the upgrade; only the new defaults may wait beside it (acceld.conf.dpkg-dist)" \
        sh -c 'grep -q "^rate = 400$" /etc/acceld/acceld.conf && ! ls /etc/acceld/ | grep -v -x -e acceld.conf -e acceld.conf.dpkg-dist -q'
    starts=$(journalctl -u acceld.service --since "$since" --no-pager -o cat | grep -cE "^Started (acceld.service|Accelerometer daemon)")
    echo "after the upgrade: PID $pid -> $(show MainPID), $starts start(s) since the upgrade began"
    check "the upgrade restarted the running daemon once, onto the new binary" \
        sh -c '[ '$starts' = 1 ] && [ "$(systemctl show acceld.service --value -p MainPID)" != '$pid' ] && systemctl -q is-active acceld.service && [ "$(readlink /proc/$(systemctl show acceld.service --value -p MainPID)/exe)" = /usr/bin/acceld ]'
    within 90 sh -c '! kill -0 '$client' 2>/dev/null'
    cat /tmp/reconnect.log
    check "the connected client was hung up on and reconnected: hello from the new version ${new%+dirty}, frames at the edited rate" \
        sh -c 'grep -q "^EOF" /tmp/reconnect.log && grep "^hello" /tmp/reconnect.log | tail -1 | grep -q "\"version\":\"'${new%+dirty}'\".*\"rate\":400" && [ $(grep -c "^frame" /tmp/reconnect.log) = 2 ]'
    out=$($frame); echo "$out" | tail -1
    check "the calibration survives the upgrade (x: 1.008 - 0.2 = 0.808 g)" contains "$out" '"acc":\[0.8080,-1.0080,-2.3040\]'
}
