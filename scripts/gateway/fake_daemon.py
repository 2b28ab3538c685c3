# SPDX-License-Identifier: Apache-2.0
"""An acceld of protocol 2, before the vibration streams: it refuses a watch
naming a stream it does not know (bad-field, the watch unchanged), as that
acceld did, and otherwise answers and sends a status a second."""
import json
import os
import socket
import threading

STREAMS_OF_PROTOCOL_2 = {"frames", "orientation", "shake", "freefall", "movement", "tap", "device", "status", "events"}
DEVICE = {"chip": "LIS3DH", "location": "a protocol-2 acceld", "range": 2, "rate": 100, "mode": "normal", "resolution": 10, "state": "ok"}


class OldDaemon:
    def __init__(self, path):
        self.path = path
        self.watches, self.refusals = [], 0
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(path)
        self.server.listen(4)
        self.running = True
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while self.running:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.talk, args=(connection,), daemon=True).start()

    def talk(self, connection):
        f = connection.makefile("rwb")
        send = lambda message: (f.write(json.dumps(message).encode() + b"\n"), f.flush())
        try:
            send({"class": "hello", "protocol": 2, "version": "0.1.0", "device": DEVICE})
            connection.settimeout(1)
            published = 0
            while self.running:
                try:
                    line = f.readline()
                except socket.timeout:
                    published += 4
                    counters = {"published": published, "emptyReads": 0, "overruns": 0, "lost": 0, "busErrors": 0,
                                "recoveries": 0, "reconfigurations": 0}
                    send({"class": "status", "uptime": published / 4, "clients": 1, "counters": counters, "device": DEVICE})
                    continue
                if not line:
                    return
                request = json.loads(line)
                if request["class"] != "watch":
                    continue
                self.watches.append(request)
                unknown = [s for s in request.get("streams", []) if s not in STREAMS_OF_PROTOCOL_2]
                if unknown or "vibration" in request:
                    self.refusals += 1
                    send({"class": "error", "code": "bad-field", "message": f"unknown stream \"{(unknown or ['vibration'])[0]}\"", "request": "watch"})
                else:
                    send({"class": "watch", "streams": request["streams"], "rate": 100.0, "fields": ["acc"]})
        except (OSError, ValueError):
            pass
        finally:
            connection.close()

    def stop(self):
        self.running = False
        self.server.close()
        os.unlink(self.path)
