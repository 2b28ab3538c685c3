# SPDX-License-Identifier: Apache-2.0
"""The connection to acceld that stays: what `Motion` is the facade over.

One background thread (the reader) reads the socket a line at a time and
decodes each line. It answers the requests other threads make (replies
come in order), keeps the lost-sample accounting (gaps in the frames'
sequence numbers at the rate watched, and what the daemon says it
dropped), and hands every other message to its listener. When the daemon
goes away, or says goodbye, it reports it, reconnects with back-off
(0.1 s doubling to `max_backoff`) and sends the standing watch again.
"""
from __future__ import annotations

import json
import logging
import os
import socket
import stat
import threading
import time
import warnings
from collections import deque
from typing import Any, Callable, Deque, Dict, Optional, Tuple

from .errors import (AcceldError, ConnectionLost, DaemonNotRunning, NewerProtocolWarning, PermissionDenied,
                     ProtocolError, RequestError)
from .messages import (PROTOCOL_VERSION, Calibration, Configured, Device, Disconnected, Dropped, Error, Frame, Gap,
                       Goodbye, Hello, Learned, Message, Poll, Reconnected, SelfTest, Status, Watch, Zero, parse)

DEFAULT_SOCKET = "/run/acceld/acceld.sock"

log = logging.getLogger("acceld")

_newer_said = False


def _note_newer_protocol(hello: Hello) -> None:
    """Says once per process that the daemon is newer than this library
    (docs/PROTOCOL.md, "Versions"): it still reads what it knows."""
    global _newer_said
    if _newer_said or not isinstance(hello.protocol, int) or hello.protocol <= PROTOCOL_VERSION:
        return
    _newer_said = True
    warnings.warn(f"acceld {hello.version} speaks protocol {hello.protocol}, this library {PROTOCOL_VERSION}: "
                  "it reads what it knows, and what was added since (fields, messages, requests) is skipped; "
                  "update the library to use it", NewerProtocolWarning, stacklevel=4)


def default_socket() -> str:
    """`ACCELD_SOCKET` if set, else the systemd unit's socket."""
    return os.environ.get("ACCELD_SOCKET") or DEFAULT_SOCKET


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


# Which messages answer which request. Replies come in order, so the first
# pending request takes the first message that can answer it.
_REPLIES: Dict[str, Callable[[Message], bool]] = {
    "watch": lambda m: isinstance(m, Watch),
    "unwatch": lambda m: isinstance(m, Watch),
    "poll": lambda m: isinstance(m, Poll),
    "status": lambda m: isinstance(m, Status),
    "device": lambda m: isinstance(m, Device) and m.event is None,
    "zero": lambda m: isinstance(m, Zero),
    "configure": lambda m: isinstance(m, Configured) or (isinstance(m, Device) and m.event == "configured"),
    "calibrate": lambda m: isinstance(m, Calibration),
    "selftest": lambda m: isinstance(m, SelfTest),
    "learn": lambda m: isinstance(m, Learned),
}


class _Pending:
    def __init__(self, request: str):
        self.request = request
        self.accepts = _REPLIES.get(request, lambda m: m.CLASS == request)
        self.done = threading.Event()
        self.reply: Optional[Message] = None
        self.error: Optional[Exception] = None

    def finish(self, reply: Optional[Message] = None, error: Optional[Exception] = None):
        self.reply, self.error = reply, error
        self.done.set()


class Connection:
    """acceld's socket, kept: connects (raising what `Motion` documents when
    it cannot), then, once `start()`ed, reads on a thread of its own.

    The listener (a `Motion`) is told, on the reader thread:
    `_follow(msg)` for every message, under `lock`, to keep its state;
    `_deliver_frame(frame)` for each frame (after a `Gap` to `_notify`
    when samples were lost before it); `_notify(msg)` for every other
    message that answers no request, and the notices `Disconnected` and
    `Reconnected`; `_reconnected()` under `lock` once connected again,
    before the watch is sent; `_ended(error)` when the reader stops.
    """

    def __init__(self, path: str, listener: Any, lock: threading.RLock, *, reconnect: bool, timeout: float,
                 hello_timeout: float, max_backoff: float):
        self.path = path
        self.reconnect = reconnect
        self.timeout = timeout
        self.max_backoff = max_backoff
        self.lock = lock                        # shared with the listener
        self._listener = listener
        self._write_lock = threading.Lock()     # one request on the wire at a time, in order
        self._pending: Deque[_Pending] = deque()
        #: The watch a reconnection sends (None: nothing watched).
        self.watching: Optional[Dict[str, Any]] = None

        #: Frames this client should have had and did not (sequence gaps), in frames.
        self.lost = 0
        #: The daemon's count of messages it dropped for this client (`dropped.total`).
        self.dropped = 0
        #: Times the client reconnected after the daemon went away.
        self.reconnects = 0
        self.hello: Optional[Hello] = None
        #: The device as last reported (hello, device and status messages).
        self.device: Optional[Device] = None
        #: Chip samples between frames at the rate watched.
        self.step = 1
        self._last_seq: Optional[int] = None

        self._sock: Optional[socket.socket] = None
        self._buffer = b""
        self._broken: Optional[str] = None
        self._disconnected_at = 0.0
        self.closed = False
        self._stopping = threading.Event()
        self.finished = threading.Event()
        self.failure: Optional[Exception] = None

        self._attach(*self._open(hello_timeout))
        self._reader = threading.Thread(target=self._run, name="acceld-reader", daemon=True)

    def start(self):
        self._reader.start()

    @property
    def is_connected(self) -> bool:
        return self._sock is not None and self._broken is None and not self.closed

    def close(self):
        """Closes the connection, fails what waits for a reply, ends the reader. Idempotent."""
        if self.closed:
            return
        self.closed = True
        self._stopping.set()
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)     # wakes the reader's recv
            except OSError:
                pass
        if threading.current_thread() is not self._reader:
            self._reader.join(self.timeout)
        self._end(None)

    # Requests

    def send(self, request: Dict[str, Any]) -> _Pending:
        """Writes one request; its reply is awaited with `reply()`."""
        name = request.get("class")
        if not isinstance(name, str):
            raise ValueError("a request needs a 'class'")
        pending = _Pending(name)
        line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        with self._write_lock:
            sock = self._sock
            if sock is None or self._broken is not None or self.closed:
                raise ConnectionLost(f"not connected to acceld at {self.path}"
                                     + (" (reconnecting)" if self.reconnect and not self.closed else ""))
            with self.lock:
                self._pending.append(pending)
            try:
                sock.sendall(line)
            except OSError as e:
                with self.lock:
                    if pending in self._pending:
                        self._pending.remove(pending)
                raise ConnectionLost(f"acceld at {self.path} went away: {e}") from None
        return pending

    def reply(self, pending: _Pending, timeout: Optional[float]) -> Message:
        """The reply `pending` waits for; an `error` reply raises RequestError."""
        if threading.current_thread() is self._reader:
            # From a handler: the reader itself must read until the reply.
            while not pending.done.is_set():
                self._handle(self._read_message())
        elif not pending.done.wait(self.timeout if timeout is None else timeout):
            with self.lock:         # its reply, if it ever comes, is no longer awaited
                if pending in self._pending:
                    self._pending.remove(pending)
            raise TimeoutError(f"acceld did not answer {pending.request} within "
                               f"{self.timeout if timeout is None else timeout} s")
        if pending.error is not None:
            raise pending.error
        assert pending.reply is not None
        return pending.reply

    # Connecting

    def _open(self, timeout: float) -> Tuple[socket.socket, Hello, bytes]:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            try:
                sock.connect(self.path)
            except (FileNotFoundError, NotADirectoryError):
                raise DaemonNotRunning(self.path) from None
            except ConnectionRefusedError:
                raise DaemonNotRunning(self.path, "the socket exists but nothing listens on it"
                                       if _is_socket(self.path) else "that is not a socket") from None
            except PermissionError:
                raise PermissionDenied(self.path) from None
            buffer = b""
            while b"\n" not in buffer:
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    raise ProtocolError(f"{self.path} said nothing for {timeout} s: is it acceld's socket?") from None
                if not chunk:
                    raise ConnectionLost(f"acceld at {self.path} closed the connection before its hello")
                buffer += chunk
            line, _, rest = buffer.partition(b"\n")
            try:
                hello = parse(line)
            except ValueError:
                raise ProtocolError(f"{self.path} does not speak the acceld protocol: {line[:80]!r}") from None
            if isinstance(hello, Error):
                raise RequestError.of(hello.code, hello.message, hello.request)
            if not isinstance(hello, Hello):
                raise ProtocolError(f"{self.path} began with {hello.CLASS!r}, not hello")
            sock.settimeout(None)
            return sock, hello, rest
        except BaseException:
            sock.close()
            raise

    def _attach(self, sock: socket.socket, hello: Hello, rest: bytes):
        _note_newer_protocol(hello)
        with self.lock:
            self._sock, self._buffer, self._broken = sock, rest, None
            self.hello = hello
            self.device = hello.device
            self._last_seq = None

    # Reading

    def _read_message(self) -> Message:
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if newline:
                self._buffer = rest
                if line.strip():
                    try:
                        return parse(line)
                    except ValueError:
                        log.warning("acceld: skipped a line that is not a JSON object: %r", line[:80])
                continue
            reason = "acceld closed the connection"
            try:
                chunk = self._sock.recv(65536) if self._sock is not None else b""
            except OSError as e:
                chunk, reason = b"", f"acceld's connection broke: {e}"
            if not chunk:
                self._broken = self._broken or reason
                raise ConnectionLost(self._broken)
            self._buffer += chunk

    def _run(self):
        try:
            while not self.closed:
                try:
                    if self._broken is None:
                        self._handle(self._read_message())
                        continue
                except ConnectionLost:
                    pass
                if self.closed:
                    break
                error = self._connection_lost(self._broken or "connection lost")
                if not self.reconnect:
                    self.failure = error
                    break
                if not self._reconnect():
                    break
        except Exception as e:           # a bug here must not leave callers waiting forever
            log.exception("acceld: the reader stopped")
            self.failure = ConnectionLost(f"the acceld client's reader stopped: {e!r}")
        finally:
            self._end(self.failure)
            self.finished.set()

    # Losing the connection and reconnecting

    def _connection_lost(self, reason: str) -> ConnectionLost:
        with self._write_lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        with self.lock:
            pending = list(self._pending)
            self._pending.clear()
            self._last_seq = None
        error = ConnectionLost(f"acceld at {self.path} went away: {reason}")
        for p in pending:
            p.finish(error=error)
        self._disconnected_at = time.monotonic()
        log.warning("acceld: %s%s", reason, "; reconnecting" if self.reconnect else "")
        self._listener._notify(Disconnected(reason=reason))
        return error

    def _reconnect(self) -> bool:
        delay, attempts = 0.1, 0
        while not self.closed:
            attempts += 1
            try:
                opened = self._open(min(self.timeout, 2.0))
            except (AcceldError, OSError) as e:
                log.debug("acceld: reconnection attempt %d: %s", attempts, e)
                self._stopping.wait(delay)
                delay = min(delay * 2, self.max_backoff)
                continue
            self._attach(*opened)
            with self.lock:
                self.reconnects += 1
                self._listener._reconnected()
            watching = self.watching
            if watching:
                try:
                    self.send(watching)         # its reply is read by the loop
                except ConnectionLost:
                    continue
            away = time.monotonic() - self._disconnected_at
            log.warning("acceld: reconnected after %.1f s (%d attempts)", away, attempts)
            self._listener._notify(Reconnected(away=away, attempts=attempts, hello=opened[1]))
            return True
        return False

    def _end(self, error: Optional[Exception]):
        with self.lock:
            pending = list(self._pending)
            self._pending.clear()
        for p in pending:
            p.finish(error=ConnectionLost("the acceld client was closed"))
        self._listener._ended(error)

    # What the reader does with each message

    def _handle(self, msg: Message):
        with self.lock:
            pending = None
            if self._pending:
                head = self._pending[0]
                if (isinstance(msg, Error) and msg.request in (None, head.request)) or head.accepts(msg):
                    pending = self._pending.popleft()
            self._account(msg)
            self._listener._follow(msg)
        if pending is not None:
            if isinstance(msg, Error):
                pending.finish(error=RequestError.of(msg.code, msg.message, msg.request))
            else:
                pending.finish(reply=msg)
        elif isinstance(msg, Frame):
            gap = self._gap_before(msg)
            if gap is not None:
                self._listener._notify(gap)
            self._listener._deliver_frame(msg)
        elif isinstance(msg, Error):
            log.warning("acceld: error not matching a request: %s: %s", msg.code, msg.message)
        else:
            self._listener._notify(msg)
            if isinstance(msg, Goodbye):
                # Gone as soon as it says so, not when its socket closes.
                said = f"acceld said goodbye: {msg.reason}" if msg.reason else "acceld said goodbye"
                self._broken = self._broken or said

    def _account(self, msg: Message):
        """Keeps the device, the decimation and the counts the gap accounting needs."""
        if isinstance(msg, Device):
            previous = self.device
            self.device = msg
            if msg.event == "configured" or (previous and previous.rate != msg.rate):
                # The daemon works the decimation out again from the new rate.
                wanted = self.watching.get("rate") if self.watching else None
                self.step = max(1, round(msg.rate / wanted)) if wanted and msg.rate else 1
                self._last_seq = None
        elif isinstance(msg, Status) and msg.device is not None:
            self.device = msg.device
        elif isinstance(msg, Watch):
            chip = self.device.rate if self.device else None
            self.step = max(1, round(chip / msg.rate)) if chip and msg.rate else 1
            self._last_seq = None
        elif isinstance(msg, Dropped):
            self.dropped = msg.total if msg.total is not None else self.dropped + (msg.count or 0)

    def _gap_before(self, frame: Frame) -> Optional[Gap]:
        """The frames lost before `frame`, if any, counted."""
        with self.lock:
            last = self._last_seq
            if frame.seq is None:
                return None
            self._last_seq = frame.seq
            if last is not None and frame.seq > last:
                missing = round((frame.seq - last) / self.step) - 1
                if missing > 0:
                    self.lost += missing
                    return Gap(lost=missing, after=last, seq=frame.seq, step=self.step)
        return None
