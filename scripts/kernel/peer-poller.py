# SPDX-License-Identifier: Apache-2.0
# The poller a Raspberry Pi user would write instead of acceld (issue 13),
# for the peer benchmark: smbus2, one burst every 1/RATE s, the classic 0.1
# low-pass, one JSON line per sample. Usage: peer-poller.py BUS RATE [lis3dh]
import json, sys, time
from smbus2 import SMBus

bus, rate = SMBus(int(sys.argv[1])), int(sys.argv[2])
lis3dh = sys.argv[3:] == ["lis3dh"]
if lis3dh:  # 400 Hz with all axes; BDU and high resolution; no FIFO
    address, register, length = 0x18, 0x28 | 0x80, 6
    bus.write_byte_data(address, 0x20, 0x77)
    bus.write_byte_data(address, 0x23, 0x88)
else:  # PD, all axes, DR for 400 Hz; STATUS then X, Y, Z with their dummies
    address, register, length = 0x1C, 0x27 | 0x80, 7
    bus.write_byte_data(address, 0x20, 0xC7 if rate == 400 else 0x47)
gravity, due = [0.0, 0.0, 0.0], time.monotonic()
while True:
    raw = bus.read_i2c_block_data(address, register, length)
    if lis3dh:
        acc = [int.from_bytes(bytes(raw[i:i + 2]), "little", signed=True) / 16 * 0.001 for i in (0, 2, 4)]
    else:
        acc = [(b - 256 if b > 127 else b) * 0.018 for b in raw[2::2]]
    gravity = [g + 0.1 * (a - g) for g, a in zip(gravity, acc)]
    print(json.dumps({"t": time.monotonic(), "acc": acc, "gravity": gravity}), flush=True)
    due += 1 / rate
    time.sleep(max(0.0, due - time.monotonic()))
