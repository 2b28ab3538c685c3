#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tilt to scroll: a text viewport that scrolls as the board tilts forward or back.

Tilting the +Y edge down (pitch negative) scrolls down, raising it scrolls
up; the speed grows with the tilt beyond a dead zone, like the classic
tutorials' scrolling view. Piped, it prints a line each time the top line
changes; on a terminal it redraws the viewport.

    acceld --simulate tour --socket /tmp/acceld.sock &
    python3 tilt_to_scroll.py --socket /tmp/acceld.sock [--file README.md]
"""
import os
import sys

try:
    import acceld
except ImportError:                      # run from a checkout without pip install
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import acceld
from acceld.cli import ArgumentParser, run    # exit codes and messages as acceld's tools give them

DEAD_ZONE = 5.0          # degrees of tilt that do nothing
LINES_PER_DEGREE = 0.5   # lines per second for each degree beyond the dead zone


def velocity(pitch):
    """Lines per second: positive scrolls down (towards the end)."""
    beyond = abs(pitch) - DEAD_ZONE
    if beyond <= 0:
        return 0.0
    return -LINES_PER_DEGREE * beyond if pitch > 0 else LINES_PER_DEGREE * beyond


def main():
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=acceld.default_socket())
    parser.add_argument("--file", help="the text to scroll (default: 200 numbered lines)")
    parser.add_argument("--height", type=int, default=8, help="lines in the viewport (default 8)")
    parser.add_argument("--rate", type=float, default=25, help="updates per second (default 25)")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--count", type=int, help="stop after this many updates")
    args = parser.parse_args()
    if args.file:
        with open(args.file, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
    else:
        text = [f"{n:3d}  line {n} of the text being scrolled" for n in range(1, 201)]
    bottom = max(0, len(text) - args.height)
    redraw = sys.stdout.isatty()

    with acceld.connect(args.socket) as motion:
        top, shown_top, last_t, updates_seen = 0.0, None, None, 0
        with motion.updates(streams=["frames"], rate=args.rate, duration=args.seconds) as updates:
            for msg in updates:
                if not isinstance(msg, acceld.Frame) or msg.pitch is None:
                    continue
                if last_t is not None:
                    top = min(bottom, max(0.0, top + velocity(msg.pitch) * (msg.t - last_t)))
                last_t = msg.t
                line = int(top)
                if line != shown_top:
                    if redraw:
                        if shown_top is not None:
                            sys.stdout.write(f"\x1b[{args.height + 1}F")
                        print(f"top {line + 1:4d}  pitch {msg.pitch:+6.1f}°\x1b[K")
                        for row in text[line:line + args.height]:
                            print(row[:78] + "\x1b[K")
                    else:
                        print(f"top {line + 1:4d}  pitch {msg.pitch:+6.1f}°  | {text[line] if text else ''}")
                    sys.stdout.flush()
                    shown_top = line
                updates_seen += 1
                if args.count and updates_seen >= args.count:
                    break


if __name__ == "__main__":
    run(main, "tilt_to_scroll")  # no daemon: 69, a usage error: 64 (docs/ERRORS.md)
