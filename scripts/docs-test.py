#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The docs stage: every command the pages show runs as the page says.

Each fenced sh, python or swift block in the pages below carries, just
before it, a comment that says what each of its commands should do:

    <!-- doc-test
    daemon: --simulate tour           (optional: acceld for the block, at $ACCELD_SOCKET)
    ok                                 one line per command of the block, in order
    exit 69 prints no I2C bus
    background waits /tmp/acceld.sock
    runs prints "class":"watch"
    ok stdin {"class":"watch"} prints "class":"watch"
    hardware: a real chip on /dev/i2c-1
    -->

`ok`: exits 0; `exit N`: exits N; `runs`: still running after a few
seconds (a daemon, a live view), then stopped; `background`: started in
the background (the line ends with &) and stopped at the end of the block,
`waits PATH` until PATH exists. Not run here, and said with why:
`hardware: WHY` (a real chip), `system: WHY` (systemd, packages, pip),
`covered: WHERE` (another stage runs it). `export NAME=VALUE` lines set
the environment of the block's next lines, as in one shell.
`prints TEXT` checks the output (stdout and stderr) contains TEXT; `stdin
TEXT` feeds TEXT as standard input. A python block is one program: one
line. A block that is not a program says `text: WHY`.

docs/ERRORS.md carries `<!-- doc-test errors ... -->` with `CODE: COMMAND`
(or `CODE: hardware: WHY`) for each exit code of its table.

Then every option a page names for one of the executables (in a block or
in `inline code`) must appear in that executable's --help (of the
subcommand named), and no --help may break a sentence into short lines.
"""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/ACCELCTL.md", "docs/CLIENTS.md", "docs/GATEWAY.md", "docs/SENSORPROXY.md",
         "clients/python/README.md", "docs/TRACE-FORMAT.md", "docs/INSTALL.md"]
PROGRAMS = {"acceld", "accelctl", "acceld-gateway", "acceld-sensorproxy"}
SUBCOMMANDS = {
    "acceld": {"run", "sample", "replay"},
    "accelctl": {"probe", "dump", "selftest", "calibrate", "rate", "watch", "events", "status", "record", "replay",
                 "plot", "configure", "poll", "zero"},
}
# Lines not run here, each with why: a real chip, a system change (systemd,
# packages, pip), a block another stage runs, or one that is not a program.
NOT_RUN = ("hardware", "system", "covered", "text")
RUNS_SECONDS = 4.0
TIMEOUT = 180.0

failures: list[str] = []
passed = 0


def check(ok: bool, what: str) -> None:
    global passed
    if ok:
        passed += 1
        print(f"docs-test: PASS: {what}")
    else:
        failures.append(what)
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


@dataclass
class Block:
    page: str
    line: int
    language: str
    body: list[str]
    marker: list[str] | None


def blocks(page: str) -> list[Block]:
    lines = (REPO / page).read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        m = re.match(r"^```(\w*)", lines[i])
        if not m:
            i += 1
            continue
        start, language = i, m.group(1)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = None
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and lines[j].strip() == "-->":
            k = j
            while not lines[k].startswith("<!-- doc-test"):
                k -= 1
            marker = [l.strip() for l in lines[k + 1:j] if l.strip()]
        found.append(Block(page, start + 1, language, lines[start + 1:end], marker))
        i = end + 1
    return found


def commands(block: Block) -> list[str]:
    if block.language == "python" or block.language == "swift":
        return ["\n".join(block.body)]
    return [l for l in block.body if l.strip() and not l.strip().startswith("#")]


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
            out, _ = process.communicate(input=e.stdin, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return False, f"still running after {TIMEOUT} s: {self.stop(process)[-600:]}"
        wanted = 0 if e.kind == "ok" else e.code
        ok = process.returncode == wanted and all(p in out for p in e.prints)
        return ok, f"exit {process.returncode}: {out[-600:]}"

    def end_block(self) -> None:
        for process in self.background:
            self.stop(process)
        self.background.clear()


def run_blocks(runner: Runner) -> None:
    for page in PAGES:
        for block in blocks(page):
            if block.language not in ("sh", "python", "swift"):
                continue
            where = f"{page}:{block.line}"
            if block.marker is None:
                check(False, f"{where}: a {block.language} block without a <!-- doc-test --> comment saying what it does")
                continue
            marker = list(block.marker)
            daemon = None
            if marker and marker[0].startswith("daemon:"):
                socket = f"{runner.scratch}/block.sock"
                runner.env["ACCELD_SOCKET"] = socket
                daemon = runner.start(f"acceld {marker.pop(0)[7:].strip()} --socket {socket}", None)
                deadline = time.monotonic() + 30
                while not os.path.exists(socket) and daemon.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.1)
            expectations = [parse_expectation(m) for m in marker]
            cmds = commands(block)
            if len(expectations) == 1 and expectations[0].kind in ("text", "covered"):
                print(f"docs-test: SKIP: {where}: {expectations[0].kind}: {expectations[0].why}")
                continue
            if len(expectations) != len(cmds):
                check(False, f"{where}: {len(cmds)} command(s) but {len(expectations)} expectation(s) in its doc-test comment")
                continue
            for command, e in zip(cmds, expectations):
                shown = command.split("\n")[0][:90]
                if e.kind in NOT_RUN:
                    print(f"docs-test: SKIP: {where}: `{shown}` ({e.kind}: {e.why})")
                    continue
                if block.language == "sh" and (m := re.match(r"export (\w+)=(\S+)$", command.split("#")[0].strip())):
                    runner.env[m.group(1)] = m.group(2)   # for the block's next lines, as in one shell
                    continue
                ok, detail = runner.run(command, e, block.language)
                said = e.kind if e.kind != "exit" else f"exit {e.code}"
                check(ok, f"{where}: `{shown}` does what the page says ({said}{'; prints ' + ', '.join(e.prints) if e.prints else ''})"
                      + ("" if ok else f": {detail.strip()}"))
            runner.end_block()
            if daemon is not None:
                runner.stop(daemon)
                runner.env.pop("ACCELD_SOCKET", None)


def run_errors(runner: Runner) -> None:
    text = (REPO / "docs/ERRORS.md").read_text()
    listed = set(int(c) for c in re.findall(r"^\| (\d+)(?: / \d+)? \|", text, re.M)) - {0, 1}
    listed |= set(int(c) for c in re.findall(r"^\| \d+ / (\d+) \|", text, re.M))
    m = re.search(r"<!-- doc-test errors[^\n]*\n(.*?)-->", text, re.S)
    entries = [l.strip() for l in (m.group(1) if m else "").splitlines() if l.strip()]
    covered = set()
    for entry in entries:
        code, _, command = entry.partition(": ")
        covered.add(int(code))
        if command.startswith("hardware:"):
            print(f"docs-test: SKIP: docs/ERRORS.md: exit {code} (hardware: {command[9:].strip()})")
            continue
        ok, detail = runner.run(command, Expectation("exit", code=int(code)), "sh")
        check(ok, f"docs/ERRORS.md: `{command}` exits {code}" + ("" if ok else f": {detail.strip()}"))
        runner.end_block()
    check(listed <= covered, f"docs/ERRORS.md: every exit code of the table has a command or a hardware note (missing: {sorted(listed - covered)})")


def run_demo(runner: Runner) -> None:
    """The README's first command, as a person runs it: progress at once,
    events in words, the live page up until Ctrl-C."""
    out = subprocess.run(["scripts/demo.sh", "--help"], cwd=REPO, capture_output=True, text=True, timeout=60)
    check(out.returncode == 0 and "--seconds N" in out.stdout and "Usage:" in out.stdout,
          "scripts/demo.sh --help explains its options without building")
    env = dict(runner.env, DEMO_PORT="18086")
    started = time.monotonic()
    demo = subprocess.Popen(["scripts/demo.sh", "tour"], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
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
    finally:
        Runner.stop(demo)


def help_text(runner: Runner, program: str, subcommand: str | None, cache: dict) -> str:
    key = (program, subcommand)
    if key not in cache:
        argv = [f"{REPO}/.build/debug/{program}"] + ([subcommand] if subcommand else []) + ["--help"]
        cache[key] = subprocess.run(argv, capture_output=True, text=True, env=runner.env, timeout=60).stdout
    return cache[key]


def invocations(text: str):
    """(program, subcommand, options) for each command line or code span naming a program."""
    spans = re.findall(r"`([^`\n]+)`", text)
    for line in spans + text.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        for i, word in enumerate(words):
            name = word.rsplit("/", 1)[-1]
            if name in PROGRAMS and (i == 0 or "=" in words[i - 1] or words[i - 1] in ("sudo", "exec")):
                rest = words[i + 1:]
                sub = rest[0] if rest and rest[0] in SUBCOMMANDS.get(name, ()) else None
                options = {w.split("=")[0] for w in rest if re.fullmatch(r"--[a-z][a-z0-9-]*(=.*)?", w)}
                yield name, sub, options
                break


def run_help(runner: Runner) -> None:
    cache: dict = {}
    for page in PAGES + ["docs/ERRORS.md", "docs/CONFIG.md", "docs/DRIVER.md"]:
        missing = []
        for program, sub, options in invocations((REPO / page).read_text()):
            text = help_text(runner, program, sub, cache)
            missing += [f"{program}{' ' + sub if sub else ''} {o}" for o in sorted(options) if o not in text]
        check(not missing, f"{page}: every option it names is in the --help of its program{': missing ' + ', '.join(sorted(set(missing))) if missing else ''}")
    for program in sorted(PROGRAMS):
        for sub in [None] + sorted(SUBCOMMANDS.get(program, ())):
            text = help_text(runner, program, sub, cache)
            lines = text.splitlines()
            # A sentence broken by hand: a short line whose sentence goes on
            # in lower case on the next, unindented line.
            broken = [a for a, b in zip(lines, lines[1:])
                      if 0 < len(a) < 55 and not a.startswith(" ") and not a.endswith(":") and b[:1].islower()]
            check(bool(text) and not broken, f"{program}{' ' + sub if sub else ''} --help wraps its sentences"
                  + (f" (broken after: {broken[:2]})" if broken else ""))


def main() -> int:
    parts = {"blocks": run_blocks, "errors": run_errors, "help": run_help, "demo": run_demo}
    chosen = sys.argv[1:] or list(parts)      # e.g. scripts/docs-test.py help
    if not set(chosen) <= set(parts):
        print(f"usage: {sys.argv[0]} [{' | '.join(parts)}]...", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner(scratch)
        for stale in ("/tmp/acceld.sock",):
            if os.path.exists(stale):
                os.unlink(stale)
        for name in chosen:
            parts[name](runner)
    print(f"docs-test: {passed} passed, {len(failures)} failed")
    for f in failures:
        print(f"  failed: {f[:300]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
