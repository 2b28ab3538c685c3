# SPDX-License-Identifier: Apache-2.0
"""Wall-clock time for the monotonic ``t`` of frames and events."""
from __future__ import annotations

import time


def wall_time(t: float) -> float:
    """Seconds since the Unix epoch of a message's ``t``.

    acceld stamps frames and events with CLOCK_MONOTONIC seconds (steady, and
    comparable between clients), which ``time.monotonic()`` reads on Linux too;
    a client on the same board adds the two clocks' present offset.
    ``datetime.fromtimestamp(acceld.wall_time(msg.t))`` is then the local time.
    """
    return t + (time.time() - time.monotonic())
