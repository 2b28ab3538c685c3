# SPDX-License-Identifier: Apache-2.0
"""acceld-ros2 on ROS 2's wire, heard by an independent DDS implementation.

acceld runs on the chip model and acceld-ros2 publishes its frames through
Debian's Cyclone DDS; a subscriber built on PyPI's cyclonedds (its own
Cyclone, with the ROS 2 types declared in ros2_types.py from their .msg
definitions) receives imu/data_raw, imu/data and /diagnostics on the
loopback interface only (cyclonedds-loopback.xml), while a client watches
the same frames on acceld's socket. Every message must be a frame acceld
sent, in SI units, stamped at its instant; none may be missing; the
topics, types, QoS and type hashes are what ROS 2 expects.
"""
import math
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

from cyclonedds.domain import DomainParticipant
from cyclonedds.qos import Policy, Qos
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from rosbags.typesys import Stores, get_typestore

import ros2_types
from harness import BUILD, Frames, check_diagnostics, check_raw_imu, start_acceld, stop, system_clock_offset

HERE = Path(__file__).resolve().parent
os.environ["CYCLONEDDS_URI"] = (HERE / "cyclonedds-loopback.xml").as_uri()
# A domain of this run's own: two runs on one machine do not hear each other.
DOMAIN = int(os.environ.get("ROS2_TEST_DOMAIN", random.Random(os.getpid()).randrange(1, 100)))
SECONDS = 3


class Subscriber(threading.Thread):
    """Takes every sample of the topics given, into lists, until closed."""

    def __init__(self, participant, topics):
        super().__init__(daemon=True)
        keep_all = Policy.History.KeepLast(100000)
        self.readers = {}
        for name, kind, reliable in topics:
            qos = Qos(Policy.Reliability.Reliable(10**9) if reliable else Policy.Reliability.BestEffort, keep_all)
            self.readers[name] = DataReader(participant, Topic(participant, "rt" + name, kind), qos=qos)
        self.samples = {name: [] for name in self.readers}
        self.running = True

    def run(self):
        while self.running:
            for name, reader in self.readers.items():
                self.samples[name].extend(reader.take(1000))
            time.sleep(0.01)

    def close(self):
        self.running = False
        self.join(5)


class Bridge(unittest.TestCase):
    part = "LSM6DSO"
    rate = 416
    namespace = ""
    config = ""

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="acdds-"))
        cls.sock = str(cls.directory / "acceld.sock")
        (cls.directory / "acceld.conf").write_text(f"[ros2]\ndomain-id = {DOMAIN}\n{cls.config}")
        cls.daemon = start_acceld(cls.directory, cls.sock, cls.part, cls.rate)
        cls.participant = DomainParticipant(DOMAIN)
        ns = cls.namespace
        cls.topics = {"raw": ns + "/imu/data_raw", "fused": ns + "/imu/data", "diagnostics": "/diagnostics"}
        cls.subscriber = Subscriber(cls.participant, [(cls.topics["raw"], ros2_types.Imu, False),
                                                      (cls.topics["fused"], ros2_types.Imu, False),
                                                      (cls.topics["diagnostics"], ros2_types.DiagnosticArray, True)])
        cls.subscriber.start()
        # A reader asking the best-effort topic for reliable delivery: matched
        # never, and the bridge says what to change.
        cls.reliable = DataReader(cls.participant, Topic(cls.participant, "rt" + cls.topics["raw"], ros2_types.Imu),
                                  qos=Qos(Policy.Reliability.Reliable(10**9)))
        cls.watcher = Frames(cls.sock)
        cls.watcher.start()
        cls.before = system_clock_offset()
        cls.log = cls.directory / "acceld-ros2.log"
        with open(cls.log, "wb") as log:
            cls.bridge = subprocess.Popen([str(BUILD / "acceld-ros2"), "--config", str(cls.directory / "acceld.conf"),
                                           "--socket", cls.sock], stdout=subprocess.DEVNULL, stderr=log)
        cls.wait_for(lambda: cls.subscriber.samples[cls.topics["raw"]], 30, "the first imu/data_raw message")
        time.sleep(SECONDS)
        # One thread takes at a time: PyPI's cyclonedds crashed taking the
        # built-in topic while another thread took the IMU's.
        cls.subscriber.close()
        cls.publications = cls.discovered()
        cls.bridge_exit = stop(cls.bridge)
        cls.after = system_clock_offset()
        cls.watcher.close()

    @classmethod
    def tearDownClass(cls):
        stop(cls.daemon)
        shutil.rmtree(cls.directory, ignore_errors=True)

    @classmethod
    def wait_for(cls, condition, seconds, what):
        deadline = time.monotonic() + seconds
        while not condition():
            assert cls.bridge.poll() is None, f"acceld-ros2 exited with {cls.bridge.returncode}: {cls.log.read_text()}"
            assert time.monotonic() < deadline, f"no {what} within {seconds} s; acceld-ros2 said: {cls.log.read_text()}"
            time.sleep(0.05)

    @classmethod
    def discovered(cls):
        """The publications DDS discovery announces, by topic, as Debian's
        libddsc reads them (publications.c)."""
        tool = cls.directory / "publications"
        subprocess.run(["gcc", "-o", str(tool), str(HERE / "publications.c"), "-lddsc"], check=True)
        listed = subprocess.run([str(tool), str(DOMAIN), "2"], capture_output=True, text=True, timeout=60, check=True)
        found = {}
        for line in listed.stdout.splitlines():
            topic, kind, reliability, depth, user_data = line.split("\t")
            found[topic] = {"type": kind, "reliability": reliability, "depth": int(depth), "user_data": user_data}
        return found

    def received(self, name):
        return self.subscriber.samples[self.topics[name]]

    def test_the_bridge_says_what_it_does_and_stops_cleanly(self):
        self.assertEqual(self.bridge_exit, 0, self.log.read_text())
        text = self.log.read_text()
        self.assertIn(f"domain {DOMAIN}", text)
        self.assertIn(f"connected to acceld: {self.part}", text)

    def test_a_reliable_subscriber_is_told_what_to_change(self):
        text = self.log.read_text()
        self.assertEqual(text.count(f"a subscriber of {self.topics['raw']} gets nothing"), 1, text)
        self.assertIn("SensorDataQoS", text)

    def test_every_frame_arrives_once_in_si_units_stamped_at_its_instant(self):
        raw = self.received("raw")
        gyroscope = self.watcher.hello["device"].get("gyroscope") is not None
        frames = self.watcher.frames
        matched = []
        for message in raw:
            frame = check_raw_imu(self, message, frames, self.before, self.after, self.part, self.rate, gyroscope)
            matched.append(frame["seq"])
        # Best effort on loopback: every sample between the first and the
        # last received, each once, in order.
        self.assertEqual(matched, list(range(matched[0], matched[0] + len(matched))),
                         f"{len(matched)} messages for seq {matched[0]} to {matched[-1]}")

    def test_the_fused_topic_only_with_a_gyroscope(self):
        fused = self.received("fused")
        if self.watcher.hello["device"].get("gyroscope") is None:
            self.assertEqual(fused, [])
            self.assertNotIn("rt" + self.topics["fused"], self.publications)
            return
        # Each fused message is a raw one's sample (how many arrive in the
        # window is the host's speed, not the bridge's: not asserted).
        raw_stamps = {(m.header.stamp.sec, m.header.stamp.nanosec) for m in self.received("raw")}
        self.assertTrue(fused)
        newest = max(raw_stamps)  # the raw reader is taken first: fused ones after it may lack theirs
        self.assertLessEqual({s for m in fused if (s := (m.header.stamp.sec, m.header.stamp.nanosec)) <= newest}, raw_stamps)
        for message in fused:
            q = message.orientation
            self.assertAlmostEqual(math.sqrt(q.x**2 + q.y**2 + q.z**2 + q.w**2), 1, delta=1e-4)
            self.assertEqual(message.orientation_covariance[0], 0)

    def test_diagnostics_say_the_counters(self):
        diagnostics = self.received("diagnostics")
        self.assertTrue(diagnostics, "no diagnostics while the bridge ran")
        check_diagnostics(self, diagnostics, self.part)

    def test_publications_are_what_ros2_expects(self):
        store = get_typestore(Stores.ROS2_JAZZY)
        expected = {"raw": ("sensor_msgs::msg::dds_::Imu_", "sensor_msgs/msg/Imu", "best-effort", 5),
                    "diagnostics": ("diagnostic_msgs::msg::dds_::DiagnosticArray_", "diagnostic_msgs/msg/DiagnosticArray", "reliable", 10)}
        if self.watcher.hello["device"].get("gyroscope") is not None:
            expected["fused"] = expected["raw"]
        for name, (dds_type, ros_type, reliability, depth) in expected.items():
            found = self.publications.get("rt" + self.topics[name])
            self.assertIsNotNone(found, f"rt{self.topics[name]} not announced; found {sorted(self.publications)}")
            self.assertEqual(found["type"], dds_type)
            self.assertEqual(found["user_data"], f"typehash={store.hash_rihs01(ros_type)};")
            self.assertEqual((found["reliability"], found["depth"]), (reliability, depth))

    def test_the_declared_types_are_rosbags_definitions(self):
        store = get_typestore(Stores.ROS2_HUMBLE)
        for name, kind in [("sensor_msgs/msg/Imu", ros2_types.Imu), ("std_msgs/msg/Header", ros2_types.Header),
                           ("diagnostic_msgs/msg/DiagnosticArray", ros2_types.DiagnosticArray),
                           ("diagnostic_msgs/msg/DiagnosticStatus", ros2_types.DiagnosticStatus),
                           ("diagnostic_msgs/msg/KeyValue", ros2_types.KeyValue)]:
            _, fields = store.fielddefs[name]
            self.assertEqual([f[0] for f in fields], list(kind.__annotations__), name)


class AcceldRestarts(unittest.TestCase):
    """acceld gone and back: the bridge stays up with its participant, says
    so once, its diagnostics say acceld is away (STALE), and the IMU topic
    resumes with no sample made up meanwhile."""

    def test_the_bridge_waits_and_resumes(self):
        directory = Path(tempfile.mkdtemp(prefix="acdds-"))
        self.addCleanup(shutil.rmtree, directory, True)
        sock = str(directory / "acceld.sock")
        (directory / "acceld.conf").write_text(f"[ros2]\ndomain-id = {DOMAIN + 100}\ndiagnostics-period = 0.25\n")
        daemon = start_acceld(directory, sock, "LIS3DH", 100)
        self.addCleanup(lambda: stop(daemon))
        participant = DomainParticipant(DOMAIN + 100)
        subscriber = Subscriber(participant, [("/imu/data_raw", ros2_types.Imu, False),
                                              ("/diagnostics", ros2_types.DiagnosticArray, True)])
        subscriber.start()
        self.addCleanup(subscriber.close)
        log = directory / "acceld-ros2.log"
        with open(log, "wb") as out:
            bridge = subprocess.Popen([str(BUILD / "acceld-ros2"), "--config", str(directory / "acceld.conf"), "--socket", sock],
                                      stdout=subprocess.DEVNULL, stderr=out)
        self.addCleanup(lambda: stop(bridge))

        def wait(condition, what, seconds=30):
            deadline = time.monotonic() + seconds
            while not condition():
                self.assertIsNone(bridge.poll(), log.read_text())
                self.assertLess(time.monotonic(), deadline, f"no {what} within {seconds} s: {log.read_text()}")
                time.sleep(0.05)

        raw, diagnostics = subscriber.samples["/imu/data_raw"], subscriber.samples["/diagnostics"]
        wait(lambda: len(raw) > 50, "IMU messages")
        stop(daemon)
        gone = len(raw)
        wait(lambda: any(m.status[0].level == 3 and "acceld away" in m.status[0].message for m in diagnostics), "STALE diagnostics")
        self.assertLessEqual(len(raw), gone + 5, "messages while acceld was away")
        daemon = start_acceld(directory, sock, "LIS3DH", 100)
        wait(lambda: len(raw) > gone + 50, "IMU messages after acceld came back")
        wait(lambda: diagnostics[-1].status[0].level == 0, "OK diagnostics after acceld came back")
        self.assertEqual(stop(bridge), 0)
        text = log.read_text()
        self.assertEqual(text.count("acceld went away"), 1, text)
        self.assertIn("acceld is back after", text)


class BridgeWithoutGyroscope(Bridge):
    part = "LIS3DH"
    rate = 100
    namespace = "/robot1"
    config = "namespace = /robot1\n"


class BadSettings(unittest.TestCase):
    def check(self, section, said):
        with tempfile.TemporaryDirectory() as directory:
            config = Path(directory) / "acceld.conf"
            config.write_text(f"[ros2]\n{section}\n")
            run = subprocess.run([str(BUILD / "acceld-ros2"), "--config", str(config), "--check-config"],
                                 capture_output=True, text=True, timeout=30)
        self.assertEqual(run.returncode, 78, run.stderr)
        self.assertIn(said, run.stderr)

    def test_names_ros2_refuses(self):
        self.check("namespace = robot1", "must begin with /")
        self.check("raw-topic = imu/9axis", "begins with a digit")
        self.check("fused-topic = imu//data", "//")
        self.check("diagnostics-topic = diagnostics/", "must not end with /")
        self.check("raw-topic = imu/data-raw", "holds '-'")

    def test_a_domain_out_of_range(self):
        self.check("domain-id = 233", "from 0 to 232")
        env = dict(os.environ, ROS_DOMAIN_ID="300")
        run = subprocess.run([str(BUILD / "acceld-ros2"), "--check-config"], capture_output=True, text=True, env=env, timeout=30)
        self.assertEqual(run.returncode, 78, run.stderr)
        self.assertIn("ROS_DOMAIN_ID='300'", run.stderr)


if __name__ == "__main__":
    unittest.main()
