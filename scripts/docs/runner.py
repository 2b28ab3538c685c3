# SPDX-License-Identifier: Apache-2.0
"""What the docs stage shares: its verdicts, what a page says a command
does (an Expectation), and the Runner that runs a command as a person
would (from the repository, with the debug build first on PATH)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
# The pages whose commands run, and whose options --help must know.
PAGES = ["README.md", "docs/ACCELCTL.md", "docs/CLIENTS.md", "docs/GATEWAY.md", "docs/SENSORPROXY.md",
         "clients/python/README.md", "docs/TRACE-FORMAT.md", "docs/INSTALL.md", "docs/VIBRATION.md",
         "docs/ROS2.md", "docs/ERRORS.md"]
# Lines not run here, each with why: a real chip, a system change (systemd,
# packages, pip), a block another stage runs, or one that is not a program.
NOT_RUN = ("hardware", "system", "covered", "text")
RUNS_SECONDS = 4.0
TIMEOUT = 180.0


class Report:
    """The stage's verdicts, each said as a line test-results.py reads."""
    def __init__(self) -> None:
        self.passed = 0
        self.failures: list[str] = []


report = Report()


def check(ok: bool, what: str) -> None:
    if ok:
        report.passed += 1
        print(f"docs-test: PASS: {what}")
    else:
        report.failures.append(what)
        print(f"docs-test: FAIL: {what}")


@dataclass
class Expectation:
    kind: str                      # ok, exit, runs, background, hardware, text
    code: int = 0
    prints: list[str] = field(default_factory=list)
    stdin: str | None = None
    waits: str | None = None
    why: str = ""


def parse_expectation(line: str) -> Expectation:
    kind = line.split(":", 1)[0]
    if kind in NOT_RUN:
        return Expectation(kind, why=line.split(":", 1)[1].strip())
    words = line.split(" ", 1)
    kind, rest = words[0], words[1] if len(words) > 1 else ""
    e = Expectation(kind)
    if kind == "exit":
        code, _, rest = rest.partition(" ")
        e.code = int(code)
    elif kind not in ("ok", "runs", "background"):
        raise ValueError(f"unknown expectation '{line}'")
    # Options in any order: prints TEXT / stdin TEXT / waits PATH; TEXT runs
    # to the next keyword.
    for key, value in re.findall(r"(prints|stdin|waits) (.*?)(?= (?:prints|stdin|waits) |$)", rest):
        if key == "prints":
            e.prints.append(value)
        elif key == "stdin":
            e.stdin = value + "\n"
        else:
            e.waits = value
    return e


class Runner:
    def __init__(self, scratch: str):
        self.env = dict(os.environ)
        self.env["PATH"] = f"{REPO}/.build/debug:{self.env['PATH']}"
        self.env["PYTHONPATH"] = f"{REPO}/clients/python"
        self.env.pop("ACCELD_SOCKET", None)
        self.scratch = scratch
        self.background: list[subprocess.Popen] = []

    def start(self, argv: list[str] | str, stdin: str | None, shell: bool = True) -> subprocess.Popen:
        return subprocess.Popen(argv, shell=shell, cwd=REPO, env=self.env, executable="/bin/bash" if shell else None,
                                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)

    @staticmethod
    def stop(process: subprocess.Popen) -> str:
        """Ends the command's whole process group: what it started in the
        background may outlive it, holding its output open."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                out, _ = process.communicate(timeout=10)
                return out or ""
            except subprocess.TimeoutExpired:
                continue
        return ""

    def run(self, command: str, e: Expectation, language: str) -> tuple[bool, str]:
        if language == "python":
            argv, shell = ["python3", "-c", command], False
        else:
            argv, shell = command, True
        if e.kind == "background":
            process = self.start(command.split(" #")[0].rstrip().rstrip("&"), None)
            self.background.append(process)
            if e.waits:
                deadline = time.monotonic() + 30
                while not os.path.exists(e.waits) and process.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.1)
                if not os.path.exists(e.waits):
                    return False, f"{e.waits} never appeared: {self.stop(process)[-600:]}"
            return True, ""
        process = self.start(argv, e.stdin, shell)
        if e.kind == "runs":
            if e.stdin is not None:
                process.stdin.write(e.stdin)
                process.stdin.close()
            try:
                process.wait(timeout=RUNS_SECONDS)
            except subprocess.TimeoutExpired:
                pass
            if process.poll() is not None:
                return False, f"ended (exit {process.returncode}) before {RUNS_SECONDS} s: {self.stop(process)[-600:]}"
            out = self.stop(process)
            return all(p in out for p in e.prints), out
        try:
            out = self.typed(process, e) if e.stdin is not None else process.communicate(timeout=TIMEOUT)[0]
        except subprocess.TimeoutExpired:
            return False, f"still running after {TIMEOUT} s: {self.stop(process)[-600:]}"
        wanted = 0 if e.kind == "ok" else e.code
        ok = process.returncode == wanted and all(p in out for p in e.prints)
        return ok, f"exit {process.returncode}: {out[-600:]}"

    @staticmethod
    def typed(process: subprocess.Popen, e: Expectation) -> str:
        """As a person types a line and waits for the answer before ending
        the input: ending it at once would let socat give up on the reply
        after its half second, which a busy host can take."""
        process.stdin.write(e.stdin)
        process.stdin.flush()
        fd = process.stdout.fileno()
        os.set_blocking(fd, False)
        out, deadline = b"", time.monotonic() + TIMEOUT
        while not all(p.encode() in out for p in e.prints) and process.poll() is None and time.monotonic() < deadline:
            try:
                out += os.read(fd, 65536)
            except BlockingIOError:
                time.sleep(0.05)
        process.stdin.close()
        os.set_blocking(fd, True)
        while chunk := os.read(fd, 65536):
            out += chunk
        process.wait(timeout=TIMEOUT)
        return out.decode(errors="replace")

    def end_block(self) -> None:
        for process in self.background:
            self.stop(process)
        self.background.clear()
