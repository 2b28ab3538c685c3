#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Data logger: frames to CSV in acceld's trace format (docs/TRACE-FORMAT.md).

`acceld replay FILE` and `acceld --simulate FILE` read what it writes:
'#' comments, the header t,x,y,z, then t in seconds (6 decimals, from the
first frame) and the calibrated acceleration in g (5 decimals). A gap in the
sequence is written as a comment.

    acceld --simulate demo --socket /tmp/acceld.sock &
    python3 data_logger.py --socket /tmp/acceld.sock --seconds 10 --output run.csv
    acceld replay run.csv --events-only
"""
import os
import sys

try:
    import acceld
except ImportError:                      # run from a checkout without pip install
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import acceld
from acceld.cli import ArgumentParser, run    # exit codes and messages as acceld's tools give them


def main():
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=acceld.default_socket())
    parser.add_argument("--output", "-o", help="the CSV file (default: standard output)")
    parser.add_argument("--rate", type=float, help="frames per second (default: every sample)")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--count", type=int, help="stop after this many rows")
    args = parser.parse_args()

    out = open(args.output, "w", encoding="utf-8", newline="\n") if args.output else sys.stdout
    rows = 0
    try:
        with acceld.connect(args.socket, fields=["acc"]) as motion:
            d = motion.device
            with motion.updates(streams=["frames"], rate=args.rate, duration=args.seconds) as updates:
                t0 = last_t = None
                for msg in updates:
                    if isinstance(msg, acceld.Gap):
                        out.write(f"# gap: {msg.lost} frame(s) lost between seq {msg.after} and {msg.seq}\n")
                        continue
                    if isinstance(msg, (acceld.Disconnected, acceld.Reconnected)):
                        out.write(f"# {msg.CLASS}: {msg}\n")
                        continue
                    if not isinstance(msg, acceld.Frame) or msg.acc is None or msg.t is None:
                        continue
                    if t0 is None:
                        out.write(f"# source: acceld {motion.hello.version} at {motion.path}, "
                                  f"{d.location}, recorded by data_logger.py (t from the first frame, "
                                  f"seq {msg.seq}, CLOCK_MONOTONIC {msg.t:.6f})\n")
                        out.write(f"# device: {d.chip} at {d.rate} Hz, ±{d.range} g, {d.mode}; "
                                  f"frames at {motion.frame_rate:g} Hz\n")
                        out.write("t,x,y,z\n")
                        t0 = msg.t
                    if last_t is not None and msg.t <= last_t:
                        continue                     # rows must be strictly increasing
                    last_t = msg.t
                    x, y, z = msg.acc
                    out.write(f"{msg.t - t0:.6f},{x:.5f},{y:.5f},{z:.5f}\n")
                    rows += 1
                    if args.count and rows >= args.count:
                        break
            print(f"data_logger: {rows} rows, {motion.lost} frame(s) lost", file=sys.stderr)
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    run(main, "data_logger")  # no daemon: 69, a usage error: 64 (docs/ERRORS.md)
