#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Auto-rotation: the rotation a display should take, from orientation events.

Prints the degrees, clockwise, by which the picture must turn on the panel
to stay upright: portrait 0, landscapeLeft 90 (the board's top turned to
the left), portraitUpsideDown 180, landscapeRight 270. Face up, face down
and unknown keep the last rotation, as a phone does.

    acceld --simulate tour --socket /tmp/acceld.sock &
    python3 auto_rotation.py --socket /tmp/acceld.sock
"""
import os
import sys

try:
    import acceld
except ImportError:                      # run from a checkout without pip install
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import acceld
from acceld.cli import ArgumentParser, run    # exit codes and messages as acceld's tools give them

ROTATION = {"portrait": 0, "landscapeLeft": 90, "portraitUpsideDown": 180, "landscapeRight": 270}


def main():
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=acceld.default_socket())
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--count", type=int, help="stop after this many rotations")
    args = parser.parse_args()

    with acceld.connect(args.socket) as motion:
        rotation, changes = 0, 0

        def show(orientation):
            nonlocal rotation, changes
            if orientation in ROTATION:
                if ROTATION[orientation] == rotation and changes:
                    return
                rotation = ROTATION[orientation]
                changes += 1
                print(f"rotate {rotation:3d}  ({orientation})", flush=True)
            else:
                print(f"keep   {rotation:3d}  ({orientation})", flush=True)

        with motion.updates(streams=["orientation"], duration=args.seconds) as updates:
            show(motion.orientation or "unknown")        # the watch reply tells the current one
            for msg in updates:
                if isinstance(msg, acceld.Orientation):
                    show(msg.orientation)
                    if args.count and changes >= args.count:
                        break


if __name__ == "__main__":
    run(main, "auto_rotation")  # no daemon: 69, a usage error: 64 (docs/ERRORS.md)
