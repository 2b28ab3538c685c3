# SPDX-License-Identifier: Apache-2.0
"""The streams a client can watch, and `Updates`: the iterator over them."""
from __future__ import annotations

import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Deque, Iterable, Optional, Set

from .messages import Dropped, Frame, Message

if TYPE_CHECKING:
    from .client import Motion

EVENT_STREAMS = ("orientation", "shake", "freefall", "movement", "tap")
STREAMS = ("frames",) + EVENT_STREAMS + ("device", "status", "vibration", "machine")
# Messages the client reports about the connection: every iterator gets them.
NOTICES = ("gap", "dropped", "goodbye", "disconnected", "reconnected")


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
