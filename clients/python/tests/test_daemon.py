# SPDX-License-Identifier: Apache-2.0
"""The client against the real acceld on the chip model."""
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import acceld
from conftest import PACKAGE, wait_for, write_trace

# Two tilts the chip model holds (g on x, y, z): pitch about 0 and roll -30°,
# then pitch 20° and roll 10°.
TILT_1 = (0.5, 0.0, 0.866)
TILT_2 = (-0.163, 0.342, 0.925)


def tilts(workdir, first_seconds):
    return str(write_trace(workdir / "tilts.csv", [(TILT_1, first_seconds), (TILT_2, 20)]))


def missing(seqs, step):
    """Frames missing from a run of sequence numbers, each `step` apart when none is."""
    assert all((b - a) > 0 and (b - a) % step == 0 for a, b in zip(seqs, seqs[1:])), seqs
    return sum((b - a) // step - 1 for a, b in zip(seqs, seqs[1:]))


def test_push_and_pull_frames_in_order(start_daemon):
    # Frames come in order, each `step` samples after the last; the chip model
    # can still lose a sample when this 2-core machine is busy (the daemon
    # counts it), so every gap seen must be one the client counted.
    d = start_daemon("demo")
    with acceld.connect(d.socket) as motion:
        assert motion.is_accelerometer_available and not motion.is_accelerometer_active
        # nothing started: asks the daemon (poll); None until its first sample
        pulled = wait_for(lambda: motion.accelerometer_data, 5, "a first sample")
        assert isinstance(pulled, acceld.Frame) and pulled.acc is not None

        pushed, gaps = [], []
        motion.on("gap", gaps.append)
        motion.start_accelerometer_updates(pushed.append, interval=0.02)
        assert motion.is_accelerometer_active and motion.frame_rate == 50
        motion.run(1.0)
        latest = motion.accelerometer_data                 # the latest pushed, without asking
        motion.stop_accelerometer_updates()
        assert not motion.is_accelerometer_active

        # about 50 in the second, each received or counted lost (a starved
        # machine loses samples, and delivers some after the second)
        assert len(pushed) + motion.lost >= 30, f"{len(pushed)} frames, {motion.lost} lost"
        assert missing([f.seq for f in pushed], 2) == sum(g.lost for g in gaps) == motion.lost
        assert all(b.t > a.t for a, b in zip(pushed, pushed[1:]))
        assert latest.seq >= pushed[-1].seq and latest.seq > pulled.seq

        motion.start_device_motion_updates(interval=0.04)  # pull only: no handler
        time.sleep(0.3)
        dm = motion.device_motion
        assert dm.gravity is not None and dm.user is not None and dm.attitude is not None
        assert dm.seq > latest.seq
        motion.stop_device_motion_updates()

        lost_before = motion.lost
        motion.update_interval = 0.04                      # accelerometerUpdateInterval: 25 Hz
        assert motion.accelerometer_update_interval == 0.04
        with motion.updates(["frames"], duration=0.6) as updates:
            assert motion.frame_rate == 25
            seqs = [m.seq for m in updates if isinstance(m, acceld.Frame)]
        assert len(seqs) >= 10 and missing(seqs, 4) == motion.lost - lost_before
        status = motion.status()
        assert motion.lost == 0 or status.counters.lost + motion.dropped > 0, (gaps, status)


def test_gaps_from_a_bus_outage_are_counted(start_daemon):
    # The chip model stops answering 0.8 s in, for 0.5 s: frames resume with
    # their seq skipping the samples lost (docs/PROTOCOL.md, device `back`).
    d = start_daemon("rest", "--fault", "gone@0.8+0.5")
    with acceld.connect(d.socket) as motion:
        got = list(motion.updates(["frames", "device"], rate=10, duration=2.0))
        status = motion.status()
    frames = [m for m in got if isinstance(m, acceld.Frame)]
    gaps = [m for m in got if isinstance(m, acceld.Gap)]
    events = [m.event for m in got if isinstance(m, acceld.Device)]
    assert events == ["lost", "back"]
    assert gaps and sum(g.lost for g in gaps) == motion.lost >= 3
    assert all(b.seq > a.seq for a, b in zip(frames, frames[1:]))
    for gap in gaps:                              # each Gap comes right before the frame after it
        after = got[got.index(gap) + 1]
        assert isinstance(after, acceld.Frame) and after.seq == gap.seq and gap.step == 10
        assert (gap.seq - gap.after) == (gap.lost + 1) * 10
    # the daemon lost those samples itself (0.5 s at 100 Hz)
    assert status.counters.lost >= 40 and motion.lost * 10 >= status.counters.lost - 10


def test_the_tour_gives_all_six_orientations(start_daemon):
    d = start_daemon("tour")                      # each face 2 s, each turn 1 s: 18 s round
    with acceld.connect(d.socket) as motion:
        seen = []
        with motion.updates(["orientation"], duration=19.5) as updates:
            seen.append(motion.orientation)       # the watch reply says the current one
            for msg in updates:
                assert isinstance(msg, acceld.Orientation)
                assert msg.previous == seen[-1]
                seen.append(msg.orientation)
                if len(set(seen) - {"unknown"}) == 6 and len(seen) > 6:
                    break
            assert motion.orientation == seen[-1]
        assert set(seen) - {"unknown"} == {"faceUp", "landscapeLeft", "portrait", "faceDown",
                                          "landscapeRight", "portraitUpsideDown"}
        assert motion.orientation is None             # no longer watched


def test_the_reference_attitude_is_the_daemons(start_daemon, workdir):
    d = start_daemon(tilts(workdir, 1.2))
    with acceld.connect(d.socket) as absolute, acceld.connect(d.socket) as relative:
        time.sleep(0.6)                           # let gravity settle on the first tilt
        reference = relative.zero()
        assert reference.roll == pytest.approx(-30, abs=2) and relative.reference == reference
        a, r = {}, {}
        absolute.start_device_motion_updates(lambda f: a.setdefault(f.seq, f))
        relative.start_device_motion_updates(lambda f: r.setdefault(f.seq, f))
        time.sleep(1.5)                           # through the turn to the second tilt
        absolute.stop_device_motion_updates()
        relative.stop_device_motion_updates()
        common = sorted(set(a) & set(r))
        # 150 at 100 Hz on a quiet machine; a loaded one started a client's
        # updates late once (75 in common). Enough to compare is enough.
        assert len(common) > 50
        for seq in common:                        # same samples at the full rate
            mine = a[seq].attitude.relative_to(reference)
            assert mine.pitch == pytest.approx(r[seq].pitch, abs=0.03)
            assert mine.roll == pytest.approx(r[seq].roll, abs=0.03)
        last = r[common[-1]].attitude
        assert abs(last.pitch) > 10 and abs(last.roll) > 10     # the second tilt, seen from the first
        relative.reset_reference()
        assert relative.reference is None
        assert relative.poll().roll == pytest.approx(absolute.poll().roll, abs=0.5)


def test_a_double_tap_reaches_an_event_handler(start_daemon, workdir):
    # two knocks (half-sines of 1.5 g along -z, 20 ms) 0.2 s apart on a
    # still, face-up board, 1.5 s in: the Swift tests' double tap
    rate, rows = 500, []

    def hold(seconds):
        rows.extend([(0.0, 0.0, 1.0)] * int(seconds * rate))

    def knock():
        rows.extend([(0.0, 0.0, 1.0 - 1.5 * math.sin(math.pi * i / 10)) for i in range(10)])
    hold(1.5), knock(), hold(0.18), knock(), hold(3)
    trace = workdir / "doubletap.csv"
    trace.write_text("# source: the Python client's tests\n# device: none\nt,x,y,z\n" +
                     "".join(f"{i / rate:.6f},{x:.5f},{y:.5f},{z:.5f}\n" for i, (x, y, z) in enumerate(rows)))
    d = start_daemon(str(trace))
    taps = []
    with acceld.connect(d.socket) as motion:
        motion.start_accelerometer_updates(interval=0)   # every frame, so that lost samples show
        motion.on("tap", taps.append)
        wait_for(lambda: taps, 8, "a tap")
        time.sleep(0.3)
        assert taps[0].direction == "-z"
        # A starved machine can lose one of a knock's two samples at 100 Hz
        # (the daemon counts it); with none lost, the two knocks are one double tap.
        if motion.lost == 0:
            assert [t.count for t in taps] == [2], taps


def test_reconnects_when_the_daemon_restarts(start_daemon, workdir):
    trace = tilts(workdir, 0.0)
    d = start_daemon(trace)
    notices, frames = [], []
    with acceld.connect(d.socket, max_backoff=0.4) as motion:
        for kind in ("goodbye", "disconnected", "reconnected"):
            motion.on(kind, notices.append)
        time.sleep(0.5)
        motion.zero()                                 # the reference must survive the restart
        motion.start_device_motion_updates(frames.append, interval=0.05)
        updates = motion.updates(["frames"], timeout=10)
        wait_for(lambda: len(frames) >= 5, 5, "frames before the restart")
        before = len(frames)

        d.stop(signal.SIGTERM)                        # acceld says goodbye and goes
        wait_for(lambda: any(isinstance(n, acceld.Disconnected) for n in notices), 5, "the loss")
        assert not motion.is_connected
        with pytest.raises(acceld.ConnectionLost):
            motion.status()
        time.sleep(1.0)
        start_daemon(trace, socket_path=d.socket)      # a new acceld on the same socket
        wait_for(lambda: len(frames) >= before + 10, 10, "frames after the restart")

        kinds = [type(n).__name__ for n in notices]
        assert kinds == ["Goodbye", "Disconnected", "Reconnected"]
        back = notices[2]
        assert back.away >= 1.0 and back.attempts >= 2 and motion.reconnects == 1
        after = frames[before:]
        # every 5th sample (a starved machine may lose one: then a step of 10)
        steps = {b.seq - a.seq for a, b in zip(after[1:], after[2:])}
        assert 5 in steps and all(step % 5 == 0 for step in steps), f"the 20 Hz watch was sent again: steps {steps}"
        for f in after[3:]:                           # still relative to the first reference
            assert abs(f.pitch) < 1.5 and abs(f.roll) < 1.5
        assert motion.status().clients >= 1           # (the fixture's readiness probe may still count)
        # the iterator saw the same story, in order
        seen = []
        while not seen or not isinstance(seen[-1], acceld.Frame) or len(seen) < 8:
            msg = next(updates)
            if not isinstance(msg, acceld.Frame) or any(isinstance(s, acceld.Reconnected) for s in seen):
                seen.append(msg)
        order = [type(m).__name__ for m in seen if not isinstance(m, acceld.Frame)]
        assert order == ["Goodbye", "Disconnected", "Reconnected"]
        updates.close()


def test_reconnects_after_the_daemon_is_killed(start_daemon):
    d = start_daemon("rest")
    notices = []
    with acceld.connect(d.socket, max_backoff=0.4) as motion:
        motion.on("disconnected", notices.append)
        motion.on("reconnected", notices.append)
        d.stop(signal.SIGKILL)                        # no goodbye; the socket file stays
        wait_for(lambda: notices, 5, "the loss")
        start_daemon("rest", socket_path=d.socket)
        wait_for(lambda: len(notices) == 2, 10, "the reconnection")
        assert isinstance(notices[1], acceld.Reconnected)
        assert wait_for(lambda: motion.poll(), 5, "a frame from the new daemon").seq is not None


def test_a_daemon_that_is_not_running(workdir, monkeypatch):
    missing = str(workdir / "nothing.sock")
    with pytest.raises(acceld.DaemonNotRunning) as raised:
        acceld.connect(missing)
    message = str(raised.value)
    # The unit to start is the socket, as the Swift client says.
    assert "systemctl start acceld.socket" in message and missing in message and "--socket" in message
    assert isinstance(raised.value, FileNotFoundError)

    monkeypatch.setenv("ACCELD_SOCKET", missing)          # the default socket comes from the environment
    with pytest.raises(acceld.DaemonNotRunning, match="nothing.sock"):
        acceld.connect()
    monkeypatch.delenv("ACCELD_SOCKET")
    assert acceld.default_socket() == "/run/acceld/acceld.sock"


def test_a_stale_socket_file(start_daemon):
    d = start_daemon("rest")
    d.stop(signal.SIGKILL)
    assert os.path.exists(d.socket)
    with pytest.raises(acceld.DaemonNotRunning, match="nothing listens"):
        acceld.connect(d.socket)


def can_switch_user():
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def test_no_permission_on_the_socket(fake_daemon, workdir):
    # The kernel's check on connect() is the same whoever listens; a fake
    # daemon's socket keeps the mode the test gives it (acceld sets its own
    # mode just after it starts listening, which would race with the test's).
    fake = fake_daemon()
    if os.geteuid() != 0:
        os.chmod(fake.path, 0)
        with pytest.raises(acceld.PermissionDenied) as raised:
            acceld.connect(fake.path)
        assert "acceld" in str(raised.value) and "usermod" in str(raised.value)
        return
    if not can_switch_user():
        pytest.skip("running as root, where permission checks do not apply, and setpriv is missing to run as nobody")
    # As root the kernel would let us in: try as nobody, with a copy of the
    # package it can read, in a directory it can enter.
    os.chmod(workdir, 0o755)
    shutil.copytree(PACKAGE / "acceld", workdir / "pkg" / "acceld")
    os.chmod(workdir / "pkg", 0o755)

    def as_nobody():
        script = ("import acceld, sys\n"
                  "try:\n"
                  f"    m = acceld.connect({fake.path!r}); print('connected', m.hello.version); m.close()\n"
                  "except acceld.PermissionDenied as e:\n"
                  "    print(e); sys.exit(3)\n")
        return subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                               "/usr/bin/python3", "-c", script], capture_output=True, text=True, timeout=30,
                              env={"PYTHONPATH": str(workdir / "pkg"), "PATH": "/usr/bin:/bin"})

    os.chmod(fake.path, 0o666)
    allowed = as_nobody()
    assert allowed.returncode == 0 and "connected 9.9.9" in allowed.stdout, allowed.stdout + allowed.stderr
    os.chmod(fake.path, 0)
    refused = as_nobody()
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert "permission denied on" in refused.stdout and "usermod -aG acceld" in refused.stdout


def test_error_replies_from_the_daemon_are_typed(start_daemon):
    d = start_daemon("rest")
    with acceld.connect(d.socket) as motion:
        with pytest.raises(acceld.RequestError) as raised:
            motion.request({"class": "frobnicate"})
        assert raised.value.code == "unknown-class" and raised.value.request == "frobnicate"
        assert "known classes" in raised.value.message
        with pytest.raises(acceld.DeviceError) as raised:
            motion.configure(range=3)                   # the LIS302DL has 2 and 8
        assert raised.value.code == "device-error"
        with pytest.raises(acceld.RequestError) as raised:
            motion.request({"class": "watch", "streams": ["sideways"]})
        assert raised.value.code == "bad-field"
        assert motion.status().clients >= 1             # the connection stays up
        device = motion.configure(rate=400)
        assert isinstance(device, acceld.Device) and device.event == "configured" and device.rate == 400
        assert motion.device.rate == 400


def test_a_path_that_is_not_a_socket(workdir):
    path = workdir / "plain"
    path.write_text("")
    with pytest.raises(acceld.DaemonNotRunning, match="not a socket"):
        acceld.connect(str(path))
