# SPDX-License-Identifier: Apache-2.0
"""A private system bus (dbus-daemon with the project's policy file),
acceld --simulate, acceld-sensorproxy on that bus, and the real clients the
tests watch it with: Debian's monitor-sensor, gdbus and dbus-send."""
import os
import re
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("ACCELD_BIN_DIR", os.path.join(ROOT, ".build/debug"))
ACCELD = os.path.join(BIN, "acceld")
SENSORPROXY = os.path.join(BIN, "acceld-sensorproxy")
POLICY = os.path.join(ROOT, "systemd/acceld-sensorproxy-dbus.conf")
NAME = "net.hadess.SensorProxy"
OBJECT = "/net/hadess/SensorProxy"

# The default policy of Debian's /usr/share/dbus-1/system.conf (nothing may
# own a name or call a method unless a file in system.d allows it), then
# the project's file, as the system bus would read it from system.d.
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <include>{policy}</include>
</busconfig>
"""


def wait_for(condition, seconds, what):
    """Polls until condition() is true: generous timeouts, since a starved
    two-core host runs this beside QEMU."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


class Stack:
    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="acceld-sensorproxy-test-")
        # Others (nobody, for the policy test) reach the bus's socket.
        os.chmod(self.directory, 0o755)
        self.processes = []
        self.logs = []
        self.acceld = None
        self.proxy = None
        config = self.path("bus.conf")
        with open(config, "w") as f:
            f.write(BUS_CONFIG.format(socket=self.path("bus.sock"), policy=POLICY))
        self.bus = self.spawn("dbus", ["dbus-daemon", "--config-file=" + config, "--nofork", "--print-address"],
                              stdout=subprocess.PIPE)
        self.address = self.bus.stdout.readline().decode().strip()
        if not self.address.startswith("unix:"):
            raise AssertionError("dbus-daemon printed no address: " + read(self.path("dbus.log")))
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)
        self.socket = self.path("acceld.sock")

    def path(self, name):
        return os.path.join(self.directory, name)

    def spawn(self, name, args, stdout=None, env=None, **kwargs):
        log = open(self.path(name + ".log"), "a")
        self.logs.append(log)
        process = subprocess.Popen(args, stdout=stdout or log, stderr=log, env=env, **kwargs)
        self.processes.append(process)
        return process

    def start_acceld(self, motion="tour"):
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self.acceld = self.spawn("acceld", [ACCELD, "--simulate", motion, "--socket", self.socket])
        wait_for(lambda: os.path.exists(self.socket), 20, "acceld's socket")

    def stop_acceld(self):
        self.acceld.terminate()
        self.acceld.wait(20)

    def start_proxy(self):
        self.proxy = self.spawn("sensorproxy", [SENSORPROXY, "--socket", self.socket], env=self.env)
        wait_for(lambda: "owns net.hadess.SensorProxy" in self.proxy_log(), 20,
                 "acceld-sensorproxy to own the name (its log: " + self.path("sensorproxy.log") + ")")

    def proxy_log(self):
        return read(self.path("sensorproxy.log"))

    def monitor(self):
        """Debian's monitor-sensor, line-buffered into its log (GLib's
        stdout to a file is otherwise block-buffered)."""
        return self.spawn("monitor-sensor", ["stdbuf", "-oL", "-eL", "monitor-sensor"], env=self.env)

    def monitor_lines(self):
        return read(self.path("monitor-sensor.log")).splitlines()

    def run(self, args, user=None):
        if user:
            args = ["setpriv", "--reuid=" + user, "--regid=nogroup", "--clear-groups"] + args
        return subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=60)

    def gdbus_call(self, method, *args, path=OBJECT):
        return self.run(["gdbus", "call", "--system", "--dest", NAME, "--object-path", path, "--method", method, *args])

    def prop(self, name, interface=NAME, path=OBJECT):
        """A property's value as gdbus prints it: true, 'normal', 0.0."""
        result = self.gdbus_call("org.freedesktop.DBus.Properties.Get", interface, name, path=path)
        if result.returncode != 0:
            raise AssertionError(f"Get {name}: {result.stderr}")
        return re.match(r"\(<(.*)>,\)", result.stdout.strip()).group(1)

    def owner(self):
        result = self.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                           "--method", "org.freedesktop.DBus.GetNameOwner", NAME])
        return result.stdout.strip() if result.returncode == 0 else None

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if process.stdout:
                process.stdout.close()
        for log in self.logs:
            log.close()
        if os.environ.get("ACCELD_KEEP_LOGS"):
            print("logs kept in", self.directory)
        else:
            shutil.rmtree(self.directory, ignore_errors=True)
