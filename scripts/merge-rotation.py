#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Merges a rotation-rate companion (t,wx,wy,wz in rad/s, such as
../shared/data/rotation/NAME.csv) into a trace (t,x,y,z, such as
../shared/data/coremotion/NAME.csv): a trace with the header
t,x,y,z,wx,wy,wz on standard output (docs/TRACE-FORMAT.md).

Usage: scripts/merge-rotation.py TRACE ROTATION > MERGED.csv

The rows must pair up by time (within 1 µs): a row of either file without
its partner is an error naming the file and the time, so nothing is
interpolated or dropped behind the user's back.
"""
import sys


def rows(path, header):
    comments, data, seen_header = [], [], False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                comments.append(line)
                continue
            if not seen_header:
                if [c.strip() for c in line.split(",")] != header:
                    sys.exit(f"merge-rotation: {path}:{number}: expected the header '{','.join(header)}', found '{line[:60]}'")
                seen_header = True
                continue
            cells = line.split(",")
            if len(cells) != len(header):
                sys.exit(f"merge-rotation: {path}:{number}: expected {len(header)} values, found {len(cells)}")
            data.append((float(cells[0]), [c.strip() for c in cells[1:]]))
    return comments, data


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: merge-rotation.py TRACE ROTATION > MERGED.csv")
    trace_path, rotation_path = sys.argv[1:]
    comments, trace = rows(trace_path, ["t", "x", "y", "z"])
    _, rotation = rows(rotation_path, ["t", "wx", "wy", "wz"])
    if len(trace) != len(rotation):
        sys.exit(f"merge-rotation: {trace_path} has {len(trace)} rows, {rotation_path} {len(rotation)}: they must pair up row for row")
    out = sys.stdout
    for comment in comments:
        out.write(comment + "\n")
    out.write(f"# rotation: wx,wy,wz in rad/s from {rotation_path.split('/')[-1]} (merged by scripts/merge-rotation.py)\n")
    out.write("t,x,y,z,wx,wy,wz\n")
    for (t, g), (tw, w) in zip(trace, rotation):
        if abs(t - tw) > 1e-6:
            sys.exit(f"merge-rotation: the row at t = {t} s in {trace_path} meets t = {tw} s in {rotation_path}")
        out.write(",".join([f"{t:.6f}", *g, *w]) + "\n")


if __name__ == "__main__":
    main()
