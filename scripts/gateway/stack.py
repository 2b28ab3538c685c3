# SPDX-License-Identifier: Apache-2.0
"""acceld --simulate and acceld-gateway, started for a test and stopped after
it, plus the small clients the tests speak with (HTTP over a raw socket, a
WebSocket client, acceld's own socket)."""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The debug build the tests use, or ACCELD_BIN_DIR (a release build, for
# bench_gateway.py).
BIN = os.environ.get("ACCELD_BIN_DIR", os.path.join(ROOT, ".build/debug"))
ACCELD = os.path.join(BIN, "acceld")
GATEWAY = os.path.join(BIN, "acceld-gateway")


class Stack:
    """acceld on the chip model and a gateway in front of it, on a free port."""

    def __init__(self, motion="demo", gateway_args=(), part=None, gateway=True, rate=None, acceld_args=()):
        self.directory = tempfile.mkdtemp(prefix="acceld-gateway-test-")
        self.socket = os.path.join(self.directory, "acceld.sock")
        args = [ACCELD, "--simulate", motion, "--socket", self.socket]
        if part:
            args += ["--part", part]
        if rate:
            args += ["--rate", str(rate)]
        args += list(acceld_args)
        self.logs = [open(self.path("acceld.log"), "w")]
        self.acceld = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.logs[0])
        self.gateway = None
        try:
            wait_for(lambda: os.path.exists(self.socket), 10, "acceld's socket")
        except BaseException:
            self.stop()
            raise
        self.gateway_log = self.path("gateway.log")
        self.gateway = None
        try:
            if gateway:
                self.start_gateway(gateway_args)
        except BaseException:
            self.stop()
            raise

    def path(self, name):
        return os.path.join(self.directory, name)

    def start_gateway(self, extra=()):
        args = [GATEWAY, "--http", "--metrics", "--web-root", os.path.join(ROOT, "Web"), "--socket", self.socket,
                "--listen", "127.0.0.1:0", *extra]
        self.logs.append(open(self.gateway_log, "w"))
        self.gateway = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.logs[-1])
        found = wait_for(lambda: re.search(r"serving on 127\.0\.0\.1:(\d+)", read(self.gateway_log)), 10,
                         "the gateway's 'serving on' line (its log: " + self.gateway_log + ")")
        self.port = int(found.group(1))
        self.base = f"http://127.0.0.1:{self.port}"

    def acceld_status(self):
        """acceld's own status, asked on its socket (the gateway's view aside)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.socket)
            f = s.makefile("rwb")
            json.loads(f.readline())  # hello
            f.write(b'{"class":"status"}\n')
            f.flush()
            while True:
                message = json.loads(f.readline())
                if message["class"] == "status":
                    return message

    def stop(self):
        for process in (self.gateway, self.acceld):
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
        for log in self.logs:
            log.close()


def read(path):
    with open(path) as f:
        return f.read()


def wait_for(condition, seconds, what):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def http(port, request, timeout=5):
    """Sends raw request bytes; returns (status, headers text, body bytes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = re.search(rb"content-length: (\d+)", head, re.I)
            if length and len(body) >= int(length.group(1)):
                break
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else None
    return status, head.decode("latin-1"), body


def get(port, path, host="127.0.0.1", extra=""):
    return http(port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n".encode())


class WebSocket:
    """A minimal RFC 6455 client: the handshake, unmasked server frames,
    masked client frames."""

    def __init__(self, port, path, host="127.0.0.1", origin=None, timeout=5):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if origin:
            lines.append(f"Origin: {origin}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        head, _, self.pending = data.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1]) if head else None
        self.head = head.decode("latin-1")

    def _read(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the gateway closed the connection")
            self.pending += chunk
        data, self.pending = self.pending[:n], self.pending[n:]
        return data

    def frame(self):
        """(opcode, payload) of the next frame."""
        first, second = self._read(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._read(8))[0]
        return first & 0x0F, self._read(length)

    def messages(self):
        """The next text message's lines, decoded."""
        while True:
            opcode, payload = self.frame()
            if opcode == 1:
                return [json.loads(line) for line in payload.decode().split("\n") if line]
            if opcode == 8:
                raise EOFError("close frame")

    def send(self, opcode, payload=b""):
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def close(self):
        self.sock.close()
