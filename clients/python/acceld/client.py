# SPDX-License-Identifier: Apache-2.0
"""The client: one connection to acceld, shaped like Core Motion's CMMotionManager.

One background thread (the reader) reads the socket. It answers the
requests other threads make, keeps the latest frame for the pull style,
calls the handlers of the push style, and fills the queues of `updates()`
iterators. When the daemon goes away it reports it, reconnects with
back-off, and sends the subscriptions again.
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
from dataclasses import replace
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional, Set, Tuple, Union

from .errors import (AcceldError, ConnectionLost, DaemonNotRunning, NewerProtocolWarning, NoGyroscope,
                     PermissionDenied, ProtocolError, RequestError)
from .messages import (PROTOCOL_VERSION, Attitude, Calibration, Configured, Device, Disconnected, Dropped,
                       Error, Frame, Gap, Goodbye, Hello, Message, Orientation, Poll,
                       Reconnected, SelfTest, Status, Unknown, Watch, Zero, parse)

DEFAULT_SOCKET = "/run/acceld/acceld.sock"

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
                  "update the library to use it", NewerProtocolWarning, stacklevel=3)
EVENT_STREAMS = ("orientation", "shake", "freefall", "movement", "tap")
STREAMS = ("frames",) + EVENT_STREAMS + ("device", "status")
# Messages the client reports about the connection: every iterator gets them.
NOTICES = ("gap", "dropped", "goodbye", "disconnected", "reconnected")

log = logging.getLogger("acceld")

Handler = Callable[[Any], None]


def default_socket() -> str:
    """`ACCELD_SOCKET` if set, else the systemd unit's socket."""
    return os.environ.get("ACCELD_SOCKET") or DEFAULT_SOCKET


def connect(path: Optional[str] = None, **options) -> Motion:
    """Connects to acceld (see `Motion` for the options). Use it in a `with`."""
    return Motion(path, **options)


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def _expand(streams: Iterable[str]) -> Set[str]:
    if isinstance(streams, str):
        streams = [streams]
    names: Set[str] = set()
    for s in streams:
        s = getattr(s, "CLASS", s)            # a message class works too
        if s == "frame":
            s = "frames"
        if s == "events":
            names.update(EVENT_STREAMS)
        elif s in STREAMS:
            names.add(s)
        else:
            raise ValueError(f"unknown stream {s!r}: use any of {', '.join(STREAMS)} or 'events'")
    return names


def _stream_of(msg: Message) -> str:
    return "frames" if isinstance(msg, Frame) else msg.CLASS


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


class Updates:
    """An iterator over the frames, events and notices of some streams.

    Made by `Motion.updates()`. Besides the messages of its streams it
    yields the notices `Gap`, `Dropped`, `Goodbye`, `Disconnected` and
    `Reconnected`. It holds at most `buffer` messages; when the loop over it
    falls behind, the oldest are discarded and a `Dropped` with
    `local=True` says how many. It ends after `duration` seconds (when
    given) or when closed; `timeout` raises TimeoutError when nothing came
    for that long. Close it (or use it in a `with`) to stop watching.
    """

    def __init__(self, motion: Motion, streams: Set[str], buffer: int,
                 duration: Optional[float], timeout: Optional[float]):
        self.streams = streams
        self._motion = motion
        self._queue: Deque[Message] = deque()
        self._buffer = max(1, buffer)
        self._cond = threading.Condition()
        self._deadline = None if duration is None else time.monotonic() + duration
        self._timeout = timeout
        self._closed = False
        self._error: Optional[Exception] = None
        self._discarded = 0
        self.discarded = 0

    def wants(self, msg: Message) -> bool:
        return msg.CLASS in NOTICES or _stream_of(msg) in self.streams

    def put(self, msg: Message):
        with self._cond:
            if len(self._queue) >= self._buffer:
                self._queue.popleft()
                self._discarded += 1
                self.discarded += 1
            self._queue.append(msg)
            self._cond.notify()

    def end(self, error: Optional[Exception] = None):
        with self._cond:
            self._closed = True
            if error is not None:
                self._error = error
            self._cond.notify_all()

    def __iter__(self):
        return self

    def __next__(self) -> Message:
        expired = False
        with self._cond:
            waited_since = time.monotonic()
            while True:
                if self._discarded:
                    count, self._discarded = self._discarded, 0
                    return Dropped(count=count, total=self.discarded, local=True)
                if self._queue:
                    return self._queue.popleft()
                if self._error is not None:
                    raise self._error
                if self._closed:
                    raise StopIteration
                now = time.monotonic()
                waits = []
                if self._deadline is not None:
                    waits.append(self._deadline - now)
                if self._timeout is not None:
                    waits.append(waited_since + self._timeout - now)
                wait = min(waits) if waits else None
                if wait is not None and wait <= 0:
                    expired = self._deadline is not None and now >= self._deadline
                    break
                self._cond.wait(wait)
        if expired:
            self.close()
            raise StopIteration
        raise TimeoutError(f"nothing from acceld for {self._timeout} s on {', '.join(sorted(self.streams))}")

    def close(self):
        """Stops watching this iterator's streams (those nobody else wants)."""
        if not self._closed:
            self.end()
            self._motion._remove_updates(self)

    def __enter__(self) -> Updates:
        return self

    def __exit__(self, *exc):
        self.close()


class Motion:
    """A connection to acceld: CMMotionManager's concepts, Pythonic.

    path: the socket (default: ACCELD_SOCKET, else /run/acceld/acceld.sock).
    reconnect: when the daemon goes away, report it and reconnect with
        back-off (0.1 s doubling to `max_backoff`), sending the
        subscriptions again; when False, the first loss ends the iterators
        with ConnectionLost and `run()` raises it.
    timeout: seconds to wait for each reply.
    hello_timeout: seconds to wait for the hello when connecting: the first
        client of a socket-activated acceld waits while systemd starts it
        and it opens the chip, which a slow board may take seconds to do.
    update_interval: seconds between frames (None: every sample).
    fields: frame fields to ask for (acc, gravity, user, attitude; default all).

    Raises DaemonNotRunning, PermissionDenied, ProtocolError, or
    RequestError (e.g. too-many-clients) when it cannot connect.
    """

    def __init__(self, path: Optional[str] = None, *, reconnect: bool = True, timeout: float = 5.0,
                 hello_timeout: float = 15.0, max_backoff: float = 5.0, update_interval: Optional[float] = None,
                 fields: Optional[Iterable[str]] = None):
        self.path = path or default_socket()
        self.reconnect = reconnect
        self.timeout = timeout
        self.max_backoff = max_backoff
        self._fields = list(fields) if fields is not None else None
        self._interval = update_interval

        self._lock = threading.RLock()          # state shared with the reader
        self._write_lock = threading.Lock()     # one request on the wire at a time, in order
        self._watch_lock = threading.RLock()
        self._pending: Deque[_Pending] = deque()
        self._handlers: Dict[str, List[Handler]] = {}
        self._accelerometer: Optional[Handler] = None
        self._device_motion: Optional[Handler] = None
        self._accelerometer_active = False
        self._device_motion_active = False
        self._gyro: Optional[Handler] = None
        self._gyro_active = False
        self._iterators: List[Updates] = []
        self._watching: Optional[Dict[str, Any]] = None

        #: Frames this client should have had and did not (sequence gaps), in frames.
        self.lost = 0
        #: The daemon's count of messages it dropped for this client (`dropped.total`).
        self.dropped = 0
        #: Times the client reconnected after the daemon went away.
        self.reconnects = 0
        #: The reference attitude set by `zero()`, None when absolute.
        self.reference: Optional[Attitude] = None
        self._local_reference = False
        self.hello: Optional[Hello] = None
        self._device: Optional[Device] = None
        self._orientation: Optional[str] = None
        self._latest: Optional[Frame] = None
        self._step = 1
        self._frames_watched = False
        self._last_seq: Optional[int] = None

        self._sock: Optional[socket.socket] = None
        self._buffer = b""
        self._broken: Optional[str] = None
        self._disconnected_at = 0.0
        self._closed = False
        self._stopping = threading.Event()
        self._finished = threading.Event()
        self._failure: Optional[Exception] = None

        self._attach(*self._open(hello_timeout))
        self._reader = threading.Thread(target=self._run, name="acceld-reader", daemon=True)
        self._reader.start()

    # Context manager and lifetime

    def __enter__(self) -> Motion:
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the connection and ends the iterators. Idempotent."""
        if self._closed:
            return
        self._closed = True
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

    def run(self, seconds: Optional[float] = None):
        """Blocks while the handlers work: for `seconds`, or until `close()`.

        Raises ConnectionLost when the daemon goes away and `reconnect` is False.
        """
        self._finished.wait(seconds)
        if self._failure is not None:
            raise self._failure

    @property
    def is_connected(self) -> bool:
        return self._sock is not None and self._broken is None and not self._closed

    # Core Motion's properties

    @property
    def device(self) -> Optional[Device]:
        """The device as last reported (hello, device and status messages)."""
        return self._device

    @property
    def is_accelerometer_available(self) -> bool:
        return self.is_connected and self._device is not None and self._device.state == "ok"

    is_device_motion_available = is_accelerometer_available

    @property
    def is_accelerometer_active(self) -> bool:
        return self._accelerometer_active

    @property
    def is_device_motion_active(self) -> bool:
        return self._device_motion_active

    @property
    def is_gyro_available(self) -> bool:
        """The device has a gyroscope (its `gyroscope` range), like isGyroAvailable."""
        return self.is_accelerometer_available and self._device.gyroscope is not None

    @property
    def is_gyro_active(self) -> bool:
        return self._gyro_active

    @property
    def update_interval(self) -> Optional[float]:
        """Seconds between frames, like accelerometerUpdateInterval; None: every sample.

        Sent as the protocol's `rate` (1 / interval Hz). The daemon serves the
        chip's rate divided by a whole number: `frame_rate` is what it gave.
        One connection has one rate, shared by every way of receiving frames.
        """
        return self._interval

    @update_interval.setter
    def update_interval(self, seconds: Optional[float]):
        if seconds is not None and seconds <= 0:
            raise ValueError("update_interval is in seconds and must be positive (or None)")
        self._interval = seconds
        self._rewatch()

    accelerometer_update_interval = update_interval
    device_motion_update_interval = update_interval
    gyro_update_interval = update_interval

    @property
    def frame_rate(self) -> Optional[float]:
        """Frames per second now served (the chip's rate / the decimation); None when frames are not watched."""
        rate = self._device.rate if self._device else None
        return rate / self._step if rate and self._frames_watched else None

    @property
    def accelerometer_data(self) -> Optional[Frame]:
        """The latest frame (`acc`, `t`, `seq`): pull, like accelerometerData.

        While updates run it is the latest frame they received; otherwise it
        asks the daemon (`poll`). None before the first sample.
        """
        if self._watching and "frames" in self._watching["streams"]:
            return self._latest
        return self.poll()

    @property
    def device_motion(self) -> Optional[Frame]:
        """The latest frame's gravity, user acceleration and attitude, like deviceMotion."""
        return self.accelerometer_data

    @property
    def gyro_data(self) -> Optional[Frame]:
        """The latest frame, for its `rotation_rate` (rad/s), `t` and `seq`, like gyroData.

        The rate has the offset acceld's fusion learnt removed (Core Motion's
        CMGyroData is raw): frames carry only that rate. None without a gyroscope.
        """
        frame = self.accelerometer_data
        return frame if frame is not None and frame.rotation_rate is not None else None

    @property
    def orientation(self) -> Optional[str]:
        """The current orientation while orientation is watched, else None."""
        return self._orientation

    # Push: handlers, run on the reader thread in order. A slow handler
    # slows the reading: the daemon then drops frames and the gap is counted.

    def start_accelerometer_updates(self, handler: Optional[Handler] = None, interval: Optional[float] = None):
        """Frames at `interval` seconds to `handler(frame)`; without a handler, only for `accelerometer_data`."""
        self._check_open()
        if interval is not None:
            self._interval = interval
        self._accelerometer, self._accelerometer_active = handler, True
        self._rewatch()

    def stop_accelerometer_updates(self):
        self._accelerometer, self._accelerometer_active = None, False
        self._rewatch()

    def start_device_motion_updates(self, handler: Optional[Handler] = None, interval: Optional[float] = None):
        """Frames (gravity, user, pitch, roll) at `interval` seconds to `handler(frame)`."""
        self._check_open()
        if interval is not None:
            self._interval = interval
        self._device_motion, self._device_motion_active = handler, True
        self._rewatch()

    def stop_device_motion_updates(self):
        self._device_motion, self._device_motion_active = None, False
        self._rewatch()

    def start_gyro_updates(self, handler: Optional[Handler] = None, interval: Optional[float] = None):
        """Frames with `rotation_rate` (rad/s) at `interval` seconds to `handler(frame)`.

        Raises NoGyroscope on a part without a gyroscope (`is_gyro_available`).
        """
        self._check_open()
        if self._device is not None and self._device.gyroscope is None:
            raise NoGyroscope(self._device.chip)
        if interval is not None:
            self._interval = interval
        self._gyro, self._gyro_active = handler, True
        self._rewatch()

    def stop_gyro_updates(self):
        self._gyro, self._gyro_active = None, False
        self._rewatch()

    def on(self, what: Union[str, type], handler: Handler):
        """Calls `handler(message)` for each event or notice of a kind.

        `what`: an event stream (orientation, shake, freefall, movement, tap,
        or events for all five), device, status, a notice (gap, dropped,
        goodbye, disconnected, reconnected) or unknown; or its message class.
        """
        self._check_open()
        for name in self._handler_names(what):
            with self._lock:
                self._handlers.setdefault(name, []).append(handler)
        self._rewatch()

    def off(self, what: Union[str, type], handler: Optional[Handler] = None):
        """Removes `handler` (or all handlers) for a kind."""
        for name in self._handler_names(what):
            with self._lock:
                kept = [h for h in self._handlers.get(name, []) if handler is not None and h != handler]
                if kept:
                    self._handlers[name] = kept
                else:
                    self._handlers.pop(name, None)
        self._rewatch()

    @staticmethod
    def _handler_names(what) -> List[str]:
        name = getattr(what, "CLASS", what)
        if name == "events":
            return list(EVENT_STREAMS)
        if name not in STREAMS + NOTICES + ("unknown",):
            raise ValueError(f"no such event or notice {name!r}")
        return [name]

    # Iterator

    def updates(self, streams: Iterable[str] = ("frames", "events"), *, rate: Optional[float] = None,
                buffer: int = 1024, duration: Optional[float] = None,
                timeout: Optional[float] = None) -> Updates:
        """An iterator over frames and events: `for msg in motion.updates(): ...`

        streams: frames, the event streams, events (all five), device, status.
        rate: frames per second (sets `update_interval` to 1 / rate).
        """
        self._check_open()
        if rate is not None:
            if rate <= 0:
                raise ValueError("rate is in Hz and must be positive")
            self._interval = 1.0 / rate
        it = Updates(self, _expand(streams), buffer, duration, timeout)
        with self._lock:
            self._iterators.append(it)
        try:
            self._rewatch()
        except BaseException:
            self._remove_updates(it)
            raise
        return it

    def _remove_updates(self, it: Updates):
        with self._lock:
            if it in self._iterators:
                self._iterators.remove(it)
        if not self._closed:
            try:
                self._rewatch()
            except (ConnectionLost, TimeoutError):
                pass

    # Requests

    def request(self, request: Dict[str, Any], timeout: Optional[float] = None) -> Message:
        """Sends one request and returns its reply; an `error` reply raises RequestError."""
        pending = self._send(request)
        if threading.current_thread() is self._reader:
            # From a handler: the reader itself must read until the reply.
            while not pending.done.is_set():
                self._handle(self._read_message())
        elif not pending.done.wait(self.timeout if timeout is None else timeout):
            with self._lock:        # its reply, if it ever comes, is no longer awaited
                if pending in self._pending:
                    self._pending.remove(pending)
            raise TimeoutError(f"acceld did not answer {request.get('class')} within "
                               f"{self.timeout if timeout is None else timeout} s")
        if pending.error is not None:
            raise pending.error
        assert pending.reply is not None
        return pending.reply

    def poll(self) -> Optional[Frame]:
        """Asks for the latest frame now; None before the first sample."""
        reply = self.request({"class": "poll"})
        frame = reply.frame if isinstance(reply, Poll) else None
        return self._referenced(frame) if frame is not None else None

    def status(self) -> Status:
        """The daemon's uptime, clients and counters."""
        return self.request({"class": "status"})

    def fetch_device(self) -> Device:
        """Asks for the device now (`device` holds the last one reported)."""
        return self.request({"class": "device"})

    def zero(self) -> Attitude:
        """Reference attitude here: from now on pitch and roll are relative to
        the attitude at this moment (Core Motion's reference attitude)."""
        reply = self.request({"class": "zero"})
        with self._lock:
            self.reference = Attitude(reply.pitch or 0.0, reply.roll or 0.0)
            self._local_reference = False
        return self.reference

    def reset_reference(self):
        """Back to absolute pitch and roll."""
        self.request({"class": "zero", "reset": True})
        with self._lock:
            self.reference = None
            self._local_reference = False

    def configure(self, *, range: Optional[int] = None, rate: Optional[int] = None,
                  mode: Optional[str] = None, tunables: Optional[Dict[str, str]] = None) -> Message:
        """Privileged: changes range (g), rate (Hz), mode or tunables; returns the new Device (or Configured)."""
        req: Dict[str, Any] = {"class": "configure"}
        for key, value in (("range", range), ("rate", rate), ("mode", mode), ("tunables", tunables)):
            if value is not None:
                req[key] = value
        return self.request(req)

    def calibrate(self, *, seconds: Optional[float] = None, offset=None, scale=None,
                  reset: bool = False) -> Calibration:
        """Privileged: measures the offset flat and still (+Z up), or sets it, or resets it."""
        req: Dict[str, Any] = {"class": "calibrate"}
        if reset:
            req["reset"] = True
        if seconds is not None:
            req["seconds"] = seconds
        if offset is not None:
            req["offset"] = list(offset)
        if scale is not None:
            req["scale"] = list(scale)
        return self.request(req, timeout=self.timeout + (seconds or 2.0))

    def selftest(self) -> SelfTest:
        """Privileged: the part's self-test."""
        return self.request({"class": "selftest"}, timeout=self.timeout + 5.0)

    # The watch: one per connection, the union of what every style needs

    def _wanted(self) -> Optional[Dict[str, Any]]:
        with self._lock:
            streams: Set[str] = set()
            if self._accelerometer_active or self._device_motion_active or self._gyro_active:
                streams.add("frames")
            streams.update(name for name in self._handlers if name in STREAMS)
            for it in self._iterators:
                streams |= it.streams
        if not streams:
            return None
        streams.add("device")       # rate changes and outages, for the gap accounting
        req: Dict[str, Any] = {"class": "watch", "streams": sorted(streams)}
        if "frames" in streams and self._interval:
            req["rate"] = round(1.0 / self._interval, 6)
        if self._fields is not None:
            req["fields"] = self._fields
        return req

    def _rewatch(self):
        with self._watch_lock:
            wanted = self._wanted()
            if wanted == self._watching or self._closed:
                return
            previous, self._watching = self._watching, wanted    # what a reconnection sends
            if self.is_connected:
                try:
                    self.request(wanted or {"class": "unwatch"})
                except RequestError:
                    self._watching = previous           # the daemon kept the old watch
                    raise

    def _check_open(self):
        if self._closed:
            raise ConnectionLost(f"this client of acceld at {self.path} is closed")

    # The connection

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
        with self._lock:
            self._sock, self._buffer, self._broken = sock, rest, None
            self.hello = hello
            self._device = hello.device
            self._last_seq = None

    def _send(self, request: Dict[str, Any]) -> _Pending:
        name = request.get("class")
        if not isinstance(name, str):
            raise ValueError("a request needs a 'class'")
        pending = _Pending(name)
        line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        with self._write_lock:
            sock = self._sock
            if sock is None or self._broken is not None or self._closed:
                raise ConnectionLost(f"not connected to acceld at {self.path}"
                                     + (" (reconnecting)" if self.reconnect and not self._closed else ""))
            with self._lock:
                self._pending.append(pending)
            try:
                sock.sendall(line)
            except OSError as e:
                with self._lock:
                    if pending in self._pending:
                        self._pending.remove(pending)
                raise ConnectionLost(f"acceld at {self.path} went away: {e}") from None
        return pending

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
            while not self._closed:
                try:
                    if self._broken is None:
                        self._handle(self._read_message())
                        continue
                except ConnectionLost:
                    pass
                if self._closed:
                    break
                error = self._connection_lost(self._broken or "connection lost")
                if not self.reconnect:
                    self._failure = error
                    break
                if not self._reconnect():
                    break
        except Exception as e:           # a bug here must not leave callers waiting forever
            log.exception("acceld: the reader stopped")
            self._failure = ConnectionLost(f"the acceld client's reader stopped: {e!r}")
        finally:
            self._end(self._failure)
            self._finished.set()

    def _connection_lost(self, reason: str) -> ConnectionLost:
        with self._write_lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        with self._lock:
            pending = list(self._pending)
            self._pending.clear()
            self._last_seq = None
        error = ConnectionLost(f"acceld at {self.path} went away: {reason}")
        for p in pending:
            p.finish(error=error)
        self._disconnected_at = time.monotonic()
        log.warning("acceld: %s%s", reason, "; reconnecting" if self.reconnect else "")
        self._notify(Disconnected(reason=reason))
        return error

    def _reconnect(self) -> bool:
        delay, attempts = 0.1, 0
        while not self._closed:
            attempts += 1
            try:
                opened = self._open(min(self.timeout, 2.0))
            except (AcceldError, OSError) as e:
                log.debug("acceld: reconnection attempt %d: %s", attempts, e)
                self._stopping.wait(delay)
                delay = min(delay * 2, self.max_backoff)
                continue
            self._attach(*opened)
            with self._lock:
                self.reconnects += 1
                # The daemon's reference was per connection: keep the same one here.
                self._local_reference = self.reference is not None
            watching = self._watching
            if watching:
                try:
                    self._send(watching)        # its reply is read by the loop
                except ConnectionLost:
                    continue
            away = time.monotonic() - self._disconnected_at
            log.warning("acceld: reconnected after %.1f s (%d attempts)", away, attempts)
            self._notify(Reconnected(away=away, attempts=attempts, hello=opened[1]))
            return True
        return False

    def _end(self, error: Optional[Exception]):
        with self._lock:
            iterators = list(self._iterators)
            pending = list(self._pending)
            self._pending.clear()
        for p in pending:
            p.finish(error=ConnectionLost("the acceld client was closed"))
        for it in iterators:
            it.end(error)

    # What the reader does with each message

    def _handle(self, msg: Message):
        with self._lock:
            pending = None
            if self._pending:
                head = self._pending[0]
                if (isinstance(msg, Error) and msg.request in (None, head.request)) or head.accepts(msg):
                    pending = self._pending.popleft()
            self._follow(msg)
        if pending is not None:
            if isinstance(msg, Error):
                pending.finish(error=RequestError.of(msg.code, msg.message, msg.request))
            else:
                pending.finish(reply=msg)
        elif isinstance(msg, Frame):
            self._deliver_frame(msg)
        elif isinstance(msg, Error):
            log.warning("acceld: error not matching a request: %s: %s", msg.code, msg.message)
        else:
            self._notify(msg)

    def _follow(self, msg: Message):
        """Keeps the state the gap accounting and the properties need."""
        if isinstance(msg, Device):
            previous = self._device
            self._device = msg
            if msg.event == "configured" or (previous and previous.rate != msg.rate):
                # The daemon works the decimation out again from the new rate.
                wanted = 1.0 / self._interval if self._interval else None
                self._step = max(1, round(msg.rate / wanted)) if wanted and msg.rate else 1
                self._last_seq = None
        elif isinstance(msg, Status) and msg.device is not None:
            self._device = msg.device
        elif isinstance(msg, Watch):
            chip = self._device.rate if self._device else None
            self._step = max(1, round(chip / msg.rate)) if chip and msg.rate else 1
            self._frames_watched = "frames" in msg.streams
            self._last_seq = None
            self._orientation = msg.orientation if "orientation" in msg.streams else None
        elif isinstance(msg, Orientation):
            self._orientation = msg.orientation
        elif isinstance(msg, Dropped):
            self.dropped = msg.total if msg.total is not None else self.dropped + (msg.count or 0)

    def _referenced(self, frame: Frame) -> Frame:
        if self._local_reference and self.reference is not None and frame.attitude is not None:
            a = frame.attitude.relative_to(self.reference)
            return replace(frame, pitch=a.pitch, roll=a.roll)
        return frame

    def _deliver_frame(self, frame: Frame):
        frame = self._referenced(frame)
        gap = None
        with self._lock:
            last = self._last_seq
            if frame.seq is not None:
                self._last_seq = frame.seq
                if last is not None and frame.seq > last:
                    missing = round((frame.seq - last) / self._step) - 1
                    if missing > 0:
                        self.lost += missing
                        gap = Gap(lost=missing, after=last, seq=frame.seq, step=self._step)
            self._latest = frame
            gyro = self._gyro if frame.rotation_rate is not None else None
            handlers = [h for h in (self._accelerometer, self._device_motion, gyro) if h is not None]
        if gap is not None:
            self._notify(gap)
        for handler in handlers:
            self._call(handler, frame)
        for it in self._iterators_for(frame):
            it.put(frame)

    def _notify(self, msg: Message):
        with self._lock:
            handlers = list(self._handlers.get(msg.CLASS, ()))
        for handler in handlers:
            self._call(handler, msg)
        if not isinstance(msg, Unknown):
            for it in self._iterators_for(msg):
                it.put(msg)

    def _iterators_for(self, msg: Message) -> List[Updates]:
        with self._lock:
            return [it for it in self._iterators if it.wants(msg)]

    def _call(self, handler: Handler, msg: Message):
        try:
            handler(msg)
        except Exception:
            log.exception("acceld: the handler %r raised on %s", handler, msg.CLASS)
