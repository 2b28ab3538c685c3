# SPDX-License-Identifier: Apache-2.0
"""`accelctl record --format mcap` read back by independent readers.

acceld runs on the chip model; this test watches its frames on the socket
while accelctl records a bag, then reads the bag with rosbags and with the
official MCAP reader (mcap-ros2-support, CRCs validated) and checks every
message against the other reader and against the frame it came from:
units, frames, covariances (REP-145), stamps (the frame's instant on the
system clock), and the diagnostics.
"""
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

import yaml
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ACCELD_BUILD", REPO / ".build" / "debug"))
G = 9.80665
SECONDS = 3


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


class RecordedBag(unittest.TestCase):
    part = "LSM6DSO"
    rate = 104

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="acros2-"))
        sock = str(cls.directory / "acceld.sock")
        (cls.directory / "acceld.conf").write_text("# defaults\n")
        cls.daemon = subprocess.Popen(
            [str(BUILD / "acceld"), "--simulate", "tour", "--part", cls.part, "--rate", str(cls.rate), "--socket", sock,
             "--config", str(cls.directory / "acceld.conf"), "--calibration-file", str(cls.directory / "calibration.json"),
             "--log-level", "warning"], stderr=open(cls.directory / "acceld.log", "wb"))
        deadline = time.monotonic() + 20
        while not os.path.exists(sock):
            assert cls.daemon.poll() is None and time.monotonic() < deadline, (cls.directory / "acceld.log").read_text()
            time.sleep(0.05)
        time.sleep(0.2)
        cls.watcher = Frames(sock)
        cls.watcher.start()
        cls.bag = cls.directory / "imu.mcap"
        cls.before = system_clock_offset()
        record = subprocess.run([str(BUILD / "accelctl"), "record", "--socket", sock, "--seconds", str(SECONDS), str(cls.bag)],
                                capture_output=True, text=True, timeout=120)
        cls.after = system_clock_offset()
        time.sleep(0.5)  # the watcher reads the last frames
        cls.watcher.close()
        cls.daemon.send_signal(signal.SIGTERM)
        cls.daemon.wait(10)
        assert record.returncode == 0, record.stderr
        cls.official = cls.read_official()
        cls.rosbags = cls.read_rosbags()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.directory, ignore_errors=True)

    @classmethod
    def read_official(cls):
        with open(cls.bag, "rb") as f:
            reader = make_reader(f, decoder_factories=[DecoderFactory()], validate_crcs=True)
            cls.summary = reader.get_summary()
            cls.header = reader.get_header()
            return [(channel.topic, message.log_time, decoded)
                    for _, channel, message, decoded in reader.iter_decoded_messages(log_time_order=False)]

    @classmethod
    def read_rosbags(cls):
        with AnyReader([cls.bag]) as reader:
            return [(connection.topic, stamp, reader.deserialize(raw, connection.msgtype))
                    for connection, stamp, raw in reader.messages()]

    def topic(self, name, messages=None):
        return [m for t, _, m in (messages or self.official) if t == name]

    def test_both_readers_read_every_message_alike(self):
        self.assertEqual(self.header.profile, "ros2")
        self.assertEqual(len(self.official), self.summary.statistics.message_count)
        self.assertEqual(sorted((t, s) for t, s, _ in self.official), sorted((t, s) for t, s, _ in self.rosbags))
        fields = ("orientation", "angular_velocity", "linear_acceleration")
        for topic in ("/imu/data_raw", "/imu/data"):
            ours, theirs = self.topic(topic), self.topic(topic, self.rosbags)
            self.assertEqual(len(ours), len(theirs))
            for a, b in zip(ours, theirs):
                self.assertEqual((a.header.stamp.sec, a.header.stamp.nanosec, a.header.frame_id),
                                 (b.header.stamp.sec, b.header.stamp.nanosec, b.header.frame_id))
                for field in fields:
                    va, vb = getattr(a, field), getattr(b, field)
                    self.assertEqual([va.x, va.y, va.z], [vb.x, vb.y, vb.z])
                self.assertEqual(list(a.linear_acceleration_covariance), list(b.linear_acceleration_covariance))

    def test_channels_say_type_hash_and_qos(self):
        store = get_typestore(Stores.ROS2_JAZZY)
        channels = {c.topic: c for c in self.summary.channels.values()}
        schemas = self.summary.schemas
        expected = {"/imu/data_raw", "/diagnostics"} | ({"/imu/data"} if self.watcher.hello["device"].get("gyroscope") else set())
        self.assertEqual(set(channels), expected)
        for topic, channel in channels.items():
            schema = schemas[channel.schema_id]
            self.assertEqual(channel.metadata["topic_type_hash"], store.hash_rihs01(schema.name))
            qos = yaml.safe_load(channel.metadata["offered_qos_profiles"])[0]
            self.assertEqual(qos["reliability"], 1 if topic == "/diagnostics" else 2)  # sensor data: best effort

    def test_every_imu_message_is_a_frame_in_si_units(self):
        raw = self.topic("/imu/data_raw")
        self.assertGreater(len(raw), SECONDS * self.rate * 0.9)
        gyroscope = self.watcher.hello["device"].get("gyroscope") is not None
        (offset0, at0), (offset1, at1) = self.before, self.after
        frames = self.watcher.frames
        for message in raw:
            stamp = message.header.stamp.sec * 10**9 + message.header.stamp.nanosec
            # The system clock's offset when the frame was made, interpolated.
            t_ns = stamp - offset0
            offset = offset0 + (offset1 - offset0) * (t_ns - at0) / max(1, at1 - at0)
            t_us = round((stamp - offset) / 1000)
            frame = frames.get(t_us) or frames.get(t_us - 1) or frames.get(t_us + 1)
            self.assertIsNotNone(frame, f"no frame at t = {t_us / 1e6:.6f} s for the message stamped {stamp}")
            self.assertLessEqual(abs(stamp - (round(frame["t"] * 1e9) + offset)), 10_000, "stamp against t mapped: > 10 µs")
            self.assertEqual(message.header.frame_id, "imu_link")
            a = message.linear_acceleration
            self.assertEqual([a.x, a.y, a.z], [v * G for v in frame["acc"]])
            self.assertEqual(message.orientation_covariance[0], -1)  # REP-145: not estimated on data_raw
            self.assertEqual(list(message.linear_acceleration_covariance), [0.0] * 9)  # unknown
            w = message.angular_velocity
            if gyroscope:
                self.assertEqual([w.x, w.y, w.z], frame["rotationRate"])
                self.assertEqual(message.angular_velocity_covariance[0], 0)
            else:
                self.assertEqual([w.x, w.y, w.z], [0.0, 0.0, 0.0])
                self.assertEqual(message.angular_velocity_covariance[0], -1)  # REP-145: no gyroscope
        if gyroscope:
            fused = self.topic("/imu/data")
            self.assertEqual(len(fused), len(raw))
            for message in fused:
                q = message.orientation
                self.assertAlmostEqual(math.sqrt(q.x**2 + q.y**2 + q.z**2 + q.w**2), 1, delta=1e-4)
                self.assertEqual(message.orientation_covariance[0], 0)

    def test_stamps_increase_with_no_gap(self):
        stamps = [m.header.stamp.sec * 10**9 + m.header.stamp.nanosec for m in self.topic("/imu/data_raw")]
        steps = [b - a for a, b in zip(stamps, stamps[1:])]
        period = 1e9 / self.rate
        self.assertTrue(all(0.5 * period < s < 1.5 * period for s in steps), f"steps from {min(steps)} to {max(steps)} ns")

    def test_diagnostics_once_a_second(self):
        diagnostics = self.topic("/diagnostics")
        self.assertGreaterEqual(len(diagnostics), SECONDS)
        published = []
        for message in diagnostics:
            [status] = message.status
            values = {kv.key: kv.value for kv in status.values}
            self.assertEqual(status.level, 0, status.message)
            self.assertEqual(values["chip"], self.part)
            self.assertEqual(values["lost"], "0")
            self.assertEqual(status.hardware_id, f"{self.part} at {values['location']}")
            published.append(int(values["published"]))
        self.assertEqual(published, sorted(published))


class RecordedBagWithoutGyroscope(RecordedBag):
    part = "LIS3DH"
    rate = 100


if __name__ == "__main__":
    unittest.main()
