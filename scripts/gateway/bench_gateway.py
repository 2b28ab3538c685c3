# SPDX-License-Identifier: Apache-2.0
"""What the gateway costs on the board: acceld --simulate demo at 100 Hz and
acceld-gateway, with N WebSocket clients reading /ws/acceld (and one
reading /ws/motion), for SECONDS each. Prints CPU (% of a core) and RSS of
both processes. Usage: python3 bench_gateway.py [SECONDS] [N ...]
(make gateway-bench; docs/PERFORMANCE.md)."""
import os
import sys
import threading
import time

from stack import Stack, WebSocket


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def reader(port, path, stop, counts, index):
    ws = WebSocket(port, path)
    while not stop.is_set():
        try:
            counts[index] += sum(m.get("class") == "frame" or "motion" in m for m in ws.messages())
        except (EOFError, OSError):
            break
    ws.close()


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20
    sizes = [int(n) for n in sys.argv[2:]] or [0, 1, 10, 50]
    print(f"{'clients':>8} {'acceld CPU':>11} {'gateway CPU':>12} {'gateway RSS':>12} {'frames/s/client':>16}")
    for n in sizes:
        stack = Stack("demo")
        stop, threads = threading.Event(), []
        counts = [0] * (n + 1)
        for i in range(n):
            threads.append(threading.Thread(target=reader, args=(stack.port, "/ws/acceld", stop, counts, i)))
        if n:
            threads.append(threading.Thread(target=reader, args=(stack.port, "/ws/motion", stop, counts, n)))
        for t in threads:
            t.start()
        time.sleep(2)
        a0, g0, c0, t0 = cpu_seconds(stack.acceld.pid), cpu_seconds(stack.gateway.pid), sum(counts[:n]), time.monotonic()
        time.sleep(seconds)
        a1, g1, c1, t1 = cpu_seconds(stack.acceld.pid), cpu_seconds(stack.gateway.pid), sum(counts[:n]), time.monotonic()
        rss = rss_mb(stack.gateway.pid)
        stop.set()
        stack.stop()
        for t in threads:
            t.join(5)
        elapsed = t1 - t0
        per_client = (c1 - c0) / elapsed / n if n else 0
        print(f"{n:>8} {(a1 - a0) / elapsed * 100:>10.2f}% {(g1 - g0) / elapsed * 100:>11.2f}% {rss:>9.1f} MB {per_client:>16.1f}", flush=True)


main()
