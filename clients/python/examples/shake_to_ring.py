#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""iBells: ring on each shake, at most once per --min-interval seconds.

Callback style: a handler for the shake events, and run() to wait. Each
ring prints a line (and, with --bell, rings the terminal's bell).

    acceld --simulate shake --socket /tmp/acceld.sock &
    python3 shake_to_ring.py --socket /tmp/acceld.sock --bell
"""
import os
import sys
import time

try:
    import acceld
except ImportError:                      # run from a checkout without pip install
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import acceld
from acceld.cli import ArgumentParser, run    # exit codes and messages as acceld's tools give them


def main():
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=acceld.default_socket())
    parser.add_argument("--min-interval", type=float, default=1.0, help="seconds between rings (default 1)")
    parser.add_argument("--bell", action="store_true", help="ring the terminal's bell too")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--count", type=int, help="stop after this many rings")
    args = parser.parse_args()

    with acceld.connect(args.socket) as motion:
        rings = 0
        last_ring = None

        def on_shake(shake):
            nonlocal rings, last_ring
            if shake.phase != "start":
                print(f"  shake over: {shake.duration:.2f} s, peak {shake.peak:.2f} g", flush=True)
                return
            now = time.monotonic()
            if last_ring is not None and now - last_ring < args.min_interval:
                print(f"  shake at t={shake.start:.2f}: too soon after the last ring, quiet", flush=True)
                return
            last_ring = now
            rings += 1
            print(f"RING #{rings} (shake at t={shake.start:.2f})" + ("\a" if args.bell else ""), flush=True)
            if args.count and rings >= args.count:
                motion.close()

        motion.on("shake", on_shake)
        motion.on("disconnected", lambda m: print(f"(acceld went away: {m.reason}; reconnecting)", file=sys.stderr))
        motion.on("reconnected", lambda m: print(f"(back after {m.away:.1f} s)", file=sys.stderr))
        print("shake the board to ring", flush=True)
        motion.run(args.seconds)
        print(f"{rings} ring(s)")


if __name__ == "__main__":
    run(main, "shake_to_ring")  # no daemon: 69, a usage error: 64 (docs/ERRORS.md)
