# SPDX-License-Identifier: Apache-2.0
"""Fixtures: the real acceld on the chip model, traces for it, and a fake daemon.

The daemon binary is $ACCELD_BIN, default .build/debug/acceld in the
repository (build it with `swift build --product acceld`).
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
REPO = PACKAGE.parents[1]
sys.path.insert(0, str(PACKAGE))

import acceld  # noqa: E402

ACCELD = Path(os.environ.get("ACCELD_BIN") or REPO / ".build" / "debug" / "acceld")


def wait_for(condition, seconds=10.0, what="condition"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


class Daemon:
    """acceld --simulate MOTION on a socket of its own, as a subprocess."""

    def __init__(self, directory: Path, motion: str, extra=(), socket_path=None):
        self.directory = directory
        self.motion = motion
        self.extra = list(extra)
        self.socket = str(socket_path or directory / "acceld.sock")
        self.log = directory / "acceld.log"
        self.process = None

    def start(self):
        if not ACCELD.exists():
            pytest.fail(f"{ACCELD} is missing: build it with 'swift build --product acceld' (or set ACCELD_BIN)")
        config = self.directory / "acceld.conf"
        config.write_text("# empty: every setting at its default\n")
        self.process = subprocess.Popen(
            [str(ACCELD), "--simulate", self.motion, "--socket", self.socket, "--config", str(config),
             "--calibration-file", str(self.directory / "calibration.json"), "--log-level", "warning",
             *self.extra],
            stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        wait_for(self._ready, 15, f"acceld to serve {self.socket} (log: {self.log})")
        return self

    def _ready(self):
        if self.process.poll() is not None:
            raise AssertionError(f"acceld exited with {self.process.returncode}: {self.log.read_text()}")
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(self.socket)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def stop(self, sig=signal.SIGTERM):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def workdir():
    """A short directory (socket paths are limited to 107 bytes), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="acpy-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def start_daemon(workdir):
    """start_daemon(motion, *extra options) -> a running Daemon; all are stopped afterwards."""
    daemons = []

    def start(motion="demo", *extra, socket_path=None):
        d = Daemon(workdir, motion, extra, socket_path)
        daemons.append(d)
        return d.start()

    yield start
    for d in daemons:
        d.stop()


def write_trace(path: Path, segments, rate=100):
    """A trace file (docs/TRACE-FORMAT.md) holding each (x, y, z) for its seconds."""
    lines = ["# source: made by the Python client's tests", "# device: none", "t,x,y,z"]
    t = 0.0
    for (x, y, z), seconds in segments:
        for _ in range(int(seconds * rate)):
            lines.append(f"{t:.6f},{x:.5f},{y:.5f},{z:.5f}")
            t += 1.0 / rate
    path.write_text("\n".join(lines) + "\n")
    return path


class FakeDaemon:
    """A tiny stand-in for acceld on a Unix socket: sends `hello` (unless told
    otherwise), then answers each request line with `replies(request)` and
    lets the test push lines with `send()`."""

    HELLO = ('{"class":"hello","protocol":2,"version":"9.9.9","device":{"chip":"LIS302DL",'
             '"location":"fake","range":2,"rate":100,"mode":"normal","resolution":8,"state":"ok"}}')

    def __init__(self, path: str, replies=None, hello=HELLO, hello_delay=0.0):
        self.path = path
        self.replies = replies or (lambda request: [])
        self.hello = hello
        self.hello_delay = hello_delay
        self.requests = []
        self.connections = []
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(path)
        self.server.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        import json
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections.append(conn)
            threading.Thread(target=self._greet_and_read, args=(conn, json), daemon=True).start()

    def _greet_and_read(self, conn, json):
        if self.hello is not None:
            time.sleep(self.hello_delay)
            conn.sendall(self.hello.encode() + b"\n")
        self._read(conn, json)

    def _read(self, conn, json):
        buffer = b""
        while True:
            try:
                chunk = conn.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                request = json.loads(line)
                self.requests.append(request)
                for reply in self.replies(request):
                    self.send(reply, conn)

    def send(self, line: str, conn=None):
        conn = conn or wait_for(lambda: self.connections and self.connections[-1], 5, "a client")
        conn.sendall(line.encode() + b"\n")

    def close(self):
        for c in self.connections:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()
        self.server.close()


@pytest.fixture
def fake_daemon(workdir):
    fakes = []

    def make(replies=None, **options):
        fake = FakeDaemon(str(workdir / f"fake{len(fakes)}.sock"), replies, **options)
        fakes.append(fake)
        return fake

    yield make
    for f in fakes:
        f.close()
