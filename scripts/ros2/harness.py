# SPDX-License-Identifier: Apache-2.0
"""What the ros2 stage's tests share: acceld on the chip model, a client
watching its frames, and the system clock's offset from the monotonic one."""
import json
import math
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ACCELD_BUILD", REPO / ".build" / "debug"))
G = 9.80665
# The datasheets' noise densities, for the covariances REP-145 asks for:
# the LSM6DSO's rate (DS12140, Table 2), dps/√Hz, and its acceleration at
# ±2 g, g/√Hz; the LIS3DH's datasheet gives none ("unknown": zeros).
GYROSCOPE_NOISE_DENSITY = {"LSM6DSO": 0.0038}
ACCELERATION_NOISE_DENSITY = {"LSM6DSO": 70e-6}


def diagonal(variance):
    return [variance, 0, 0, 0, variance, 0, 0, 0, variance]


def rate_covariance(part, rate):
    """The angular velocity covariance expected of `part` at `rate`: its
    noise density over half the rate, on the diagonal, (rad/s)²."""
    return diagonal((GYROSCOPE_NOISE_DENSITY[part] * math.pi / 180) ** 2 * rate / 2)


def acceleration_covariance(part, rate):
    """The same for the acceleration, (m/s²)²; zeros where the datasheet
    gives no noise density."""
    density = ACCELERATION_NOISE_DENSITY.get(part)
    return diagonal((density * G) ** 2 * rate / 2) if density else [0.0] * 9


def start_acceld(directory, sock, part, rate, motion="tour"):
    """acceld --simulate MOTION on `sock`, serving once this returns."""
    config = directory / "acceld.conf"
    if not config.exists():
        config.write_text("# defaults\n")
    with open(directory / "acceld.log", "ab") as log:
        daemon = subprocess.Popen(
            [str(BUILD / "acceld"), "--simulate", motion, "--part", part, "--rate", str(rate), "--socket", sock,
             "--config", str(config), "--calibration-file", str(directory / "calibration.json"), "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        assert daemon.poll() is None, (directory / "acceld.log").read_text()
        assert time.monotonic() < deadline, f"acceld did not serve {sock} within 30 s"
        probe = socket.socket(socket.AF_UNIX)
        try:
            probe.connect(sock)
            probe.recv(1)  # its hello: serving
            return daemon
        except OSError:
            time.sleep(0.05)
        finally:
            probe.close()


def stop(process, seconds=10):
    """SIGTERM, then the exit code (killed after `seconds`)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def system_clock_offset():
    """CLOCK_REALTIME − CLOCK_MONOTONIC in ns, from the tightest of many brackets."""
    best = None
    for _ in range(200):
        before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        wall = time.clock_gettime_ns(time.CLOCK_REALTIME)
        after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if best is None or after - before < best[0]:
            best = (after - before, wall - (before + after) // 2, (before + after) // 2)
    return best[1], best[2]


class Frames(threading.Thread):
    """acceld's frames as a client receives them, by `t` in µs."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rb")
        self.hello = json.loads(self.file.readline())
        self.sock.sendall(b'{"class":"watch","streams":["frames"],"fields":["acc","attitude","rotation"]}\n')
        self.frames = {}

    def run(self):
        for line in self.file:
            message = json.loads(line)
            if message["class"] == "frame":
                self.frames[round(message["t"] * 1e6)] = message

    def close(self):
        self.sock.shutdown(socket.SHUT_RDWR)
        self.join(5)
        self.file.close()
        self.sock.close()




def stamp_ns(stamp):
    return stamp.sec * 10**9 + stamp.nanosec


def frame_of(stamp, frames, before, after):
    """The frame a message stamped `stamp` came from, and that frame's `t`
    on the system clock: mapped by the clocks' offset measured `before`
    and `after`, interpolated to the frame's instant."""
    (offset0, at0), (offset1, at1) = before, after
    t_ns = stamp_ns(stamp) - offset0
    offset = offset0 + (offset1 - offset0) * (t_ns - at0) / max(1, at1 - at0)
    t_us = round((stamp_ns(stamp) - offset) / 1000)
    frame = frames.get(t_us) or frames.get(t_us - 1) or frames.get(t_us + 1)
    assert frame is not None, f"no frame at t = {t_us / 1e6:.6f} s for the message stamped {stamp_ns(stamp)}"
    return frame, round(frame["t"] * 1e9) + offset


def check_raw_imu(test, message, frames, before, after, part, rate, gyroscope):
    """One imu/data_raw message against the frame it came from: stamped
    within 10 µs of the frame's instant on the system clock, in SI units
    to the bit, REP-145's markers and covariances. Returns the frame."""
    frame, mapped = frame_of(message.header.stamp, frames, before, after)
    test.assertLessEqual(abs(stamp_ns(message.header.stamp) - mapped), 10_000, "stamp against t mapped: > 10 µs")
    test.assertEqual(message.header.frame_id, "imu_link")
    a = message.linear_acceleration
    test.assertEqual([a.x, a.y, a.z], [v * G for v in frame["acc"]])
    test.assertEqual(message.orientation_covariance[0], -1)  # REP-145: not estimated on data_raw
    for got, expected in zip(message.linear_acceleration_covariance, acceleration_covariance(part, rate)):
        test.assertAlmostEqual(got, expected, delta=expected * 1e-12)
    w = message.angular_velocity
    if gyroscope:
        test.assertEqual([w.x, w.y, w.z], frame["rotationRate"])
        for got, expected in zip(message.angular_velocity_covariance, rate_covariance(part, rate)):
            test.assertAlmostEqual(got, expected, delta=expected * 1e-12)
    else:
        test.assertEqual([w.x, w.y, w.z], [0.0, 0.0, 0.0])
        test.assertEqual(message.angular_velocity_covariance[0], -1)  # REP-145: no gyroscope
    return frame


def check_diagnostics(test, messages, part):
    """Diagnostics of a healthy run: one status each, OK, naming the part,
    nothing lost, the published count never falling. Returns the counts."""
    published = []
    for message in messages:
        [status] = message.status
        values = {kv.key: kv.value for kv in status.values}
        test.assertEqual(status.level, 0, status.message)
        test.assertEqual(values["chip"], part)
        test.assertEqual(values["lost"], "0")
        test.assertEqual(status.hardware_id, f"{part} at {values['location']}")
        published.append(int(values["published"]))
    test.assertEqual(published, sorted(published))
    return published
