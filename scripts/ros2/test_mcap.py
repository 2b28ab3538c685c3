# SPDX-License-Identifier: Apache-2.0
"""`accelctl record --format mcap` read back by independent readers.

acceld runs on the chip model; this test watches its frames on the socket
while accelctl records a bag, then reads the bag with rosbags and with the
official MCAP reader (mcap-ros2-support, CRCs validated) and checks every
message against the other reader and against the frame it came from:
units, frames, covariances (REP-145), stamps (the frame's instant on the
system clock), and the diagnostics.
"""
import math
import shutil
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import yaml
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

from harness import BUILD, Frames, check_diagnostics, check_raw_imu, stamp_ns, start_acceld, stop, system_clock_offset

SECONDS = 3


class RecordedBag(unittest.TestCase):
    part = "LSM6DSO"
    rate = 104

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="acros2-"))
        sock = str(cls.directory / "acceld.sock")
        cls.daemon = start_acceld(cls.directory, sock, cls.part, cls.rate)
        cls.watcher = Frames(sock)
        cls.watcher.start()
        cls.bag = cls.directory / "imu.mcap"
        cls.before = system_clock_offset()
        record = subprocess.run([str(BUILD / "accelctl"), "record", "--socket", sock, "--seconds", str(SECONDS), str(cls.bag)],
                                capture_output=True, text=True, timeout=120)
        cls.after = system_clock_offset()
        time.sleep(0.5)  # the watcher reads the last frames
        cls.watcher.close()
        stop(cls.daemon)
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
        gyroscope = self.watcher.hello["device"].get("gyroscope") is not None
        frames = self.watcher.frames
        seqs = [check_raw_imu(self, message, frames, self.before, self.after, self.part, self.rate, gyroscope)["seq"]
                for message in raw]
        # Every sample acceld published from the first to the last is in the
        # bag once, in order, or counted lost by acceld (its diagnostics).
        lost = int({kv.key: kv.value for kv in self.topic("/diagnostics")[-1].status[0].values}["lost"])
        self.assertEqual(seqs, sorted(set(seqs)))
        self.assertLessEqual(seqs[-1] - seqs[0] + 1 - len(seqs), lost, f"{len(seqs)} messages for seq {seqs[0]} to {seqs[-1]}")
        if gyroscope:
            fused = self.topic("/imu/data")
            self.assertEqual(len(fused), len(raw))
            for message in fused:
                q = message.orientation
                self.assertAlmostEqual(math.sqrt(q.x**2 + q.y**2 + q.z**2 + q.w**2), 1, delta=1e-4)
                self.assertEqual(message.orientation_covariance[0], 0)

    def test_stamps_increase_with_no_gap(self):
        stamps = [stamp_ns(m.header.stamp) for m in self.topic("/imu/data_raw")]
        steps = [b - a for a, b in zip(stamps, stamps[1:])]
        period = 1e9 / self.rate
        self.assertTrue(all(0.5 * period < s < 1.5 * period for s in steps), f"steps from {min(steps)} to {max(steps)} ns")

    def test_diagnostics_once_a_second(self):
        diagnostics = self.topic("/diagnostics")
        self.assertGreaterEqual(len(diagnostics), SECONDS)
        check_diagnostics(self, diagnostics, self.part)


class RecordedBagWithoutGyroscope(RecordedBag):
    part = "LIS3DH"
    rate = 100


if __name__ == "__main__":
    unittest.main()
