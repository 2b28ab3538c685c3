# SPDX-License-Identifier: Apache-2.0
"""The client, shaped like Core Motion's CMMotionManager: the facade over
one `Connection` (acceld/connection.py), which reads the socket on its own
thread, answers requests, counts lost samples and reconnects.

On the reader thread the facade keeps the latest frame for the pull style,
calls the handlers of the push style, and fills the queues of `updates()`
iterators; the three ways of receiving frames share one watch.
"""
from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Union

from .connection import DEFAULT_SOCKET, Connection, _Pending, default_socket, log  # noqa: F401 (DEFAULT_SOCKET: re-exported)
from .errors import ConnectionLost, NoGyroscope, RequestError
from .messages import (Attitude, Device, Frame, Hello, Learned, Message, Orientation, Poll, SelfTest, Status,
                       Unknown, Watch)
from .updates import EVENT_STREAMS, NOTICES, STREAMS, Updates, _expand  # noqa: F401 (EVENT_STREAMS: re-exported)

Handler = Callable[[Any], None]


def connect(path: Optional[str] = None, **options) -> Motion:
    """Connects to acceld (see `Motion` for the options). Use it in a `with`."""
    return Motion(path, **options)


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
    vibration: the windows of `vibration` messages, as the watch request
        writes them: {"window": 1, "overlap": 0.5, "spectrum": 64, "envelope": 0}
        (seconds, fraction, bins; docs/VIBRATION.md).

    Raises DaemonNotRunning, PermissionDenied, ProtocolError, or
    RequestError (e.g. too-many-clients) when it cannot connect.
    """

    def __init__(self, path: Optional[str] = None, *, reconnect: bool = True, timeout: float = 5.0,
                 hello_timeout: float = 15.0, max_backoff: float = 5.0, update_interval: Optional[float] = None,
                 fields: Optional[Iterable[str]] = None, vibration: Optional[Dict[str, Any]] = None):
        self._fields = list(fields) if fields is not None else None
        self._vibration = dict(vibration) if vibration is not None else None
        self._interval = update_interval

        self._lock = threading.RLock()          # state shared with the reader
        self._watch_lock = threading.RLock()
        self._handlers: Dict[str, List[Handler]] = {}
        self._accelerometer: Optional[Handler] = None
        self._device_motion: Optional[Handler] = None
        self._accelerometer_active = False
        self._device_motion_active = False
        self._gyro: Optional[Handler] = None
        self._gyro_active = False
        self._iterators: List[Updates] = []

        #: The reference attitude set by `zero()`, None when absolute.
        self.reference: Optional[Attitude] = None
        self._local_reference = False
        self._orientation: Optional[str] = None
        self._latest: Optional[Frame] = None
        self._frames_watched = False

        self._link = Connection(path or default_socket(), self, self._lock, reconnect=reconnect, timeout=timeout,
                                hello_timeout=hello_timeout, max_backoff=max_backoff)
        self._link.start()

    # Context manager and lifetime

    def __enter__(self) -> Motion:
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the connection and ends the iterators. Idempotent."""
        self._link.close()

    def run(self, seconds: Optional[float] = None):
        """Blocks while the handlers work: for `seconds`, or until `close()`.

        Raises ConnectionLost when the daemon goes away and `reconnect` is False.
        """
        self._link.finished.wait(seconds)
        if self._link.failure is not None:
            raise self._link.failure

    # The connection's settings and counts

    @property
    def path(self) -> str:
        return self._link.path

    @property
    def reconnect(self) -> bool:
        return self._link.reconnect

    @property
    def timeout(self) -> float:
        return self._link.timeout

    @property
    def max_backoff(self) -> float:
        return self._link.max_backoff

    @property
    def is_connected(self) -> bool:
        return self._link.is_connected

    @property
    def lost(self) -> int:
        """Frames this client should have had and did not (sequence gaps), in frames."""
        return self._link.lost

    @property
    def dropped(self) -> int:
        """The daemon's count of messages it dropped for this client (`dropped.total`)."""
        return self._link.dropped

    @property
    def reconnects(self) -> int:
        """Times the client reconnected after the daemon went away."""
        return self._link.reconnects

    @property
    def hello(self) -> Optional[Hello]:
        return self._link.hello

    @property
    def _closed(self) -> bool:
        return self._link.closed

    # Core Motion's properties

    @property
    def device(self) -> Optional[Device]:
        """The device as last reported (hello, device and status messages)."""
        return self._link.device

    @property
    def is_accelerometer_available(self) -> bool:
        device = self._link.device
        return self.is_connected and device is not None and device.state == "ok"

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
        return self.is_accelerometer_available and self._link.device.gyroscope is not None

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
        device = self._link.device
        rate = device.rate if device else None
        return rate / self._link.step if rate and self._frames_watched else None

    @property
    def accelerometer_data(self) -> Optional[Frame]:
        """The latest frame (`acc`, `t`, `seq`): pull, like accelerometerData.

        While updates run it is the latest frame they received; otherwise it
        asks the daemon (`poll`). None before the first sample.
        """
        watching = self._link.watching
        if watching and "frames" in watching["streams"]:
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
        self._start("accelerometer", handler, interval)

    def stop_accelerometer_updates(self):
        self._stop("accelerometer")

    def start_device_motion_updates(self, handler: Optional[Handler] = None, interval: Optional[float] = None):
        """Frames (gravity, user, pitch, roll) at `interval` seconds to `handler(frame)`."""
        self._start("device_motion", handler, interval)

    def stop_device_motion_updates(self):
        self._stop("device_motion")

    def start_gyro_updates(self, handler: Optional[Handler] = None, interval: Optional[float] = None):
        """Frames with `rotation_rate` (rad/s) at `interval` seconds to `handler(frame)`.

        Raises NoGyroscope on a part without a gyroscope (`is_gyro_available`).
        """
        self._start("gyro", handler, interval)

    def stop_gyro_updates(self):
        self._stop("gyro")

    # One stream's start and stop (accelerometer, device_motion, gyro): its
    # handler is `_<stream>`, and whether it runs `_<stream>_active`.

    def _start(self, stream: str, handler: Optional[Handler], interval: Optional[float]):
        self._check_open()
        device = self._link.device
        if stream == "gyro" and device is not None and device.gyroscope is None:
            raise NoGyroscope(device.chip)
        if interval is not None:
            self._interval = interval
        setattr(self, f"_{stream}", handler)
        setattr(self, f"_{stream}_active", True)
        self._rewatch()

    def _stop(self, stream: str):
        setattr(self, f"_{stream}", None)
        setattr(self, f"_{stream}_active", False)
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
        return self._link.reply(self._send(request), timeout)

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

    def learn(self, seconds: float = 60.0) -> Learned:
        """Privileged: learns the machine's off level over `seconds` while it is off, and the idle threshold from it."""
        return self.request({"class": "learn", "seconds": seconds}, timeout=self.timeout + seconds)

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
        if "vibration" in streams and self._vibration is not None:
            req["vibration"] = self._vibration
        return req

    def _rewatch(self):
        with self._watch_lock:
            wanted = self._wanted()
            if wanted == self._link.watching or self._closed:
                return
            previous, self._link.watching = self._link.watching, wanted    # what a reconnection sends
            if self.is_connected:
                try:
                    self.request(wanted or {"class": "unwatch"})
                except RequestError:
                    self._link.watching = previous      # the daemon kept the old watch
                    raise

    def _check_open(self):
        if self._closed:
            raise ConnectionLost(f"this client of acceld at {self.path} is closed")

    # The connection (acceld/connection.py)

    def _send(self, request: Dict[str, Any]) -> _Pending:
        """Every request goes out here; its reply is awaited with `_link.reply`."""
        return self._link.send(request)

    # What the reader does with each message

    # What the connection tells the facade, on the reader thread

    def _follow(self, msg: Message):
        """Keeps the state the properties need (under the lock)."""
        if isinstance(msg, Watch):
            self._frames_watched = "frames" in msg.streams
            self._orientation = msg.orientation if "orientation" in msg.streams else None
        elif isinstance(msg, Orientation):
            self._orientation = msg.orientation

    def _reconnected(self):
        """Connected again (under the lock): the daemon's reference was per
        connection: keep the same one here."""
        self._local_reference = self.reference is not None

    def _ended(self, error: Optional[Exception]):
        with self._lock:
            iterators = list(self._iterators)
        for it in iterators:
            it.end(error)

    def _referenced(self, frame: Frame) -> Frame:
        if self._local_reference and self.reference is not None and frame.attitude is not None:
            a = frame.attitude.relative_to(self.reference)
            return replace(frame, pitch=a.pitch, roll=a.roll)
        return frame

    def _deliver_frame(self, frame: Frame):
        frame = self._referenced(frame)
        with self._lock:
            self._latest = frame
            gyro = self._gyro if frame.rotation_rate is not None else None
            handlers = [h for h in (self._accelerometer, self._device_motion, gyro) if h is not None]
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
