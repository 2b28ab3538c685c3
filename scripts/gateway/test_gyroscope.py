# SPDX-License-Identifier: Apache-2.0
"""The gyroscope in the browser (issue #28): on a simulated LSM6DSO the live
page shows the rotation rate and the attitude, and /ws/motion's events
carry rotationRate and alpha; on an LIS3DH the panels stay hidden and
those stay null. Loaded by test_gateway (gateway-test.sh runs it), or on
its own: python3 -m unittest -v test_gyroscope."""
import shutil
import time
import unittest

from stack import Stack, wait_for


def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,1100"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


# The pixels a canvas has drawn (any not fully transparent).
DRAWN = """const c = document.getElementById(arguments[0]);
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n;"""


class BrowserTestCase(unittest.TestCase):
    """One headless Chromium for a class's tests, and the page's own
    counters (window.acceldLive) read from it."""

    @classmethod
    def setUpClass(cls):
        cls.driver = chromium()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def live(self, key):
        return self.driver.execute_script(f"return window.acceldLive && window.acceldLive.{key};")


@unittest.skipUnless(shutil.which("chromedriver"), "chromedriver is not installed (scripts/gateway-test.sh installs it)")
class GyroscopeBrowser(BrowserTestCase):

    def shown(self, element_id):
        return self.driver.find_element("id", element_id).is_displayed()

    def assertNoConsoleErrors(self):
        severe = [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
        self.assertEqual(severe, [], "no console errors")

    def test_lsm6dso_shows_the_rotation_rate_and_fills_rotation_rate_and_alpha(self):
        stack = Stack("tour", part="LSM6DSO", rate=104)
        try:
            self.driver.get(stack.base + "/")
            wait_for(lambda: self.live("link") == "live", 10, "the page to connect")
            wait_for(lambda: self.live("gyroscope"), 10, "the hello's device to name the gyroscope")
            wait_for(lambda: self.shown("rotation") and self.shown("attitude-panel"), 5, "the gyroscope's panels")
            self.assertIn("gyroscope", self.driver.find_element("id", "device").text)
            # The panels update: redrawn, with rates that change as the tour
            # turns the board (a quarter turn every few seconds).
            wait_for(lambda: self.live("rotationRedraws") > 0, 10, "the rotation rate drawn")
            redraws, rates, largest = self.live("rotationRedraws"), set(), 0
            end = time.monotonic() + 8
            while time.monotonic() < end:
                rate = self.live("rotationRate")
                rates.add(tuple(rate))
                largest = max(largest, *map(abs, rate))
                time.sleep(0.2)
            self.assertGreater(self.live("rotationRedraws"), redraws + 20, "the rotation plot is redrawn")
            self.assertGreater(len(rates), 10, "the rotation rate changes")
            self.assertGreater(largest, 5, "the tour turns the board at more than 5 °/s")
            self.assertGreater(self.driver.execute_script(DRAWN, "rate-plot"), 500, "traces on the rate plot")
            self.assertGreater(self.driver.execute_script(DRAWN, "attitude"), 500, "the box on the attitude canvas")
            self.assertRegex(self.driver.find_element("id", "heading").text, r"^yaw -?\d+\.\d°")
            self.assertNoConsoleErrors()

            # The phone page on the same board: rotationRate and alpha filled.
            self.driver.get(stack.base + "/motion.html")
            motion = wait_for(lambda: self.driver.execute_script("return window.lastMotion;"), 10, "a devicemotion event")
            self.assertAlmostEqual(motion["interval"], 1000 / 104, delta=0.5)
            self.assertIsNotNone(motion["rotationRate"], "rotationRate with a gyroscope")
            for key in ("alpha", "beta", "gamma"):
                self.assertIsInstance(motion["rotationRate"][key], (int, float))
            orientation = wait_for(lambda: self.driver.execute_script("return window.lastOrientation;"), 5, "a deviceorientation event")
            self.assertIsNotNone(orientation["alpha"], "alpha with a gyroscope")
            self.assertTrue(0 <= orientation["alpha"] < 360, orientation)
            self.assertNoConsoleErrors()
        finally:
            stack.stop()

    def test_lis3dh_hides_the_panels_and_leaves_rotation_rate_and_alpha_null(self):
        stack = Stack("tour", part="LIS3DH")
        try:
            self.driver.get(stack.base + "/")
            wait_for(lambda: self.live("link") == "live" and self.live("device"), 10, "the page to connect and show the device")
            wait_for(lambda: self.live("frames") > 100, 10, "frames")
            self.assertFalse(self.live("gyroscope"))
            self.assertFalse(self.shown("rotation"), "no rotation-rate panel without a gyroscope")
            self.assertFalse(self.shown("attitude-panel"), "no attitude panel without a gyroscope")
            self.assertNotIn("gyroscope", self.driver.find_element("id", "device").text)
            self.assertNoConsoleErrors()

            self.driver.get(stack.base + "/motion.html")
            motion = wait_for(lambda: self.driver.execute_script("return window.lastMotion;"), 10, "a devicemotion event")
            self.assertIsNone(motion["rotationRate"])
            orientation = wait_for(lambda: self.driver.execute_script("return window.lastOrientation;"), 5, "a deviceorientation event")
            self.assertIsNone(orientation["alpha"])
            self.assertNoConsoleErrors()
        finally:
            stack.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
