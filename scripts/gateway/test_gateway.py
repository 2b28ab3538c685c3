# SPDX-License-Identifier: Apache-2.0
"""acceld-gateway end to end, with real components: acceld on the chip
model, the gateway, Debian's headless Chromium (through chromedriver and
Selenium), and Debian's Prometheus and promtool. scripts/gateway-test.sh
installs them and runs this file."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request

from stack import Stack, WebSocket, get, http, wait_for, ROOT


class HostileHTTP(unittest.TestCase):
    """What a hostile network peer can try: the gateway stays up, refuses
    with a reason, and acceld never notices."""

    @classmethod
    def setUpClass(cls):
        cls.stack = Stack("rest")
        wait_for(lambda: get(cls.stack.port, "/metrics")[2].find(b"acceld_gateway_daemon_connected 1") >= 0, 10, "the gateway's connection to acceld")

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()

    def assertUp(self):
        status, _, body = get(self.stack.port, "/")
        self.assertEqual(status, 200)
        self.assertIn(b"acceld", body)
        self.assertIsNone(self.stack.gateway.poll(), "the gateway is still running")

    def test_page_and_assets(self):
        for path, kind in [("/", "text/html"), ("/app.js", "text/javascript"), ("/acceld-motion.js", "text/javascript"), ("/style.css", "text/css")]:
            status, head, body = get(self.stack.port, path)
            self.assertEqual(status, 200, path)
            self.assertIn(f"Content-Type: {kind}", head)
            self.assertNotIn(b"://cdn", body.lower(), "nothing from elsewhere")
        self.assertEqual(get(self.stack.port, "/../../etc/passwd")[0], 404)
        self.assertEqual(get(self.stack.port, "/nothing")[0], 404)

    def test_foreign_host_is_refused(self):
        for host in ["evil.example", "evil.example:80", "127.0.0.1.nip.io", ""]:
            status, _, body = get(self.stack.port, "/", host=host)
            self.assertEqual(status, 403, host)
            self.assertIn(b"server-names", body, "the refusal says what to set")
        self.assertEqual(get(self.stack.port, "/", host=f"localhost:{self.stack.port}")[0], 200)
        self.assertUp()

    def test_websocket_from_foreign_origin_or_host_is_refused(self):
        refused = WebSocket(self.stack.port, "/ws/acceld", origin="http://evil.example")
        self.assertEqual(refused.status, 403)
        refused.close()
        rebound = WebSocket(self.stack.port, "/ws/acceld", host="evil.example")
        self.assertEqual(rebound.status, 403)
        rebound.close()
        ours = WebSocket(self.stack.port, "/ws/acceld", origin=f"http://127.0.0.1:{self.stack.port}")
        self.assertEqual(ours.status, 101)
        greeting = ours.messages()
        self.assertEqual(greeting[0]["class"], "gateway")
        ours.close()

    def test_nothing_privileged_and_nothing_but_get(self):
        status, head, _ = http(self.stack.port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
        self.assertEqual(status, 405)
        self.assertIn("Allow: GET, HEAD", head)
        # A request sent on the WebSocket is ignored: the stream is one-way.
        ws = WebSocket(self.stack.port, "/ws/acceld")
        ws.messages()
        ws.send(1, b'{"class":"calibrate","reset":true}')
        ws.send(1, b'{"class":"configure","rate":400}')
        time.sleep(0.5)
        ws.close()
        self.assertEqual(self.stack.acceld_status()["device"]["rate"], 100, "no request reached acceld")

    def test_oversized_headers(self):
        big = "X-Filler: " + "a" * 200_000 + "\r\n"
        status, _, _ = get(self.stack.port, "/", extra=big)
        self.assertTrue(status is None or 400 <= status < 500, status)
        self.assertUp()

    def test_slow_clients_are_closed_and_do_not_block_others(self):
        slow = []
        for _ in range(50):
            s = socket.create_connection(("127.0.0.1", self.stack.port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never finishes
            slow.append(s)
        self.assertUp()
        # Closed after 10 s of silence: recv sees the end of the stream.
        time.sleep(11)
        closed = 0
        for s in slow:
            s.settimeout(2)
            try:
                closed += s.recv(1) == b""
            except (socket.timeout, ConnectionResetError):
                pass
            s.close()
        self.assertEqual(closed, 50)

    def test_a_thousand_websockets_opened_and_dropped(self):
        before = self.stack.acceld_status()
        opened = 0
        for _ in range(1000):
            ws = WebSocket(self.stack.port, "/ws/acceld")
            opened += ws.status == 101
            ws.close()
        self.assertEqual(opened, 1000)
        self.assertUp()
        after = self.stack.acceld_status()
        self.assertEqual(after["clients"], before["clients"], "acceld served the same clients throughout")
        self.assertEqual(after["counters"]["lost"], before["counters"]["lost"], "acceld lost no sample meanwhile")
        # Each close is seen when the gateway next reads that connection.
        wait_for(lambda: b"acceld_gateway_websocket_clients 0.0" in get(self.stack.port, "/metrics")[2], 10,
                 "the gateway to count every WebSocket client gone")

    def test_a_websocket_client_that_never_reads_is_dropped_from(self):
        stuck = WebSocket(self.stack.port, "/ws/acceld")
        stuck.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader = WebSocket(self.stack.port, "/ws/acceld")
        reader.messages()
        frames = 0
        end = time.monotonic() + 3
        while time.monotonic() < end:
            frames += sum(m["class"] == "frame" for m in reader.messages())
        self.assertGreater(frames, 250, "the reading client got its frames at 100 Hz")
        stuck.close()
        reader.close()


class Prometheus(unittest.TestCase):
    """The exposition passes promtool, and a real Prometheus server scrapes
    it and answers a query for a series."""

    @classmethod
    def setUpClass(cls):
        cls.stack = Stack("demo")

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()

    def test_promtool_accepts_the_exposition(self):
        time.sleep(1.5)
        body = get(self.stack.port, "/metrics")[2]
        result = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
        self.assertEqual(result.returncode, 0, result.stdout.decode() + result.stderr.decode())

    def test_prometheus_scrapes_and_answers(self):
        directory = tempfile.mkdtemp(prefix="acceld-prometheus-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with open(os.path.join(directory, "prometheus.yml"), "w") as f:
            f.write(f"global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: acceld\n"
                    f"    static_configs:\n      - targets: ['127.0.0.1:{self.stack.port}']\n")
        server = subprocess.Popen(["prometheus", f"--config.file={directory}/prometheus.yml", f"--storage.tsdb.path={directory}/data",
                                   f"--web.listen-address=127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            def query():
                url = f"http://127.0.0.1:{port}/api/v1/query?query=acceld_samples_published_total"
                try:
                    answer = json.load(urllib.request.urlopen(url, timeout=2))
                except OSError:
                    return None
                results = answer["data"]["result"]
                return results if results and float(results[0]["value"][1]) > 0 else None
            results = wait_for(query, 60, "Prometheus to scrape acceld_samples_published_total")
            self.assertEqual(results[0]["metric"]["job"], "acceld")
            up = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query?query=up", timeout=2))
            self.assertEqual(up["data"]["result"][0]["value"][1], "1")
        finally:
            server.terminate()
            server.wait(10)
            shutil.rmtree(directory, ignore_errors=True)


@unittest.skipUnless(shutil.which("chromedriver"), "chromedriver is not installed (scripts/gateway-test.sh installs it)")
class Browser(unittest.TestCase):
    """The live page and acceld-motion.js in Debian's headless Chromium."""

    @classmethod
    def setUpClass(cls):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,1100"]:
            options.add_argument(argument)
        options.binary_location = shutil.which("chromium")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        cls.driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def live(self, key):
        return self.driver.execute_script(f"return window.acceldLive && window.acceldLive.{key};")

    def test_the_live_page_through_the_demo(self):
        stack = Stack("demo")
        try:
            self.driver.get(stack.base + "/")
            wait_for(lambda: self.live("link") == "live", 10, "the page to connect")
            time.sleep(2.5)
            self.assertGreaterEqual(self.live("framesPerSecond"), 80, "samples drawn per second at 100 Hz")
            self.assertGreaterEqual(self.live("redrawsPerSecond"), 10, "the plot is redrawn")
            # The demo: the tour's six faces, then a shake and a drop.
            seen = set()
            end = time.monotonic() + 30
            while time.monotonic() < end and not {"shake", "freefall"} <= set(self.logged()):
                seen.add(self.driver.find_element("id", "orientation").get_attribute("data-orientation"))
                time.sleep(0.1)
            self.assertTrue({"faceUp", "landscapeLeft", "portrait", "faceDown", "landscapeRight", "portraitUpsideDown"} <= seen, seen)
            self.assertIn("shake", self.logged())
            self.assertIn("freefall", self.logged())
            self.assertIn("state", self.driver.find_element("id", "device").text)
            severe = [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
            self.assertEqual(severe, [], "no console errors")
            if os.environ.get("ACCELD_SCREENSHOT"):
                self.driver.save_screenshot(os.environ["ACCELD_SCREENSHOT"])
            # The gateway restarts: the page says so, and reconnects by itself.
            stack.gateway.terminate()
            stack.gateway.wait(10)
            wait_for(lambda: self.live("link") == "gateway-down", 10, "the page to notice the gateway went away")
            port = stack.port
            stack.start_gateway(["--listen", f"127.0.0.1:{port}"])
            wait_for(lambda: self.live("link") == "live", 15, "the page to reconnect")
        finally:
            stack.stop()

    def logged(self):
        return [e["kind"] for e in self.driver.execute_script("return window.acceldLive.events;")]

    def test_a_phone_page_reads_devicemotion(self):
        stack = Stack("rest")
        try:
            self.driver.get(stack.base + "/motion.html")
            motion = wait_for(lambda: self.driver.execute_script("return window.lastMotion;"), 10, "a devicemotion event")
            # The chip model's LIS302DL: 18 mg digits (0.18 m/s²) and its
            # sensitivity error; two digits either side of 1 g.
            self.assertAlmostEqual(motion["z"], 9.81, delta=0.36)
            self.assertAlmostEqual(motion["x"], 0, delta=0.25)
            self.assertAlmostEqual(motion["interval"], 10, delta=0.5)
            orientation = self.driver.execute_script("return window.lastOrientation;")
            self.assertIsNone(orientation["alpha"])
            self.assertAlmostEqual(orientation["beta"], 0, delta=2)
            severe = [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
            self.assertEqual(severe, [], "no console errors")
        finally:
            stack.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
