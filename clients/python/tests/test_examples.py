# SPDX-License-Identifier: Apache-2.0
"""Each example for a few seconds against acceld --simulate, and what it prints."""
import csv
import json
import re
import subprocess
import sys

import pytest

from conftest import ACCELD, PACKAGE, REPO, write_trace

EXAMPLES = PACKAGE / "examples"

FACES = {  # the chip model's g for each face up
    "faceUp": (0, 0, 1), "landscapeLeft": (1, 0, 0), "portrait": (0, 1, 0),
    "faceDown": (0, 0, -1), "landscapeRight": (-1, 0, 0), "portraitUpsideDown": (0, -1, 0),
}


def run(example, *args, seconds=None, timeout=30):
    """Runs an example (as a pipe, not a terminal) and returns its output."""
    command = [sys.executable, str(EXAMPLES / example), *args]
    if seconds is not None:
        command += ["--seconds", str(seconds)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=EXAMPLES)
    assert done.returncode == 0, f"{example} exited {done.returncode}: {done.stderr}"
    return done.stdout, done.stderr


def test_bubble_level(start_daemon, workdir):
    # level, then the +X edge raised by 20° (roll -20°): the bubble goes right
    trace = write_trace(workdir / "level.csv", [((0, 0, 1), 1.5), ((0.342, 0, 0.940), 20)])
    d = start_daemon(str(trace))
    out, _ = run("bubble_level.py", "--socket", d.socket, "--rate", "10", "--count", "30")
    drawings = out.split("pitch")[1:]
    assert len(drawings) == 30
    first, last = drawings[0], drawings[-1]
    assert "level" in first and "tilted" in last
    assert re.search(r"roll\s+-\s*(19|20|21)\.\d°", last)

    def bubble_column(drawing):
        row = next(line for line in drawing.splitlines() if "O" in line)
        return row.index("O")
    assert abs(bubble_column(first) - 11) <= 1        # the middle of 21 cells after the '|' (1° a cell)
    assert bubble_column(last) == 21                  # against the right edge (10° full scale)


def test_shake_to_ring(start_daemon):
    d = start_daemon("shake")                         # a shake every 4 s, recognised 1.66 s in
    out, _ = run("shake_to_ring.py", "--socket", d.socket, "--min-interval", "0.5", "--bell", "--count", "1",
                 seconds=8)
    lines = out.splitlines()
    assert lines[0] == "shake the board to ring"
    assert re.match(r"RING #1 \(shake at t=\d+\.\d\d\)\a$", lines[1])
    assert lines[-1] == "1 ring(s)"


def test_tilt_to_scroll(start_daemon, workdir):
    # level, tilted forward (+Y edge down 30°: scrolls down), then back (scrolls up)
    trace = write_trace(workdir / "tilt.csv", [((0, 0, 1), 0.5), ((0, -0.5, 0.866), 2.0),
                                               ((0, 0.5, 0.866), 20)])
    d = start_daemon(str(trace))
    out, _ = run("tilt_to_scroll.py", "--socket", d.socket, seconds=3.8)
    tops = [int(m.group(1)) for m in re.finditer(r"^top\s+(\d+)\s+pitch", out, re.M)]
    assert tops[0] == 1
    peak = max(tops)
    assert peak >= 10, out                            # 12.5 lines/s at 30°, for up to 2 s
    assert tops[-1] < peak, "tilting back scrolls up again"
    assert re.search(r"^top\s+\d+\s+pitch\s+-\d+\.\d°\s+\|\s+\d+\s+line \d+ of the text", out, re.M)


def test_data_logger_writes_a_trace_acceld_replays(start_daemon, workdir):
    d = start_daemon("demo")
    path = workdir / "log.csv"
    _, err = run("data_logger.py", "--socket", d.socket, "--output", str(path), "--count", "150")
    assert re.match(r"data_logger: 150 rows, \d+ frame\(s\) lost", err)
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0].startswith("# source: acceld ") and lines[1].startswith("# device: LIS302DL at 100 Hz")
    assert lines[2] == "t,x,y,z"
    rows = [line for line in lines[3:] if not line.startswith("#")]
    assert len(rows) == 150
    for line in rows:                                  # 6 decimals for t, 5 for g
        assert re.fullmatch(r"\d+\.\d{6}(,-?\d+\.\d{5}){3}", line), line
    times = [float(r[0]) for r in csv.reader(rows)]
    assert times[0] == 0 and all(b > a for a, b in zip(times, times[1:]))
    assert 1.3 < times[-1] < 1.7

    replay = subprocess.run([str(ACCELD), "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    frames = [json.loads(line) for line in replay.stdout.splitlines() if '"class":"frame"' in line]
    # one frame per 10 ms of the trace: rows the logger lost (counted in
    # its "# lost" lines) widen the span, and replay keeps the chip's rate
    assert 140 <= len(frames) <= round(times[-1] * 100) + 2, f"{len(frames)} frames over {times[-1]} s"
    z = [row[2] for row in (f["acc"] for f in frames)]
    assert max(abs(v) for v in z) > 0.9              # the demo starts face up: the logged motion replays


def test_auto_rotation(start_daemon, workdir):
    # a quick tour: face up 1.5 s, then each face held 0.8 s
    order = ["portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight", "faceDown", "portrait"]
    trace = write_trace(workdir / "quick-tour.csv", [(FACES["faceUp"], 1.5)] + [(FACES[face], 0.8) for face in order]
                        + [(FACES["portrait"], 20)])
    d = start_daemon(str(trace))
    out, _ = run("auto_rotation.py", "--socket", d.socket, "--count", "5", seconds=10)
    lines = out.splitlines()
    if lines[0] == "keep     0  (unknown)":       # connected before the daemon's first decision
        lines = lines[1:]
    assert lines == [
        "keep     0  (faceUp)",
        "rotate   0  (portrait)",
        "rotate  90  (landscapeLeft)",
        "rotate 180  (portraitUpsideDown)",
        "rotate 270  (landscapeRight)",
        "keep   270  (faceDown)",
        "rotate   0  (portrait)",
    ], out


@pytest.mark.parametrize("document, heading", [(PACKAGE / "README.md", "## First ten lines"),
                                               (REPO / "docs" / "CLIENTS.md", "## Python: the first ten lines")])
def test_the_first_ten_lines(start_daemon, document, heading):
    program = document.read_text().split(heading, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(program.splitlines()) <= 10
    d = start_daemon("demo")
    process = subprocess.Popen([sys.executable, "-u", "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={"ACCELD_SOCKET": d.socket, "PYTHONPATH": str(PACKAGE)})
    try:
        out, err = process.communicate(timeout=3)
    except subprocess.TimeoutExpired:
        process.terminate()
        out, err = process.communicate()
    lines = out.splitlines()
    assert len(lines) >= 5, err
    assert all(re.match(r"pitch\s+[+-]\d+\.\d\s+roll\s+[+-]\d+\.\d\s+acc Vector\(x=", line) or line.startswith("now ")
               for line in lines), out
