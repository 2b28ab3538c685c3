# SPDX-License-Identifier: Apache-2.0
"""What a command-line program on this library shares with acceld's own tools:
their exit codes (sysexits.h, docs/ERRORS.md) and their messages, one
paragraph that says what was wrong and what to do.

    from acceld.cli import ArgumentParser, run

    def main():
        parser = ArgumentParser(description="...")      # a usage error exits 64, not argparse's 2
        parser.add_argument("--socket", default=acceld.default_socket())
        args = parser.parse_args()
        with acceld.connect(args.socket) as motion:
            ...

    if __name__ == "__main__":
        run(main, "my_program")                          # no daemon: a paragraph on stderr, exit 69

The examples (clients/python/examples) all use it.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, NoReturn, Optional

from .errors import (AcceldError, ConnectionLost, DaemonNotRunning, NoGyroscope, NotPermitted, PermissionDenied,
                     ProtocolError, RequestError)

# sysexits.h, as docs/ERRORS.md and the Swift tools (ClientError.exitCode) use them.
EX_OK = 0
EX_USAGE = 64          # a bad option or value
EX_DATAERR = 65        # acceld refused a request
EX_UNAVAILABLE = 69    # acceld is not running (no socket, or nothing listens on it); no gyroscope
EX_IOERR = 74          # acceld hung up
EX_PROTOCOL = 76       # the socket does not speak acceld's protocol
EX_NOPERM = 77         # permission denied: the socket's group, or a privileged request


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, but a usage error (an unknown option, a bad value)
    exits 64 (EX_USAGE), as acceld's tools do, rather than argparse's 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EX_USAGE, f"{self.prog}: error: {message}\n")


def exit_code(error: BaseException) -> int:
    """The exit code for an exception from this library, as the Swift tools give it."""
    if isinstance(error, (DaemonNotRunning, NoGyroscope)):
        return EX_UNAVAILABLE
    if isinstance(error, (PermissionDenied, NotPermitted)):
        return EX_NOPERM
    if isinstance(error, ProtocolError):
        return EX_PROTOCOL
    if isinstance(error, ConnectionLost):
        return EX_IOERR
    if isinstance(error, RequestError):
        return EX_DATAERR
    return 1


def explain(error: BaseException, prog: str) -> str:
    """One paragraph for a program's user: what was wrong and what to do.
    For a missing daemon the advice is the program's (--socket), not the
    library's (connect(path))."""
    if isinstance(error, DaemonNotRunning):
        return (f"{prog}: acceld is not running at {error.path} ({error.detail}). Start it with "
                f"'sudo systemctl start acceld.socket' (systemd then starts acceld on the first connection), "
                f"or, if acceld was started with --socket PATH, give {prog} the same path: --socket PATH "
                f"(or ACCELD_SOCKET=PATH).")
    return f"{prog}: {error}"


def run(main: Callable[[], Optional[int]], prog: Optional[str] = None) -> NoReturn:
    """Runs a program's main() and exits: 0 when it returns (or with the
    code it returns), 0 on Ctrl-C, and on an exception of this library the
    paragraph `explain` gives, on stderr, with the code `exit_code` gives."""
    prog = prog or os.path.basename(sys.argv[0])
    try:
        code = main()
    except KeyboardInterrupt:
        code = EX_OK
    except AcceldError as e:
        print(explain(e, prog), file=sys.stderr)
        code = exit_code(e)
    sys.exit(code or EX_OK)
