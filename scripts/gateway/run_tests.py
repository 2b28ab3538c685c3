# SPDX-License-Identifier: Apache-2.0
"""`python3 -m unittest -v NAMES`, then each test's time, slowest first:
the gateway stage's minutes are these tests' (unittest's own --durations
needs Python 3.12; bookworm has 3.11). A class's setUpClass is not in
its tests' times."""
import sys
import time
import unittest


class TimedResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times = []
        self._began = 0.0

    def startTest(self, test):
        self._began = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.times.append((time.monotonic() - self._began, test.id()))


def main(names):
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = unittest.TextTestRunner(verbosity=2, resultclass=TimedResult).run(suite)
    print("gateway-test: each test's time, slowest first:", file=sys.stderr)
    for seconds, name in sorted(result.times, reverse=True):
        print(f"  {seconds:6.1f} s  {name}", file=sys.stderr)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["test_gateway"]))
