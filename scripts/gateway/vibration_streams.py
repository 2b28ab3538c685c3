# SPDX-License-Identifier: Apache-2.0
"""What the vibration tests hold the gateway to: the gateway's /metrics as a
table, acceld's own windows and machine changes read on its socket, and the
windows the gateway forwards on /ws/acceld."""
import json
import socket
import threading

from stack import WebSocket, get

WINDOWS = {"window": 1, "overlap": 0.5, "spectrum": 256}  # the gateway's windows


def metrics(stack):
    """{series with labels: value} of the gateway's /metrics."""
    found = {}
    for line in get(stack.port, "/metrics")[2].decode().split("\n"):
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


class AcceldVibration:
    """acceld's own vibration windows and machine changes, read on its socket
    with the gateway's windows: the truth the gateway's copies are held to."""

    def __init__(self, stack):
        self.windows, self.changes = [], []
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(stack.socket)
        # Blocking: a file object that once timed out reads no more; stop() shuts the socket down.
        self.file = self.sock.makefile("rwb")
        self.file.write(json.dumps({"class": "watch", "streams": ["vibration", "machine"], "vibration": WINDOWS}).encode() + b"\n")
        self.file.flush()
        self.running = True
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while self.running:
            try:
                line = self.file.readline()
            except OSError:
                return
            if not line:
                return
            message = json.loads(line)
            if message["class"] == "vibration":
                self.windows.append(message)
            elif message["class"] == "machine":
                self.changes.append(message)

    def stop(self):
        self.running = False
        self.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.sock.close()


class ForwardedVibration:
    """The vibration windows the gateway itself got from acceld, as it
    forwards them on /ws/acceld (acceld's lines, verbatim)."""

    def __init__(self, stack):
        self.windows = []
        self.ws = WebSocket(stack.port, "/ws/acceld")
        self.ws.sock.settimeout(None)
        self.running = True
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while self.running:
            try:
                opcode, payload = self.ws.frame()
            except (OSError, EOFError):
                return
            for line in payload.split(b"\n"):
                if line.startswith(b'{"class":"vibration"'):
                    self.windows.append(json.loads(line))

    def stop(self):
        self.running = False
        self.ws.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.ws.close()
