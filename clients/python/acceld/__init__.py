# SPDX-License-Identifier: Apache-2.0
"""A client for acceld, the accelerometer daemon: Core Motion's concepts, Pythonic.

    import acceld

    with acceld.connect() as motion:                  # /run/acceld/acceld.sock, or ACCELD_SOCKET
        for msg in motion.updates(rate=10):           # frames and events
            if isinstance(msg, acceld.Frame):
                print(msg.pitch, msg.roll)
            elif isinstance(msg, acceld.Shake):
                print("shake", msg.phase)

docs/PROTOCOL.md in the acceld repository describes the wire protocol.
"""
from .clock import wall_time
from .client import DEFAULT_SOCKET, EVENT_STREAMS, STREAMS, Motion, Updates, connect, default_socket
from .errors import (AcceldError, ConnectionLost, DaemonNotRunning, DeviceError, NewerProtocolWarning, NoGyroscope,
                     NotPermitted, PermissionDenied, ProtocolError, RequestError)
from .messages import (PROTOCOL_VERSION, Attitude, Calibration, Configured, Counters, Device, Disconnected, Dropped,
                       Error, Frame, FreeFall, Gap, Goodbye, GyroscopeSelfTest, Hello, Learned, Message, Movement,
                       Orientation, Poll, Reconnected, SelfTest, SelfTestAxis, Shake, Status, Tap, Unknown, Vector,
                       Watch, Zero, parse, AxisVibration, Bins, Machine, Vibration)

__version__ = "0.2.0"

__all__ = [
    "wall_time", "DEFAULT_SOCKET", "EVENT_STREAMS", "STREAMS", "Motion", "Updates", "connect", "default_socket",
    "AcceldError", "ConnectionLost", "DaemonNotRunning", "DeviceError", "NewerProtocolWarning", "NoGyroscope", "NotPermitted",
    "PermissionDenied", "ProtocolError", "RequestError",
    "PROTOCOL_VERSION", "Attitude", "Calibration", "Configured", "Counters", "Device", "Disconnected", "Dropped", "Error",
    "Frame", "FreeFall", "Gap", "Goodbye", "GyroscopeSelfTest", "Hello", "Learned", "Message", "Movement", "Orientation",
    "Poll", "Reconnected", "SelfTest", "SelfTestAxis", "Shake", "Status", "Tap", "Unknown", "Vector", "Watch",
    "Zero", "parse", "AxisVibration", "Bins", "Machine", "Vibration",
]
