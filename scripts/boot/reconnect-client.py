# SPDX-License-Identifier: Apache-2.0
# The boot tests' connected client during an upgrade (package-checks.sh):
# watches frames at 5 Hz and prints its hello and first frame; when the
# daemon hangs up, connects again (for up to 90 s) and reads one more frame.
# Usage: python3 reconnect-client.py SOCKET
import socket
import sys
import time


def session(first):
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(60)
    client.connect(sys.argv[1])
    stream = client.makefile("rwb")
    print("hello", stream.readline().decode().strip(), flush=True)
    stream.write(b'{"class":"watch","streams":["frames"],"rate":5}\n')
    stream.flush()
    frames = 0
    while True:
        line = stream.readline().decode()
        if not line:
            print("EOF: the daemon hung up after", frames, "frames", flush=True)
            return
        if '"class":"frame"' in line:
            frames += 1
            if frames == 1:
                print("frame", line.strip(), flush=True)
            if not first:
                return


session(True)
deadline = time.time() + 90
while True:
    try:
        session(False)
        break
    except OSError as error:
        if time.time() > deadline:
            print("gave up reconnecting:", error)
            sys.exit(1)
        time.sleep(0.2)
