# SPDX-License-Identifier: Apache-2.0
"""Every option a page names is in its program's --help, and no --help
breaks a sentence by hand."""
from __future__ import annotations

import re
import shlex
import subprocess

from runner import PAGES, REPO, Runner, check

PROGRAMS = {"acceld", "accelctl", "acceld-gateway", "acceld-sensorproxy", "acceld-ros2"}
SUBCOMMANDS = {
    "acceld": {"run", "sample", "replay"},
    "accelctl": {"probe", "dump", "selftest", "calibrate", "rate", "watch", "events", "status", "record",
                 "plot", "configure", "poll", "zero", "vibration"},
}


def help_text(runner: Runner, program: str, subcommand: str | None, cache: dict) -> str:
    key = (program, subcommand)
    if key not in cache:
        argv = [f"{REPO}/.build/debug/{program}"] + ([subcommand] if subcommand else []) + ["--help"]
        # 80 columns, a terminal's default, whatever this one is.
        cache[key] = subprocess.run(argv, capture_output=True, text=True, env=dict(runner.env, COLUMNS="80"), timeout=60).stdout
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
    for page in PAGES + ["docs/CONFIG.md", "docs/DRIVER.md"]:
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
            # An example, a command line, that did not fit in 80 columns:
            # its rest lands unindented on the next line.
            spilled = [a for a, b in zip(lines, lines[1:])
                       if re.match(r"\s*(Example: )?(acceld|accelctl)", a) and b[:1] and not b[:1].isspace() and not b.endswith(":")
                       and not re.match(r"[A-Z]", b)]
            check(not spilled, f"{program}{' ' + sub if sub else ''} --help's examples each fit in 80 columns"
                  + (f" (spilled after: {spilled[:2]})" if spilled else ""))
