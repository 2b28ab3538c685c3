# SPDX-License-Identifier: Apache-2.0
"""acceld-ros2's figures (issue 50's targets), printed, never asserted:
messages received against samples published, the latency from each
sample's instant to its arrival at a subscriber, and the CPU acceld and
acceld-ros2 use, for an LSM6DSO on the chip model.

    scripts/ros2-test.sh --bench [SECONDS] [RATE]

The subscriber is imu-echo.c on Debian's libddsc, waiting on a waitset
and noting the system clock as it takes each message, in a process of
its own (a listener of PyPI's cyclonedds in this one shared the GIL with
the frames' watcher, and its latency was partly Python's); everything
stays on the loopback interface. Builds are the caller's: ACCELD_BUILD
(the ros2 stage's .build/debug, or .build/release for the figures that
count).
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import namedtuple
from pathlib import Path

from harness import BUILD, REPO, Frames, frame_of, start_acceld, stop, system_clock_offset

HERE = Path(__file__).resolve().parent
os.environ["CYCLONEDDS_URI"] = (HERE / "cyclonedds-loopback.xml").as_uri()


def cpu_seconds(pid):
    """User and system CPU of `pid` so far, s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Stamp = namedtuple("Stamp", "sec nanosec")


def subscriber(directory):
    """imu-echo, built here on Debian's libddsc and the generated types."""
    tool = directory / "imu-echo"
    subprocess.run(["gcc", "-O2", "-I", str(REPO / "Sources/CROS2Types/include"), "-o", str(tool),
                    str(HERE / "imu-echo.c"), str(REPO / "Sources/CROS2Types/ros2_types.c"), "-lddsc"], check=True)
    return tool


def main(seconds=60.0, rate=416, part="LSM6DSO"):
    domain = random.Random(os.getpid()).randrange(150, 200)
    directory = Path(tempfile.mkdtemp(prefix="acbench-"))
    sock = str(directory / "acceld.sock")
    (directory / "acceld.conf").write_text(f"[ros2]\ndomain-id = {domain}\n")
    daemon = start_acceld(directory, sock, part, rate)
    arrivals = []
    echo = subprocess.Popen([str(subscriber(directory)), str(domain), "imu/data_raw", str(10**9), str(int(seconds) + 120)],
                            stdout=subprocess.PIPE, text=True)

    def read_lines():
        for line in echo.stdout:  # stamp S.N frame F acc X Y Z received NS
            words = line.split()
            sec, nanosec = words[1].split(".")
            arrivals.append((int(words[-1]), Stamp(int(sec), int(nanosec))))

    threading.Thread(target=read_lines, daemon=True).start()
    with open(directory / "acceld-ros2.log", "wb") as log:
        bridge = subprocess.Popen([str(BUILD / "acceld-ros2"), "--config", str(directory / "acceld.conf"), "--socket", sock],
                                  stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 30
        while not arrivals:
            assert time.monotonic() < deadline, (directory / "acceld-ros2.log").read_text()
            time.sleep(0.05)
        time.sleep(1)  # past discovery and the first frames
        watcher = Frames(sock)
        watcher.start()
        before = system_clock_offset()
        time.sleep(0.5)
        first = len(arrivals)
        cpu0 = (cpu_seconds(daemon.pid), cpu_seconds(bridge.pid), time.monotonic())
        time.sleep(seconds)
        cpu1 = (cpu_seconds(daemon.pid), cpu_seconds(bridge.pid), time.monotonic())
        window = arrivals[first:len(arrivals)]
        time.sleep(0.5)
        after = system_clock_offset()
        watcher.close()
    finally:
        stop(echo)
        stop(bridge)
        stop(daemon)
        shutil.rmtree(directory, ignore_errors=True)

    # Each message's sample by its stamp (harness.frame_of): the samples
    # acceld made between the first and the last received are the ones due.
    seqs = sorted(frame_of(stamp, watcher.frames, before, after)[0]["seq"] for _, stamp in window)
    published = seqs[-1] - seqs[0] + 1
    latencies = sorted((arrived - stamp.sec * 10**9 - stamp.nanosec) / 1e6 for arrived, stamp in window)
    elapsed = cpu1[2] - cpu0[2]
    print(f"bench-dds: {part} at {rate} Hz on the chip model, {seconds:.0f} s, {os.path.basename(str(BUILD))} build")
    print(f"bench-dds: imu/data_raw received {len(set(seqs))} distinct of the {published} samples acceld published "
          f"from the first to the last ({100 * len(set(seqs)) / published:.2f} %), {len(seqs) - len(set(seqs))} twice")
    print(f"bench-dds: latency, sample instant to the subscriber's take: p50 {statistics.median(latencies):.3f} ms, "
          f"p99 {latencies[int(len(latencies) * 0.99)]:.3f} ms, max {latencies[-1]:.3f} ms")
    print(f"bench-dds: CPU over {elapsed:.1f} s: acceld {100 * (cpu1[0] - cpu0[0]) / elapsed:.1f} %, "
          f"acceld-ros2 {100 * (cpu1[1] - cpu0[1]) / elapsed:.1f} % of a core")


if __name__ == "__main__":
    main(*(float(a) if i == 0 else int(a) for i, a in enumerate(sys.argv[1:3])))
