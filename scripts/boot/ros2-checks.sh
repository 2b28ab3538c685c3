# SPDX-License-Identifier: Apache-2.0
# Sourced by boot-checks.sh in the guest: the ROS 2 bridge's package under
# systemd. Installed, not enabled; started with Cyclone DDS on the loopback
# interface (the guest has no other), it runs as its own user and a
# subscriber on Debian's libddsc (/payload/imu-echo, scripts/ros2/imu-echo.c)
# receives imu/data_raw: the frames acceld serves, in m/s², in imu_link.
# Needs check/contains (guest-lib.sh), within and frames (boot-checks.sh).
ros2_checks() {
    local out expected got exposure
    check "acceld-ros2.service is installed but neither enabled nor running" \
        sh -c '[ -e /usr/lib/systemd/system/acceld-ros2.service ] && ! systemctl -q is-enabled acceld-ros2.service && ! systemctl -q is-active acceld-ros2.service'
    # docs/ROS2.md's drop-in, with the tests' loopback-only configuration.
    install -m 0644 /payload/cyclonedds-loopback.xml /etc/acceld/cyclonedds.xml
    mkdir -p /etc/systemd/system/acceld-ros2.service.d
    printf '[Service]\nEnvironment=CYCLONEDDS_URI=file:///etc/acceld/cyclonedds.xml\n' > /etc/systemd/system/acceld-ros2.service.d/loopback.conf
    systemctl daemon-reload
    systemctl start acceld-ros2.service
    systemctl status acceld-ros2.service --no-pager -l 2>&1 | tail -3
    check "acceld-ros2.service (Type=notify) is active, as acceld-ros2 with acceld as a supplementary group" sh -c '
        systemctl -q is-active acceld-ros2.service || exit 1
        pid=$(systemctl show acceld-ros2.service --value -p MainPID)
        [ "$(stat -c %U /proc/$pid)" = acceld-ros2 ] && grep -q "^Groups:.*$(getent group acceld | cut -d: -f3)" /proc/$pid/status'
    # The stub's registers hold still: every message carries the frame's
    # acceleration times standard gravity.
    expected=$(frames | head -1 | sed -nE 's/.*"acc":\[([-0-9.]+),([-0-9.]+),([-0-9.]+)\].*/\1 \2 \3/p' |
        awk '{ printf "acc %.4f %.4f %.4f", $1 * 9.80665, $2 * 9.80665, $3 * 9.80665 }')
    out=$(CYCLONEDDS_URI=file:///etc/acceld/cyclonedds.xml /payload/imu-echo 0 imu/data_raw 5 60 2>&1); echo "$out" | tail -2
    got=$(echo "$out" | grep -c "^stamp [0-9]*\.[0-9]* frame imu_link $expected received [0-9]*\$")
    check "a DDS subscriber in the guest receives imu/data_raw from the service: 5 of 5 in imu_link, $expected m/s²" [ "$got" = 5 ]
    exposure=$(systemd-analyze security acceld-ros2.service --no-pager | tail -1 | grep -oE '[0-9]+\.[0-9]+')
    check "systemd-analyze security rates acceld-ros2.service $exposure (at most 3.0)" \
        awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 3.0) }'
    systemctl stop acceld-ros2.service
    rm -r /etc/systemd/system/acceld-ros2.service.d /etc/acceld/cyclonedds.xml
    systemctl daemon-reload
}
