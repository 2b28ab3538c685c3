# SPDX-License-Identifier: Apache-2.0
"""A real mosquitto broker on a free port, and mosquitto_sub as the
subscriber, for the gateway's MQTT tests and the fleet benchmark."""
import os
import socket
import subprocess
import tempfile
import time

from stack import wait_for


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """mosquitto with persistence, so that a restart keeps the sessions and
    subscriptions of clients that asked for them (-c), as a fleet's broker
    would be set up."""

    def __init__(self, extra=""):
        self.directory = tempfile.mkdtemp(prefix="acceld-broker-")
        self.port = free_port()
        self.config = os.path.join(self.directory, "mosquitto.conf")
        with open(self.config, "w") as f:
            # user root: run as root (CI is), mosquitto would otherwise become
            # user mosquitto and could not read this private directory.
            f.write(f"user root\nlistener {self.port} 127.0.0.1\n{extra or 'allow_anonymous true'}\npersistence true\n"
                    f"persistence_location {self.directory}/\nautosave_interval 1\nmax_queued_messages 100000\n")
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(["mosquitto", "-c", self.config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self.listening, 10, "mosquitto to listen")

    def listening(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)

    def cpu_seconds(self):
        """User plus system CPU time the broker has used so far."""
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Subscriber:
    """mosquitto_sub at QoS 1 with a persistent session, printing
    'retain topic payload' lines to a file."""

    def __init__(self, broker, topic, client_id="acceld-test-sub", count=None):
        self.path = os.path.join(broker.directory, f"{client_id}.txt")
        self.out = open(self.path, "w")
        args = ["mosquitto_sub", "-p", str(broker.port), "-q", "1", "-c", "-i", client_id, "-F", "%r %t %p", "-t", topic]
        if count:
            args += ["-C", str(count)]
        self.process = subprocess.Popen(args, stdout=self.out, stderr=subprocess.DEVNULL)
        time.sleep(0.3)

    def messages(self):
        """(retained, topic, payload) of every line so far."""
        with open(self.path) as f:
            lines = [line.rstrip("\n").split(" ", 2) for line in f if line.strip()]
        return [(r == "1", t, p) for r, t, p in lines]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.out.close()
