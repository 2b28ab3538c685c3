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

docs/ERRORS.md carries `<!-- doc-test errors ... -->` with `CODE: COMMAND
  # prints TEXT` (or `CODE: hardware: WHY`) for each exit code of its
tables: the command must exit CODE and say TEXT.

Then every option a page names for one of the executables (in a block or
in `inline code`) must appear in that executable's --help (of the
subcommand named), and no --help may break a sentence into short lines.
"""
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "docs"))
from runner import NOT_RUN, PAGES, REPO, Expectation, Runner, check, parse_expectation, report  # noqa: E402
from help_check import run_help  # noqa: E402
from demo_check import run_demo  # noqa: E402



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
        # The code and the message: a command's `# prints TEXT` says what it must say.
        command, _, printed = command.partition("   # prints ")
        check(bool(printed), f"docs/ERRORS.md: `{command}` says what it prints ('   # prints TEXT')")
        ok, detail = runner.run(command, Expectation("exit", code=int(code), prints=[printed] if printed else []), "sh")
        check(ok, f"docs/ERRORS.md: `{command}` exits {code}, saying '{printed}'" + ("" if ok else f": {detail.strip()}"))
        runner.end_block()
    check(listed <= covered, f"docs/ERRORS.md: every exit code of the table has a command or a hardware note (missing: {sorted(listed - covered)})")


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
    print(f"docs-test: {report.passed} passed, {len(report.failures)} failed")
    for f in report.failures:
        print(f"  failed: {f[:300]}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
