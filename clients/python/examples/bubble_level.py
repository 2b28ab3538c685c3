#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""BubbleLevel: a spirit level from pitch and roll (the classic tutorials' first app).

The bubble floats to the high side: right when the +X edge rises (roll
negative), up when the +Y edge rises (pitch positive). On a terminal the
level is redrawn in place; piped, each update is printed below the last.

    acceld --simulate tour --socket /tmp/acceld.sock &
    python3 bubble_level.py --socket /tmp/acceld.sock
"""
import os
import sys

try:
    import acceld
except ImportError:                      # run from a checkout without pip install
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import acceld
from acceld.cli import ArgumentParser, run    # exit codes and messages as acceld's tools give them

WIDTH, HEIGHT = 21, 7


def position(angle, full_scale, cells):
    """The cell (0..cells-1) for an angle, the middle at 0, clamped at the ends."""
    half = (cells - 1) / 2
    return int(round(half + max(-1.0, min(1.0, angle / full_scale)) * half))


def draw(pitch, roll, full_scale):
    x = position(-roll, full_scale, WIDTH)
    y = position(-pitch, full_scale, HEIGHT)      # row 0 is the top (+Y)
    rows = []
    for row in range(HEIGHT):
        cells = ["+" if (row, col) == (HEIGHT // 2, WIDTH // 2) else "." for col in range(WIDTH)]
        if row == y:
            cells[x] = "O"
        rows.append("|" + "".join(cells) + "|")
    state = "level" if abs(pitch) < 1 and abs(roll) < 1 else "tilted"
    header = f"pitch {pitch:+6.1f}°  roll {roll:+6.1f}°  {state}"
    return [header, "+" + "-" * WIDTH + "+"] + rows + ["+" + "-" * WIDTH + "+"]


def main():
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=acceld.default_socket())
    parser.add_argument("--rate", type=float, default=10, help="updates per second (default 10)")
    parser.add_argument("--scale", type=float, default=10, help="degrees at the edge of the level (default 10)")
    parser.add_argument("--zero", action="store_true", help="take the attitude at start as level")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--count", type=int, help="stop after this many updates")
    args = parser.parse_args()
    redraw = sys.stdout.isatty()

    with acceld.connect(args.socket) as motion:
        if args.zero:
            motion.zero()
        shown = 0
        with motion.updates(streams=["frames"], rate=args.rate, duration=args.seconds) as updates:
            for msg in updates:
                if not isinstance(msg, acceld.Frame) or msg.attitude is None:
                    if isinstance(msg, (acceld.Gap, acceld.Disconnected, acceld.Reconnected)):
                        print(f"({msg})", file=sys.stderr)
                    continue
                lines = draw(msg.pitch, msg.roll, args.scale)
                if redraw and shown:
                    sys.stdout.write(f"\x1b[{len(lines)}F")     # back to the top of the last drawing
                print("\n".join(lines), flush=True)
                shown += 1
                if args.count and shown >= args.count:
                    break


if __name__ == "__main__":
    run(main, "bubble_level")  # no daemon: 69, a usage error: 64 (docs/ERRORS.md)
