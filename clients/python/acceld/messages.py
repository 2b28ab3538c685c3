# SPDX-License-Identifier: Apache-2.0
"""The messages of the acceld protocol (docs/PROTOCOL.md) as dataclasses.

`parse()` turns one line (or an already decoded object) into the dataclass
of its `class`. It never raises for a well-formed JSON object: fields it
does not know are ignored, fields that are missing or of the wrong type
become None, and a class it does not know becomes `Unknown`, so a client
keeps working against a newer daemon.

The last few classes (`Gap`, `Disconnected`, `Reconnected`) never come from
the daemon: the client makes them to report what it noticed itself.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from typing import Any, Dict, NamedTuple, Optional, Tuple


class Vector(NamedTuple):
    """Three components in g, in the board's axes (+1 g on the axis pointing up)."""
    x: float
    y: float
    z: float


@dataclass(frozen=True)
class Attitude:
    """Tilt from gravity, in degrees (a frame from a part with a gyroscope carries yaw beside it).

    Pitch is positive when the +Y edge rises, roll when the +X edge goes down.
    """
    pitch: float
    roll: float

    def relative_to(self, reference: Attitude) -> Attitude:
        """This attitude seen from `reference`: level at the reference.

        Core Motion's `attitude.multiply(byInverseOf:)`, computed as the
        daemon computes it for `zero` (AccelMotion/Attitude.swift).
        """
        r = _rotation(self)
        ref = _rotation(reference)
        c = (ref[0][2], ref[1][2], ref[2][2])
        up = [c[0] * r[0][i] + c[1] * r[1][i] + c[2] * r[2][i] for i in range(3)]
        pitch = math.atan2(up[1], math.hypot(up[0], up[2]))
        roll = math.atan2(-up[0], up[2])
        return Attitude(round(math.degrees(pitch), 2), round(math.degrees(roll), 2))

    multiply_by_inverse_of = relative_to


def _rotation(a: Attitude):
    p, r = math.radians(a.pitch), math.radians(a.roll)
    cp, sp, cr, sr = math.cos(p), math.sin(p), math.cos(r), math.sin(r)
    return ((cr, 0.0, sr), (sp * sr, cp, -sp * cr), (-cp * sr, sp, cp * cr))


# Field converters: each returns None for a value it cannot use.

def _number(v: Any) -> Optional[float]:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _int(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _str(v: Any) -> Optional[str]:
    return v if isinstance(v, str) else None


def _bool(v: Any) -> Optional[bool]:
    return v if isinstance(v, bool) else None


def _vector(v: Any) -> Optional[Vector]:
    if isinstance(v, list) and len(v) == 3 and all(_number(c) is not None for c in v):
        return Vector(*(float(c) for c in v))
    return None


def _quaternion(v: Any) -> Optional[Tuple[float, float, float, float]]:
    if isinstance(v, list) and len(v) == 4 and all(_number(c) is not None for c in v):
        return tuple(float(c) for c in v)  # type: ignore[return-value]
    return None


def _strings(v: Any) -> Optional[Tuple[str, ...]]:
    return tuple(s for s in v if isinstance(s, str)) if isinstance(v, list) else None


def _field(convert, wire: Optional[str] = None, default: Any = None):
    """A message field: how to convert it, and its name on the wire when it differs."""
    return field(default=default, metadata={"convert": convert, "wire": wire})


def _build(cls, obj: Dict[str, Any]):
    values = {}
    for f in fields(cls):
        convert = f.metadata.get("convert")
        if convert is None:
            continue
        raw = obj.get(f.metadata.get("wire") or f.name)
        value = convert(raw) if raw is not None else None
        values[f.name] = f.default if value is None else value
    return cls(**values)


def _nested(cls):
    return lambda v: _build(cls, v) if isinstance(v, dict) else None


#: The protocol this library speaks (docs/PROTOCOL.md, "Versions").
PROTOCOL_VERSION = 3


class Message:
    """Base of every message; `CLASS` is the protocol's `class`."""
    CLASS = ""


# The device and the daemon

@dataclass(frozen=True)
class Trace:
    """With `acceld --simulate TRACE`: the trace the chip model plays. Its
    time 0 is `start` on the clock of every `t`; it lasts `seconds`, then
    holds its last row or, with `loop`, plays again."""
    name: Optional[str] = _field(_str)
    start: Optional[float] = _field(_number)
    seconds: Optional[float] = _field(_number)
    loop: Optional[bool] = _field(_bool)


@dataclass(frozen=True)
class Device(Message):
    """The part and how it is configured. Pushed ones carry `event` (`lost`, `back`, `configured`, ...)."""
    CLASS = "device"
    chip: Optional[str] = _field(_str)
    location: Optional[str] = _field(_str)
    range: Optional[int] = _field(_int)
    rate: Optional[int] = _field(_int)
    mode: Optional[str] = _field(_str)
    resolution: Optional[int] = _field(_int)
    fifo: Optional[int] = _field(_int)
    #: The gyroscope's full scale, ±dps, on parts that have one (Core Motion's isGyroAvailable).
    gyroscope: Optional[int] = _field(_int)
    state: Optional[str] = _field(_str)
    message: Optional[str] = _field(_str)
    event: Optional[str] = _field(_str)
    trace: Optional[Trace] = _field(_nested(Trace))


@dataclass(frozen=True)
class Hello(Message):
    CLASS = "hello"
    protocol: Optional[int] = _field(_int)
    version: Optional[str] = _field(_str)
    device: Optional[Device] = _field(_nested(Device))


@dataclass(frozen=True)
class Counters:
    """The sampler's counters in `status` (docs/PROTOCOL.md, Others)."""
    published: int = _field(_int, default=0)
    empty_reads: int = _field(_int, "emptyReads", 0)
    overruns: int = _field(_int, default=0)
    lost: int = _field(_int, default=0)
    bus_errors: int = _field(_int, "busErrors", 0)
    recoveries: int = _field(_int, default=0)
    reconfigurations: int = _field(_int, default=0)
    wakes: int = _field(_int, default=0)
    impossible_ready: int = _field(_int, "impossibleReady", 0)
    reacquisitions: int = _field(_int, "reacquisitions", 0)
    guessed_numbers: int = _field(_int, "guessedNumbers", 0)
    sleeps: int = _field(_int, default=0)
    wake_ups: int = _field(_int, "wakeUps", 0)


@dataclass(frozen=True)
class Status(Message):
    CLASS = "status"
    uptime: Optional[float] = _field(_number)
    clients: Optional[int] = _field(_int)
    counters: Counters = _field(_nested(Counters), default=Counters())
    device: Optional[Device] = _field(_nested(Device))


@dataclass(frozen=True)
class Watch(Message):
    """The reply to watch and unwatch: what this client now watches."""
    CLASS = "watch"
    streams: Tuple[str, ...] = _field(_strings, default=())
    rate: Optional[float] = _field(_number)
    fields: Tuple[str, ...] = _field(_strings, default=())
    latency: Optional[float] = _field(_number)
    orientation: Optional[str] = _field(_str)
    vibration: Optional[Dict[str, Any]] = _field(lambda v: v if isinstance(v, dict) else None)


# Frames

@dataclass(frozen=True)
class Frame(Message):
    """One sample: `seq` counts the chip's output periods, `t` is seconds on
    the daemon's CLOCK_MONOTONIC. The other fields are those the client
    watches (all by default); `pitch` and `roll` are degrees, relative to the
    reference attitude once `zero()` was called. From a part with a
    gyroscope also `yaw` (degrees), `quaternion` (w, x, y, z: board axes into
    a frame whose z points up), `rotation_rate` (rad/s, its offset removed)
    and `gyro_recovering` (the gyroscope saturated)."""
    CLASS = "frame"
    seq: Optional[int] = _field(_int)
    t: Optional[float] = _field(_number)
    acc: Optional[Vector] = _field(_vector)
    gravity: Optional[Vector] = _field(_vector)
    user: Optional[Vector] = _field(_vector)
    pitch: Optional[float] = _field(_number)
    roll: Optional[float] = _field(_number)
    yaw: Optional[float] = _field(_number)
    quaternion: Optional[Tuple[float, float, float, float]] = _field(_quaternion)
    rotation_rate: Optional[Vector] = _field(_vector, wire="rotationRate")
    gyro_recovering: Optional[bool] = _field(_bool, wire="gyroRecovering")

    @property
    def attitude(self) -> Optional[Attitude]:
        if self.pitch is None or self.roll is None:
            return None
        return Attitude(self.pitch, self.roll)


@dataclass(frozen=True)
class Poll(Message):
    CLASS = "poll"
    frame: Optional[Frame] = _field(_nested(Frame))


# Events: `t` is when the event was decided, `start` when it began.

@dataclass(frozen=True)
class Orientation(Message):
    """UIDeviceOrientation's states: portrait, portraitUpsideDown,
    landscapeLeft, landscapeRight, faceUp, faceDown, unknown."""
    CLASS = "orientation"
    t: Optional[float] = _field(_number)
    orientation: Optional[str] = _field(_str)
    previous: Optional[str] = _field(_str)
    #: "chip" on the first event after the chip's wake-up unit woke acceld ([power] wake-on-motion).
    wake: Optional[str] = _field(_str)


@dataclass(frozen=True)
class Shake(Message):
    """`phase` start as soon as it is recognised, then end with duration and peak (g)."""
    CLASS = "shake"
    t: Optional[float] = _field(_number)
    phase: Optional[str] = _field(_str)
    start: Optional[float] = _field(_number)
    duration: Optional[float] = _field(_number)
    peak: Optional[float] = _field(_number)
    #: "chip" on the first event after the chip's wake-up unit woke acceld ([power] wake-on-motion).
    wake: Optional[str] = _field(_str)


@dataclass(frozen=True)
class FreeFall(Message):
    """`phase` start (early warning), then confirmed or withdrawn; a confirmed fall ends with end and height (m)."""
    CLASS = "freefall"
    t: Optional[float] = _field(_number)
    phase: Optional[str] = _field(_str)
    start: Optional[float] = _field(_number)
    duration: Optional[float] = _field(_number)
    height: Optional[float] = _field(_number)
    #: "chip" on the first event after the chip's wake-up unit woke acceld ([power] wake-on-motion).
    wake: Optional[str] = _field(_str)


@dataclass(frozen=True)
class Movement(Message):
    CLASS = "movement"
    t: Optional[float] = _field(_number)
    direction: Optional[str] = _field(_str)
    start: Optional[float] = _field(_number)
    duration: Optional[float] = _field(_number)
    peak: Optional[float] = _field(_number)
    #: "chip" on the first event after the chip's wake-up unit woke acceld ([power] wake-on-motion).
    wake: Optional[str] = _field(_str)


@dataclass(frozen=True)
class Tap(Message):
    CLASS = "tap"
    t: Optional[float] = _field(_number)
    count: Optional[int] = _field(_int)
    direction: Optional[str] = _field(_str)
    start: Optional[float] = _field(_number)
    peak: Optional[float] = _field(_number)
    #: "chip" on the first event after the chip's wake-up unit woke acceld ([power] wake-on-motion).
    wake: Optional[str] = _field(_str)


# Replies to the other requests

@dataclass(frozen=True)
class Zero(Message):
    """The reference attitude now in force (0, 0 after a reset)."""
    CLASS = "zero"
    pitch: Optional[float] = _field(_number)
    roll: Optional[float] = _field(_number)


@dataclass(frozen=True)
class Calibration(Message):
    CLASS = "calibration"
    offset: Optional[Vector] = _field(_vector)
    scale: Optional[Vector] = _field(_vector)
    file: Optional[str] = _field(_str)


@dataclass(frozen=True)
class Learned(Message):
    """The reply to `learn`: the machine's off level and the thresholds from now on (g)."""
    CLASS = "learned"
    off_level: Optional[float] = _field(_number, "offLevel")
    blocks: Optional[int] = _field(_int)
    idle: Optional[float] = _field(_number)
    running: Optional[float] = _field(_number)


@dataclass(frozen=True)
class SelfTestAxis:
    axis: Optional[str] = _field(_str)
    delta: Optional[float] = _field(_number)
    min: Optional[float] = _field(_number)
    max: Optional[float] = _field(_number)
    passed: Optional[bool] = _field(_bool)
    diagnosis: Optional[str] = _field(_str)


def _axes(v: Any):
    return tuple(_build(SelfTestAxis, a) for a in v if isinstance(a, dict)) if isinstance(v, list) else None


@dataclass(frozen=True)
class GyroscopeSelfTest:
    """A six-axis part's gyroscope self-test: `range` in ±dps, each axis's
    delta and limits in dps."""
    passed: Optional[bool] = _field(_bool)
    range: Optional[int] = _field(_int)
    axes: Tuple[SelfTestAxis, ...] = _field(_axes, default=())


@dataclass(frozen=True)
class SelfTest(Message):
    """The self-test's reply: the accelerometer's axes in digits, and on a
    six-axis part `gyroscope`; `passed` is both."""
    CLASS = "selftest"
    passed: Optional[bool] = _field(_bool)
    range: Optional[int] = _field(_int)
    mode: Optional[str] = _field(_str)
    axes: Tuple[SelfTestAxis, ...] = _field(_axes, default=())
    gyroscope: Optional[GyroscopeSelfTest] = _field(_nested(GyroscopeSelfTest))


@dataclass(frozen=True)
class Configured(Message):
    """The reply to a `configure` that changed only pipeline tunables."""
    CLASS = "configured"
    tunables: Optional[Dict[str, Any]] = _field(lambda v: dict(v) if isinstance(v, dict) else None)


@dataclass(frozen=True)
class Dropped(Message):
    """Messages the daemon dropped because this client read too slowly
    (`local` False), or that this client's `updates()` queue discarded
    because the loop over it was too slow (`local` True)."""
    CLASS = "dropped"
    count: Optional[int] = _field(_int)
    total: Optional[int] = _field(_int)
    local: bool = False


@dataclass(frozen=True)
class Goodbye(Message):
    """The daemon is stopping."""
    CLASS = "goodbye"
    reason: Optional[str] = _field(_str)


@dataclass(frozen=True)
class Error(Message):
    """A request failed; the connection stays up."""
    CLASS = "error"
    code: Optional[str] = _field(_str)
    message: Optional[str] = _field(_str)
    request: Optional[str] = _field(_str)


@dataclass(frozen=True)
class Unknown(Message):
    """A message whose class this library does not know (a newer daemon's)."""
    CLASS = "unknown"
    cls: str = ""
    fields: Dict[str, Any] = field(default_factory=dict)


# What the client itself noticed

@dataclass(frozen=True)
class Gap(Message):
    """Frames that never arrived: the sequence jumped from `after` to `seq`
    where `step` (the chip's rate over this client's frame rate) was due.
    `lost` counts frames at this client's rate."""
    CLASS = "gap"
    lost: int = 0
    after: int = 0
    seq: int = 0
    step: int = 1


@dataclass(frozen=True)
class Disconnected(Message):
    """The connection to the daemon broke; the client reconnects with back-off."""
    CLASS = "disconnected"
    reason: str = ""


@dataclass(frozen=True)
class Reconnected(Message):
    """The client is connected again after `away` seconds and `attempts` tries;
    it has sent its subscriptions again. Frames resume with a new sequence
    when the daemon restarted, so the gap is reported here, not as `Gap`."""
    CLASS = "reconnected"
    away: float = 0.0
    attempts: int = 0
    hello: Optional[Hello] = None


# Vibration (docs/VIBRATION.md)

def _amplitudes(v: Any):
    """Numbers as a numpy array where numpy is installed, a tuple otherwise."""
    if not isinstance(v, list) or any(_number(x) is None for x in v):
        return None
    try:
        import numpy
        return numpy.asarray(v, dtype=float)
    except ImportError:
        return tuple(float(x) for x in v)


def _lines(v: Any) -> Optional[Tuple[Tuple[float, float], ...]]:
    """[[Hz, g], ...] as (frequency, amplitude) pairs."""
    if not isinstance(v, list) or any(not isinstance(p, list) or len(p) != 2 for p in v):
        return None
    return tuple((float(p[0]), float(p[1])) for p in v)


def _pair(v: Any) -> Optional[Tuple[float, float]]:
    lines = _lines([v]) if isinstance(v, list) else None
    return lines[0] if lines else None


@dataclass(frozen=True)
class AxisVibration:
    """One axis over a window, its mean removed: g, and mm/s for velocity;
    `dominant` is its strongest line (Hz, g)."""
    rms: Optional[float] = _field(_number)
    peak: Optional[float] = _field(_number)
    peak_to_peak: Optional[float] = _field(_number, wire="peakToPeak")
    crest: Optional[float] = _field(_number)
    kurtosis: Optional[float] = _field(_number)
    velocity: Optional[float] = _field(_number)
    dominant: Optional[Tuple[float, float]] = _field(_pair)


@dataclass(frozen=True)
class Bins:
    """A spectrum reduced to the bins asked for: each the largest amplitude (g)
    of the `step` Hz it covers, from 0 Hz."""
    step: Optional[float] = _field(_number)
    amplitudes: Any = _field(_amplitudes)


def _axes(v: Any) -> Optional[Dict[str, AxisVibration]]:
    if not isinstance(v, dict):
        return None
    return {name: _build(AxisVibration, value) for name, value in v.items() if isinstance(value, dict)}


@dataclass(frozen=True)
class Vibration(Message):
    """One window's analysis: per axis (`axes`: x, y, z) and for the vector
    (`vector`: rms, peak, crest, velocity), the strongest lines, the
    envelope's (`envelope`: band, peaks), the configured orders (each with
    its family, indicator and condition), the envelopes `average` (windows,
    span), the `bearing`'s worst order, the windows' `restarts`, the
    machine's `state`; `spectrum` and `envelope_spectrum` when asked for."""
    CLASS = "vibration"
    t: Optional[float] = _field(_number)
    seq: Optional[int] = _field(_int)
    duration: Optional[float] = _field(_number)
    rate: Optional[float] = _field(_number)
    axes: Optional[Dict[str, AxisVibration]] = _field(_axes)
    vector: Optional[Dict[str, float]] = _field(lambda v: v if isinstance(v, dict) else None)
    band: Optional[Tuple[float, float]] = _field(_pair)
    zone: Optional[str] = _field(_str)
    peaks: Tuple[Tuple[float, float], ...] = _field(_lines, default=())
    envelope: Optional[Dict[str, Any]] = _field(lambda v: v if isinstance(v, dict) else None)
    shaft: Optional[float] = _field(_number)
    orders: Tuple[Dict[str, Any], ...] = _field(lambda v: tuple(v) if isinstance(v, list) else None, default=())
    average: Optional[Dict[str, Any]] = _field(lambda v: v if isinstance(v, dict) else None)
    bearing: Optional[Dict[str, Any]] = _field(lambda v: v if isinstance(v, dict) else None)
    restarts: Optional[int] = _field(_int)
    clipped: Optional[bool] = _field(_bool)
    state: Optional[str] = _field(_str)
    spectrum: Optional[Bins] = _field(_nested(Bins))
    envelope_spectrum: Optional[Bins] = _field(_nested(Bins), wire="envelopeSpectrum")


@dataclass(frozen=True)
class Machine(Message):
    """The machine's state changed (off, idle, running); `t` is when the
    window that showed it began."""
    CLASS = "machine"
    t: Optional[float] = _field(_number)
    state: Optional[str] = _field(_str)
    previous: Optional[str] = _field(_str, wire="from")


WIRE_CLASSES = {cls.CLASS: cls for cls in (
    Hello, Device, Status, Watch, Frame, Poll, Orientation, Shake, FreeFall,
    Movement, Tap, Zero, Calibration, Learned, SelfTest, Configured, Dropped, Goodbye, Error,
    Vibration, Machine)}

EVENT_CLASSES = (Orientation, Shake, FreeFall, Movement, Tap)


def parse(line) -> Message:
    """One protocol line (str or bytes) or decoded object to its message.

    Raises ValueError only when the line is not a JSON object at all."""
    obj = json.loads(line) if isinstance(line, (str, bytes, bytearray)) else line
    if not isinstance(obj, dict):
        raise ValueError(f"not a JSON object: {str(line)[:80]!r}")
    name = obj.get("class")
    cls = WIRE_CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        return Unknown(cls=str(name), fields=obj)
    return _build(cls, obj)
