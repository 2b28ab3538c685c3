# SPDX-License-Identifier: Apache-2.0
"""Each example for a few seconds against acceld --simulate, and what it prints."""
import csv
import json
import os
import re
import socket
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


ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.py"))


def run_failing(example, *args):
    """Runs an example that should fail: (exit code, stdout, stderr); no ACCELD_SOCKET from the caller."""
    env = {k: v for k, v in os.environ.items() if k != "ACCELD_SOCKET"}
    done = subprocess.run([sys.executable, str(EXAMPLES / example), *args], capture_output=True, text=True,
                          timeout=30, cwd=EXAMPLES, env=env)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("stale", [False, True], ids=["no-socket", "stale-socket"])
@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_an_example_without_a_daemon_exits_69_and_says_what_to_do(example, stale, workdir):
    """Issue 51: the Swift tools exit 69 (EX_UNAVAILABLE, docs/ERRORS.md) when
    acceld is not running, the examples exited 1; now 69 too, with one
    paragraph that says what was wrong and what to do."""
    assert len(ALL_EXAMPLES) >= 5
    path = workdir / "nobody.sock"
    if stale:                                      # a socket file nobody listens on (acceld killed)
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(path))
    code, out, err = run_failing(example, "--socket", str(path), "--seconds", "1")
    assert code == 69, f"{example} exited {code}: {err}"
    name = example[:-3]
    lines = err.strip().splitlines()
    assert len(lines) == 1, err                                        # one paragraph, no traceback
    message = lines[0]
    assert message.startswith(f"{name}: acceld is not running at {path} ("), message
    assert ("the socket exists but nothing listens on it" if stale else "no such socket") in message
    assert "sudo systemctl start acceld.socket" in message              # what to do: start it,
    assert "--socket PATH" in message and "ACCELD_SOCKET" in message    # or point the example at it
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_an_example_given_a_bad_option_exits_64(example, workdir):
    """A usage error exits 64 (EX_USAGE), as acceld's tools do, not argparse's 2."""
    code, out, err = run_failing(example, "--socket", str(workdir / "nobody.sock"), "--no-such-option")
    assert code == 64, f"{example} exited {code}: {err}"
    assert err.startswith("usage: ") and "unrecognized arguments: --no-such-option" in err, err
    code, _, err = run_failing(example, "--seconds", "soon")               # a bad value, before any connection
    assert code == 64, f"{example} exited {code}: {err}"
    assert "argument --seconds: invalid float value: 'soon'" in err, err


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_an_examples_help_still_exits_0(example):
    code, out, err = run_failing(example, "--help")
    assert code == 0 and out.startswith("usage: ") and "--socket" in out, err
