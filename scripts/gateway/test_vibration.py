# SPDX-License-Identifier: Apache-2.0
"""The gateway's vibration faces (issue 37 item 4) against acceld playing a
machine on the chip model (an LSM6DSO at 1,660 Hz: a 29.95 Hz shaft line and
its harmonics, a bearing defect, starting and stopping every ~40 s): the
Prometheus gauges hold acceld's own figures, MQTT carries them with Home
Assistant's discovery (checked against HA's documented schema, its
templates rendered by Jinja2 as HA renders them), the page draws the
spectrum and the waterfall in Chromium, and a protocol-2 daemon still gets
a watch it knows. Loaded by test_gateway (gateway-test.sh runs it), or on
its own: python3 -m unittest -v test_vibration."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from broker import Broker, Subscriber
from fake_daemon import OldDaemon
from home_assistant import check_discovery, render
from stack import GATEWAY, ROOT, Stack, get, read, wait_for
from test_gyroscope import DRAWN, BrowserTestCase
from vibration_streams import AcceldVibration, ForwardedVibration, metrics

MACHINE = dict(motion="machine", part="LSM6DSO", rate=1660)


class VibrationMetrics(unittest.TestCase):
    def test_gauges_hold_acceld_s_own_windows_and_machine_state(self):
        # The simulated machine as a user would configure it: its class, its
        # shaft found near 30 Hz, its 6205 bearing's geometry.
        config = os.path.join(tempfile.mkdtemp(prefix="acceld-vibration-"), "acceld.conf")
        with open(config, "w") as f:
            f.write("[vibration]\nmachine-class = II\nshaft = auto 20-40\nbearing = geometry 9 7.94 39.04\n")
        stack = Stack(**MACHINE, gateway_args=["--vibration", "--http"], acceld_args=["--config", config])
        truth = AcceldVibration(stack)
        forwarded = ForwardedVibration(stack)
        try:
            wait_for(lambda: metrics(stack).get("acceld_vibration_windows_total", 0) >= 3, 30, "three windows counted")
            # A scrape is one window's figures, to the digit acceld printed (the
            # windows the gateway forwards): velocity in m/s, x 1000 is mm/s.
            def one_of_acceld_s():
                seen = metrics(stack)
                velocity = seen['acceld_vibration_velocity_rms_meters_per_second{axis="vector"}'] * 1000
                rms = seen['acceld_vibration_acceleration_rms_g{axis="vector"}']
                dominant = seen['acceld_vibration_dominant_frequency_hertz{axis="vector"}']
                x = seen['acceld_vibration_velocity_rms_meters_per_second{axis="x"}'] * 1000
                time.sleep(0.3)  # the window may reach the gateway before this reader
                return [w for w in list(forwarded.windows) if abs(w["vector"]["velocity"] - velocity) < 5e-5
                        and abs(w["vector"]["rms"] - rms) < 5e-7 and w["peaks"] and abs(w["peaks"][0][0] - dominant) < 5e-3
                        and abs(w["axes"]["x"]["velocity"] - x) < 5e-5]
            matched = set()
            for _ in range(4):
                found = wait_for(one_of_acceld_s, 10, "the gauges to show one of acceld's windows, to the digit")
                self.assertEqual(len(found), 1, found)
                matched.add(found[0]["seq"])
                time.sleep(1)
            self.assertGreater(len(matched), 1, "the gauges follow the windows")
            # And acceld's analysis for a client of its own agrees: the shaft's
            # line while the machine runs, the velocity in acceld's range.
            running = [w for w in truth.windows if w["state"] == "running"]
            if running:
                velocities = [w["vector"]["velocity"] for w in running]
                self.assertTrue(min(velocities) * 0.9 <= max(w["vector"]["velocity"] for w in forwarded.windows) <= max(velocities) * 1.1)
            # The machine's state: the gauges follow acceld's changes (it
            # starts, runs ~30 s, stops): after a change to "off", off is 1
            # and the others 0, and the change is counted.
            wait_for(lambda: any(c["state"] == "off" for c in truth.changes), 90, "acceld to say the machine stopped")
            wait_for(lambda: metrics(stack).get('acceld_machine_transitions_total{state="off"}', 0) >= 1, 10, "the stop counted")
            def state_shown():
                seen = metrics(stack)
                states = {s: seen[f'acceld_machine_state{{state="{s}"}}'] for s in ("off", "idle", "running")}
                return sum(states.values()) == 1 and states[truth.windows[-1]["state"]] == 1
            wait_for(state_shown, 10, "one machine state at 1, acceld's latest")
            seen = metrics(stack)
            self.assertGreaterEqual(seen['acceld_machine_transitions_total{state="running"}'], 1, "the start was counted too")
            # [vibration] names class II: one zone is 1, the one acceld said.
            zones = {z: seen[f'acceld_vibration_iso_zone{{zone="{z}"}}'] for z in "ABCD"}
            self.assertEqual(sorted(zones.values()), [0, 0, 0, 1], zones)
            self.assertIn(next(z for z, v in zones.items() if v == 1), {w.get("zone") for w in truth.windows}, "a zone acceld gave")
            # And the orders: every one named; the shaft a frequency acceld
            # found (near 29.95 Hz while the machine ran, as its own windows say).
            orders = {o for o in ("shaft", "bpfo", "bpfi", "bsf", "ftf") if f'acceld_vibration_order_amplitude_g{{order="{o}"}}' in seen}
            self.assertEqual(orders, {"shaft", "bpfo", "bpfi", "bsf", "ftf"}, sorted(seen))
            self.assertIn(round(seen["acceld_vibration_shaft_hertz"], 3), {round(w["shaft"], 3) for w in truth.windows if "shaft" in w})
            self.assertTrue(all(abs(w["shaft"] - 29.95) < 1 for w in running), [w["shaft"] for w in running])
            result = subprocess.run(["promtool", "check", "metrics"], input=get(stack.port, "/metrics")[2], capture_output=True)
            self.assertEqual(result.returncode, 0, result.stdout.decode() + result.stderr.decode())
        finally:
            forwarded.stop()
            truth.stop()
            stack.stop()

    def test_a_protocol_2_daemon_gets_a_watch_it_knows(self):
        """An older acceld refuses a watch naming streams it does not have,
        and would then send nothing: the gateway asks it only for its own."""
        directory = tempfile.mkdtemp(prefix="acceld-old-")
        daemon = OldDaemon(os.path.join(directory, "acceld.sock"))
        log = open(os.path.join(directory, "gateway.log"), "w")
        gateway = subprocess.Popen([GATEWAY, "--metrics", "--vibration", "--socket", daemon.path, "--listen", "127.0.0.1:0"],
                                   stdout=subprocess.DEVNULL, stderr=log)
        try:
            found = wait_for(lambda: re.search(r"serving on 127\.0\.0\.1:(\d+)", read(log.name)), 10, "the gateway's 'serving on' line")
            port = int(found.group(1))
            wait_for(lambda: daemon.watches, 10, "the gateway's watch")
            self.assertNotIn("vibration", daemon.watches[0]["streams"])
            self.assertNotIn("machine", daemon.watches[0]["streams"])
            self.assertNotIn("vibration", daemon.watches[0])
            self.assertIn("status", daemon.watches[0]["streams"])
            wait_for(lambda: b"acceld_samples_published_total 4" in get(port, "/metrics")[2], 10, "the old daemon's counters")
            self.assertEqual(daemon.refusals, 0)
        finally:
            gateway.terminate()
            gateway.wait(10)
            log.close()
            daemon.stop()


class VibrationMQTT(unittest.TestCase):
    def test_home_assistant_discovery_and_state_topics(self):
        broker = Broker()
        everything = Subscriber(broker, "#", client_id="everything")
        stack = Stack(**MACHINE, gateway_args=["--vibration", "--mqtt", "--mqtt-broker", f"127.0.0.1:{broker.port}", "--mqtt-board", "board1"])
        truth = AcceldVibration(stack)
        try:
            def published(topic):
                return [(r, p) for r, t, p in everything.messages() if t == topic]
            wait_for(lambda: len(published("acceld/board1/vibration")) >= 2, 60, "two vibration windows on MQTT (10 s apart)")
            wait_for(lambda: published("acceld/board1/machine-state"), 10, "the machine's state")
            topics = {t: p for r, t, p in everything.messages() if t.startswith("homeassistant/")}
            configs = {t: json.loads(p) for t, p in topics.items()}
            check_discovery(self, configs, base="acceld/board1")
            objects = {t.split("/")[3] for t in configs}
            self.assertLessEqual({"velocity_rms", "machine_state", "dominant_frequency"}, objects)
            self.assertEqual(len({c["device"]["identifiers"][0] for c in configs.values()}), 1, "one device")
            self.assertEqual({c["device"]["model"] for c in configs.values()}, {"LSM6DSO"})

            # Windows at most every 10 s of acceld's clock, acceld's figures without the spectra.
            windows = [json.loads(p) for _, p in published("acceld/board1/vibration")]
            for earlier, later in zip(windows, windows[1:]):
                self.assertGreaterEqual(later["t"] - earlier["t"], 10 - 1e-6)
            for window in windows:
                self.assertNotIn("spectrum", window)
                same = [w for w in truth.windows if w["seq"] == window["seq"]]
                if same:
                    self.assertEqual(window["vector"], same[0]["vector"])

            # Each entity's state as Home Assistant would render it from the
            # topics' last (retained) payloads, in its unit.
            def state(config):
                return render(config.get("value_template"), published(config["state_topic"])[-1][1])
            for topic, config in configs.items():
                value = state(config)
                if config.get("device_class") == "enum":
                    self.assertIn(value, config["options"] + ["None"], topic)
                elif "unit_of_measurement" in config:
                    self.assertRegex(value, r"^\d+(\.\d+)?$|^None$", f"{topic}: a number in {config['unit_of_measurement']}")
                else:
                    self.assertIn(value, ["ON", "OFF"], topic)
            by_object = {t.split("/")[3]: c for t, c in configs.items()}
            velocity = float(state(by_object["velocity_rms"]))
            self.assertIn(velocity, [json.loads(p)["vector"]["velocity"] for _, p in published("acceld/board1/vibration")],
                          "mm/s as acceld wrote it in a window published")
            # acceld's analysis for a client of its own agrees on the size (its
            # windows need not begin where the gateway's do).
            own = [w["vector"]["velocity"] for w in truth.windows]
            self.assertTrue(min(own) * 0.9 <= velocity <= max(own) * 1.1, f"{velocity} mm/s within acceld's {min(own)}..{max(own)}")
            machine = state(by_object["machine_state"])
            self.assertEqual(state(by_object["running"]), "ON" if machine == "running" else "OFF")
            if state(by_object["dominant_frequency"]) != "None" and machine == "running":
                self.assertAlmostEqual(float(state(by_object["dominant_frequency"])), 29.95, delta=0.5, msg="the shaft's line, Hz")

            # A late subscriber (Home Assistant starting) gets every config and
            # the states at once: retained.
            late = Subscriber(broker, "homeassistant/#", client_id="late", count=len(configs))
            late.process.wait(10)
            self.assertEqual({t for r, t, p in late.messages() if r}, set(configs))
            late.stop()
            for topic in ("acceld/board1/machine-state", "acceld/board1/vibration", "acceld/board1/gateway", "acceld/board1/daemon"):
                late = Subscriber(broker, topic, client_id="late-" + topic.split("/")[-1], count=1)
                late.process.wait(10)
                self.assertEqual([r for r, t, p in late.messages()], [True], f"{topic} is retained")
                late.stop()

            # Availability follows the gateway's last will: killed, it is offline.
            for config in configs.values():
                for item in config["availability"]:
                    self.assertEqual(render(item["value_template"], published(item["topic"])[-1][1]), item["payload_available"])
            stack.gateway.send_signal(signal.SIGKILL)
            stack.gateway.wait(10)
            gateway_topic = "acceld/board1/gateway"
            item = next(i for i in by_object["velocity_rms"]["availability"] if i["topic"] == gateway_topic)
            wait_for(lambda: render(item["value_template"], published(gateway_topic)[-1][1]) == item["payload_not_available"],
                     60, "the broker to publish the gateway's will (keepalive 30 s)")
        finally:
            truth.stop()
            stack.stop()
            everything.stop()
            broker.stop()


    def test_the_documented_automation_names_the_discovered_entity(self):
        """docs/GATEWAY.md's "washing machine is done" automation is YAML
        Home Assistant reads, and names the entity discovery makes: HA's id
        is the device's name and the entity's, slugified."""
        import yaml
        text = read(os.path.join(ROOT, "docs/GATEWAY.md"))
        block = re.search(r"```yaml\n(# configuration\.yaml.*?)```", text, re.S).group(1)
        automation = yaml.safe_load(block)["automation"][0]
        trigger = automation["triggers"][0]
        slug = lambda name: re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        self.assertEqual(trigger["entity_id"], f"sensor.{slug('washing-machine')}_{slug('Machine state')}")
        options = ["off", "idle", "running"]
        self.assertIn(trigger["from"], options)
        self.assertLessEqual(set(trigger["to"]), set(options))
        self.assertEqual(trigger["trigger"], "state")
        self.assertTrue(automation["actions"][0]["action"].startswith("notify."))

    def test_a_broker_that_comes_back_empty_gets_the_discovery_again(self):
        """The broker away and back without its store (retained messages
        lost): the gateway reconnects, as the MQTT face does, and sends the
        discovery configs again, so the board is back in Home Assistant."""
        broker = Broker()
        stack = Stack(**MACHINE, gateway_args=["--vibration", "--mqtt", "--mqtt-broker", f"127.0.0.1:{broker.port}", "--mqtt-board", "board1"])
        subscribers = []
        subscribe = lambda *args, **kwargs: subscribers.append(Subscriber(broker, *args, **kwargs)) or subscribers[-1]
        try:
            first = subscribe("homeassistant/#", client_id="first", count=6)
            wait_for(lambda: first.process.poll() is not None, 30, "the six discovery configs")
            configs = {t: p for r, t, p in first.messages()}
            first.stop()
            self.assertEqual(len(configs), 6)
            broker.stop()
            stores = [name for name in os.listdir(broker.directory) if name.endswith(".db")]
            self.assertTrue(stores, "mosquitto saved its store on stopping")
            for name in stores:
                os.unlink(os.path.join(broker.directory, name))
            time.sleep(2)
            broker.start()
            wait_for(lambda: metrics(stack).get("acceld_gateway_mqtt_connections_total") == 2, 30, "the gateway to reconnect")
            again = subscribe("homeassistant/#", client_id="again", count=6)
            wait_for(lambda: again.process.poll() is not None, 30, "the six discovery configs again, on the broker that came back empty")
            self.assertEqual({t: p for r, t, p in again.messages() if r}, configs, "every config, retained again")
            again.stop()
            window = subscribe("acceld/board1/vibration", client_id="window", count=1)
            wait_for(lambda: window.process.poll() is not None, 30, "a vibration window after the broker came back")
            self.assertEqual(json.loads(window.messages()[0][2])["class"], "vibration", "windows flow again")
            window.stop()
        finally:
            for subscriber in subscribers:
                subscriber.stop()
            stack.stop()
            broker.stop()


@unittest.skipUnless(shutil.which("chromedriver"), "chromedriver is not installed (scripts/gateway-test.sh installs it)")
class VibrationPage(BrowserTestCase):
    def test_spectrum_and_waterfall_are_drawn(self):
        stack = Stack(**MACHINE, gateway_args=["--vibration"])
        try:
            self.driver.get_log("browser")
            self.driver.get(stack.base + "/")
            wait_for(lambda: self.live("link") == "live", 10, "the page to connect")
            wait_for(lambda: (self.live("spectra") or 0) >= 3, 30, "three spectra drawn")
            wait_for(lambda: self.live("spectrum")["state"] == "running", 60, "the machine running")
            wait_for(lambda: (self.live("spectra") or 0) >= 6, 30, "more spectra drawn")
            self.assertTrue(self.driver.find_element("id", "vibration").is_displayed())
            spectrum = self.live("spectrum")
            self.assertEqual(spectrum["bins"], 256)
            self.assertAlmostEqual(spectrum["strongestHz"], 29.95, delta=spectrum["step"], msg="the shaft's line is the strongest bin")
            self.assertGreater(self.driver.execute_script(DRAWN, "spectrum"), 500, "a trace on the spectrum")
            self.assertGreater(self.driver.execute_script(DRAWN, "waterfall"), 500, "rows on the waterfall")
            # The waterfall's newest row: the shaft's column is hotter (redder)
            # than a quiet one at 600 Hz.
            hue = self.driver.execute_script("""const c = document.getElementById('waterfall'), span = arguments[0];
                const at = (f) => { const d = c.getContext('2d').getImageData(Math.floor(f / span * c.width), 0, 1, 1).data; return [d[0], d[2]]; };
                return [at(arguments[1]), at(600)];""", spectrum["step"] * spectrum["bins"], 29.95)
            (shaft_red, shaft_blue), (quiet_red, quiet_blue) = hue
            self.assertGreater(shaft_red - shaft_blue, quiet_red - quiet_blue, f"the shaft's column {hue[0]} against 600 Hz {hue[1]}")
            self.assertRegex(self.driver.find_element("id", "vibration-figures").text, r"velocity \d+\.\d\d mm/s RMS")
            severe = [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
            self.assertEqual(severe, [], "no console errors")
        finally:
            stack.stop()

    def test_without_vibration_the_panel_stays_hidden(self):
        stack = Stack(**MACHINE)
        try:
            self.driver.get(stack.base + "/")
            wait_for(lambda: self.live("link") == "live" and (self.live("frames") or 0) > 3000, 20, "frames")
            self.assertFalse(self.driver.find_element("id", "vibration").is_displayed())
            self.assertEqual(self.live("spectra"), 0)
        finally:
            stack.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
