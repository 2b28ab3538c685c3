# SPDX-License-Identifier: Apache-2.0
"""The exceptions of the acceld client: each says what happened and what to do."""
from __future__ import annotations

from typing import Optional


class AcceldError(Exception):
    """Base of every exception this library raises."""


class DaemonNotRunning(AcceldError, FileNotFoundError):
    """Nothing serves the socket: it does not exist, or nobody listens on it."""

    def __init__(self, path: str, detail: str = "no such socket"):
        self.path = path
        self.detail = detail
        super().__init__(
            f"acceld is not running at {path} ({detail}): start it with "
            f"'sudo systemctl start acceld.socket', or give the socket it was started with "
            f"(acceld --socket PATH) as connect(path) or in ACCELD_SOCKET")


class PermissionDenied(AcceldError, PermissionError):
    """The socket exists but this user may not connect to it."""

    def __init__(self, path: str):
        self.path = path
        super().__init__(
            f"permission denied on {path}: the socket is for the 'acceld' group; "
            f"add yourself with 'sudo usermod -aG acceld $USER' and log in again "
            f"(or run as root)")


class ConnectionLost(AcceldError, ConnectionError):
    """The daemon went away (it stopped, or the connection broke)."""


class NoGyroscope(AcceldError):
    """Gyroscope updates asked of a part without a gyroscope (`is_gyro_available` says)."""

    def __init__(self, chip: Optional[str]):
        self.chip = chip
        super().__init__(
            f"the {chip or 'part'} acceld serves has no gyroscope: rotation rates need a "
            f"six-axis part such as the LSM6DSO")


class NewerProtocolWarning(UserWarning):
    """The daemon speaks a newer protocol than this library: what the library
    knows still means the same, and what was added since is skipped. Issued
    once per process."""


class ProtocolError(AcceldError):
    """The peer does not speak the acceld protocol (no hello, not JSON)."""


class RequestError(AcceldError):
    """The daemon answered a request with an `error` message.

    `code` is the protocol's error code (`bad-field`, `not-permitted`,
    `device-error`, `no-data`, `moving`, ...), `message` the daemon's words,
    `request` the class of the request that failed.
    """

    def __init__(self, code: Optional[str], message: Optional[str], request: Optional[str] = None):
        self.code = code or "unknown"
        self.message = message or ""
        self.request = request
        super().__init__(f"{self.code}: {self.message}")

    @staticmethod
    def of(code: Optional[str], message: Optional[str], request: Optional[str] = None) -> RequestError:
        """The most specific exception class for `code`."""
        cls = {"not-permitted": NotPermitted, "device-error": DeviceError}.get(code or "", RequestError)
        return cls(code, message, request)


class NotPermitted(RequestError):
    """A privileged request (configure, calibrate, selftest) from a user who may not make it."""


class DeviceError(RequestError):
    """The chip refused or the bus failed; the message says why."""
