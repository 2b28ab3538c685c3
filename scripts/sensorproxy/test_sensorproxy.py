# SPDX-License-Identifier: Apache-2.0
"""acceld-sensorproxy against clients nobody here wrote: Debian's
monitor-sensor (iio-sensor-proxy 3.0), gdbus and dbus-send, on a private
system bus that reads the project's D-Bus policy file. Every wait is for a
condition, with a generous timeout; nothing is counted in a time window."""
import re
import subprocess
import unittest

from stack import NAME, OBJECT, SENSORPROXY, Stack, wait_for

# tour holds faceUp, landscapeLeft, portrait, faceDown, landscapeRight,
# portraitUpsideDown for 2 s each with 1 s turns, and loops: iio-sensor-
# proxy's names in that order, the flat faces keeping the last.
TOUR = ["right-up", "normal", "left-up", "bottom-up"]
CHANGED = re.compile(r"Accelerometer orientation changed: (\S+)")


class Base(unittest.TestCase):
    def setUp(self):
        self.stack = Stack()
        self.addCleanup(self.stack.stop)

    def changes(self):
        return [m.group(1) for line in self.stack.monitor_lines() if (m := CHANGED.search(line))]


class MonitorSensor(Base):
    def test_monitor_sensor_sees_the_four_orientations_in_the_tours_order(self):
        self.stack.start_acceld("tour")
        self.stack.start_proxy()
        self.stack.monitor()
        # One full loop of the tour (18 s) and then some, on a slow host.
        wait_for(lambda: set(TOUR) <= set(self.changes()), 120, "monitor-sensor to print all four orientations")
        lines = self.stack.monitor_lines()
        self.assertIn("=== Has accelerometer", "\n".join(lines))
        self.assertIn("=== No ambient light sensor", lines)
        self.assertIn("=== No proximity sensor", lines)
        changes = self.changes()
        # Each change is the tour's next upright face: lying face up or
        # down never shows (no "undefined", no skipped face).
        for before, after in zip(changes, changes[1:]):
            self.assertEqual(TOUR[(TOUR.index(before) + 1) % 4], after, f"monitor-sensor's changes: {changes}")
        self.assertIn("orientation watched on acceld's socket: claim of the accelerometer", self.stack.proxy_log())


class Interface(Base):
    def setUp(self):
        super().setUp()
        self.stack.start_acceld("rest")
        self.stack.start_proxy()
        wait_for(lambda: self.stack.prop("HasAccelerometer") == "true", 30, "HasAccelerometer true")

    def test_every_property_and_method_of_iio_sensor_proxy_is_there(self):
        out = self.stack.run(["gdbus", "introspect", "--system", "--dest", NAME, "--object-path", OBJECT]).stdout
        for declaration in ["readonly b HasAccelerometer", "readonly s AccelerometerOrientation", "readonly b HasAmbientLight",
                            "readonly s LightLevelUnit", "readonly d LightLevel", "readonly b HasProximity",
                            "readonly b ProximityNear", "ClaimAccelerometer();", "ReleaseAccelerometer();", "ClaimLight();",
                            "ReleaseLight();", "ClaimProximity();", "ReleaseProximity();", "node Compass"]:
            self.assertIn(declaration, out)
        self.assertEqual(self.stack.prop("HasAmbientLight"), "false")
        self.assertEqual(self.stack.prop("HasProximity"), "false")
        self.assertEqual(self.stack.prop("LightLevelUnit"), "'lux'")
        # rest lies flat: nothing upright has been seen.
        self.assertEqual(self.stack.prop("AccelerometerOrientation"), "'undefined'")
        # The absent sensors can be claimed and released, as iio-sensor-proxy allows.
        for method in ["ClaimLight", "ReleaseLight", "ClaimProximity", "ReleaseProximity"]:
            result = self.stack.gdbus_call(f"{NAME}.{method}")
            self.assertEqual(result.returncode, 0, f"{method}: {result.stderr}")

    def test_wrong_arguments_and_unknown_names_get_the_standard_errors_and_change_nothing(self):
        before = self.stack.proxy_log()
        # dbus-send, not gdbus: gdbus checks the introspection itself first.
        send = ["dbus-send", "--system", "--print-reply", "--dest=" + NAME, OBJECT]
        result = self.stack.run(send + [NAME + ".ClaimAccelerometer", "int32:42"])
        self.assertIn("org.freedesktop.DBus.Error.InvalidArgs", result.stderr)
        result = self.stack.run(send + [NAME + ".Frobnicate"])
        self.assertIn("org.freedesktop.DBus.Error.UnknownMethod", result.stderr)
        result = self.stack.gdbus_call("org.freedesktop.DBus.Properties.Get", NAME, "HasWarpDrive")
        self.assertIn("org.freedesktop.DBus.Error.UnknownProperty", result.stderr)
        result = self.stack.run(send + ["org.freedesktop.DBus.Properties.Set", "string:" + NAME,
                                        "string:HasAccelerometer", "variant:boolean:false"])
        self.assertIn("org.freedesktop.DBus.Error.PropertyReadOnly", result.stderr)
        self.assertEqual(self.stack.prop("HasAccelerometer"), "true")
        # No claim came of the bad call: the proxy logged nothing new.
        self.assertEqual(self.stack.proxy_log(), before)

    def test_the_policy_keeps_the_compass_to_geoclue_and_the_name_to_the_service(self):
        result = self.stack.gdbus_call(NAME + ".Compass.ClaimCompass", path=OBJECT + "/Compass")
        self.assertIn("org.freedesktop.DBus.Error.AccessDenied", result.stderr)
        result = self.stack.run(["gdbus", "introspect", "--system", "--dest", NAME, "--object-path", OBJECT + "/Compass"])
        self.assertIn("org.freedesktop.DBus.Error.AccessDenied", result.stderr)
        # Another user may not take the name (nor queue for it).
        result = self.stack.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.DBus", "--object-path",
                                 "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.RequestName", NAME, "4"], user="nobody")
        self.assertIn("org.freedesktop.DBus.Error.AccessDenied", result.stderr)


class Claims(Base):
    def setUp(self):
        super().setUp()
        self.stack.start_acceld("rest")
        self.stack.start_proxy()

    def test_a_claim_goes_when_its_caller_leaves_the_bus(self):
        # gdbus call claims and exits at once, without releasing.
        result = self.stack.gdbus_call(NAME + ".ClaimAccelerometer")
        self.assertEqual(result.returncode, 0, result.stderr)
        found = wait_for(lambda: re.search(r"orientation watched on acceld's socket: claim of the accelerometer by (:\d+\.\d+)",
                                           self.stack.proxy_log()), 30, "the claim in the log")
        caller = found.group(1)
        wait_for(lambda: f"orientation no longer watched, no claims left: {caller} left the bus" in self.stack.proxy_log(),
                 30, f"{caller}'s claim to go with it")

    def test_claims_are_per_caller(self):
        monitor = self.stack.monitor()  # holds its claim while it runs
        wait_for(lambda: "claim of the accelerometer by" in self.stack.proxy_log(), 30, "monitor-sensor's claim")
        holder = re.search(r"claim of the accelerometer by (:\d+\.\d+)", self.stack.proxy_log()).group(1)
        result = self.stack.gdbus_call(NAME + ".ReleaseAccelerometer")  # a release by someone else
        self.assertEqual(result.returncode, 0, result.stderr)
        result = self.stack.gdbus_call(NAME + ".ClaimAccelerometer")  # and a claim that leaves with its caller
        self.assertEqual(result.returncode, 0, result.stderr)
        # Still watched for monitor-sensor; then it leaves too.
        monitor.terminate()
        wait_for(lambda: f"no claims left: {holder} left the bus" in self.stack.proxy_log(), 30, "monitor-sensor's claim to go")
        self.assertEqual(self.stack.proxy_log().count("orientation no longer watched"), 1, self.stack.proxy_log())


class AcceldComesAndGoes(Base):
    def test_has_accelerometer_follows_acceld_and_the_name_stays(self):
        self.stack.start_proxy()  # before acceld
        self.assertEqual(self.stack.prop("HasAccelerometer"), "false")
        self.stack.monitor()
        wait_for(lambda: "=== No accelerometer" in self.stack.monitor_lines(), 30, "monitor-sensor to see no accelerometer")
        owner = self.stack.owner()
        self.stack.start_acceld("tour")
        wait_for(lambda: "+++ Accelerometer appeared" in self.stack.monitor_lines(), 60, "the accelerometer to appear")
        wait_for(lambda: self.changes(), 60, "an orientation")
        self.stack.stop_acceld()
        wait_for(lambda: "--- Accelerometer disappeared" in self.stack.monitor_lines(), 60, "the accelerometer to disappear")
        self.assertEqual(self.stack.prop("HasAccelerometer"), "false")
        self.assertEqual(self.stack.prop("AccelerometerOrientation"), "'undefined'")
        self.assertEqual(self.stack.owner(), owner)
        appeared = self.stack.monitor_lines().count("+++ Accelerometer appeared")
        self.stack.start_acceld("tour")
        wait_for(lambda: self.stack.monitor_lines().count("+++ Accelerometer appeared") > appeared, 60,
                 "the accelerometer to appear again (reconnection with back-off)")
        self.assertEqual(self.stack.prop("HasAccelerometer"), "true")
        # The claim survived: orientations come again.
        wait_for(lambda: self.changes()[-1] != "undefined", 60, "an orientation after the restart")
        self.assertEqual(self.stack.owner(), owner)


class Errors(Base):
    def run_proxy(self, env=None, user=None):
        args = [SENSORPROXY, "--socket", self.stack.socket]
        if user:
            args = ["setpriv", "--reuid=" + user, "--regid=nogroup", "--clear-groups"] + args
        return subprocess.run(args, env=env or self.stack.env, capture_output=True, text=True, timeout=60)

    def test_no_bus(self):
        env = dict(self.stack.env, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + self.stack.path("no-bus.sock"))
        result = self.run_proxy(env)
        self.assertEqual(result.returncode, 69, result.stderr)
        self.assertIn("DBUS_SYSTEM_BUS_ADDRESS", result.stderr)
        self.assertIn("is dbus running", result.stderr)

    def test_name_taken(self):
        self.stack.start_proxy()
        result = self.run_proxy()
        self.assertEqual(result.returncode, 73, result.stderr)
        self.assertIn("iio-sensor-proxy is probably running", result.stderr)

    def test_policy_refuses_another_user(self):
        result = self.run_proxy(user="nobody")
        self.assertEqual(result.returncode, 77, result.stderr)
        self.assertIn("acceld-sensorproxy.conf", result.stderr)

    def test_bad_option(self):
        result = subprocess.run([SENSORPROXY, "--frobnicate"], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 64, result.stderr)


if __name__ == "__main__":
    unittest.main()
