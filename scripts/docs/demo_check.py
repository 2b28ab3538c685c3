# SPDX-License-Identifier: Apache-2.0
"""The README's first command, scripts/demo.sh, run as a person runs it."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

from runner import REPO, Runner, check

def run_demo(runner: Runner) -> None:
    """The README's first command, as a person runs it: progress at once,
    events in words, the live page up until Ctrl-C."""
    out = subprocess.run(["scripts/demo.sh", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60)
    check(out.returncode == 0 and "--seconds N" in out.stdout and "Usage:" in out.stdout,
          "scripts/demo.sh --help explains its options without building")
    env = dict(runner.env, DEMO_PORT="18086")
    started = time.monotonic()
    # Ctrl-C as at a terminal: SIGINT at its default, even where this
    # runs as a background job (which starts with it ignored, and a shell
    # cannot trap a signal ignored at its start).
    demo = subprocess.Popen(["scripts/demo.sh", "tour"], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: list[tuple[float, str]] = []
    os.set_blocking(demo.stdout.fileno(), False)

    def read_until(pattern: str, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            chunk = demo.stdout.readline()
            if chunk:
                lines.append((time.monotonic() - started, chunk.rstrip("\n")))
                if re.search(pattern, chunk):
                    return True
            elif demo.poll() is not None:
                return False
            else:
                time.sleep(0.05)
        return False

    def page_answers() -> bool:
        try:
            with urllib.request.urlopen("http://127.0.0.1:18086/", timeout=5) as reply:
                return reply.status == 200
        except OSError:
            return False

    try:
        first = read_until(r".", 30)
        check(first and lines[0][0] <= 5, f"demo.sh says what it does within 5 s (first line after {lines[0][0] if lines else '-'} s: {lines[0][1] if lines else 'none'})")
        check(read_until(r"live page is on", 900), "demo.sh builds, then serves the live page")
        # SwiftPM's own words for a finished product, which the first
        # demo's filter missed (it printed nothing for the whole build).
        check(any(l == "demo: accelctl built" for _, l in lines), "demo.sh says each product it built")
        check(read_until(r"^\d\d:\d\d:\d\d\.\d{3} orientation", 60), "demo.sh shows events in words, at their local time")
        shown = [l for _, l in lines]
        check(not any(l.lstrip().startswith("{") for l in shown), "demo.sh shows no raw JSON")
        # The old demo took the page down with its 30 s client.
        read_until(r"^$never", 35)
        check(demo.poll() is None and page_answers(), "after 35 s the demo and its live page are still up")
        os.killpg(demo.pid, signal.SIGINT)
        demo.wait(timeout=30)
        rest = demo.stdout.read() or ""
        check(demo.returncode == 0 and "demo: stopped" in rest and not page_answers(),
              f"Ctrl-C ends the demo cleanly and takes the page down (exit {demo.returncode})")
        last = [l for l in rest.splitlines() if l.strip()]
        check(bool(last) and last[-1] == "demo: stopped",
              f"'demo: stopped' is the demo's last word, after its client's (it ended with {last[-3:]})")
    finally:
        Runner.stop(demo)
    run_demo_port_taken(runner)


def run_demo_port_taken(runner: Runner) -> None:
    """With the page's port taken the demo runs without the page, and
    --seconds still ends it with 0 and nothing left behind; on a terminal
    the build's counter is cleared before each "built" line."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    with tempfile.TemporaryDirectory(prefix="acceld-demo-tmp-") as scratch, taken:
        env = dict(runner.env, DEMO_PORT=str(taken.getsockname()[1]), TMPDIR=scratch)
        # script(1) gives the demo a terminal, as a person's.
        run = subprocess.run(["script", "-qefc", "scripts/demo.sh --seconds 3 rest", "/dev/null"], cwd=REPO, env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900)
        out = run.stdout
        check("demo: no live page:" in out and "--listen" in out,
              f"with its port taken the demo says so, naming the way to another port ({out[-300:]!r})")
        check(run.returncode == 0, f"a --seconds run with no page ends with exit 0 (exit {run.returncode})")
        left = [name for name in os.listdir(scratch) if name.startswith("acceld-demo.")]
        check(not left, f"it leaves no temporary folder behind ({left})")
        check(re.search(r"\r(?!\x1b\[K)demo:", out) is None,
              "on a terminal the build counter's line is cleared before 'demo: ... built'")
