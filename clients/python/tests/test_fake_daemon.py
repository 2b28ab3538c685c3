# SPDX-License-Identifier: Apache-2.0
"""The client's logic against a tiny fake daemon: gap accounting, a newer
protocol's messages, error replies, and peers that are not acceld."""
import json
import threading
import time

import pytest

import acceld
from conftest import wait_for


def watch_reply(rate=None):
    def replies(request):
        if request["class"] == "watch":
            reply = {"class": "watch", "streams": request["streams"], "fields": ["acc"]}
            if rate is not None:
                reply["rate"] = rate
            return [json.dumps(reply)]
        if request["class"] == "unwatch":
            return ['{"class":"watch","streams":[]}']
        return []
    return replies


def frame(seq):
    return f'{{"class":"frame","seq":{seq},"t":{seq / 100:.6f},"acc":[0.0,0.0,1.0]}}'


def test_gaps_are_counted_in_frames_at_the_decimated_rate(fake_daemon):
    fake = fake_daemon(watch_reply(rate=10.0))        # chip at 100 Hz, frames every 10th sample
    with acceld.connect(fake.path) as motion:
        with motion.updates(["frames"], rate=10, timeout=5) as updates:
            assert fake.requests[-1] == {"class": "watch", "streams": ["device", "frames"], "rate": 10.0}
            for seq in (3, 13, 23, 53, 63, 93):
                fake.send(frame(seq))
            got = [next(updates) for _ in range(8)]
            assert motion.frame_rate == 10
    assert motion.frame_rate is None
    kinds = [type(m).__name__ for m in got]
    assert kinds == ["Frame", "Frame", "Frame", "Gap", "Frame", "Frame", "Gap", "Frame"]
    assert got[3] == acceld.Gap(lost=2, after=23, seq=53, step=10)
    assert got[6] == acceld.Gap(lost=2, after=63, seq=93, step=10)
    assert motion.lost == 4


def test_a_rate_change_restarts_the_accounting(fake_daemon):
    fake = fake_daemon(watch_reply(rate=100.0))
    gaps = []
    with acceld.connect(fake.path) as motion:
        motion.on("gap", gaps.append)
        frames = []
        motion.start_accelerometer_updates(frames.append)
        for seq in (1, 2, 3, 5):                      # one sample lost
            fake.send(frame(seq))
        # another client moved the chip to 400 Hz: the daemon serves this one
        # every sample still (no rate asked for), numbering at 400 Hz
        fake.send('{"class":"device","chip":"LIS302DL","location":"fake","range":2,"rate":400,'
                  '"mode":"normal","resolution":8,"state":"ok","event":"configured"}')
        for seq in (900, 901, 902):
            fake.send(frame(seq))
        wait_for(lambda: len(frames) == 7, 5, "seven frames")
        assert [g.lost for g in gaps] == [1]
        assert motion.lost == 1
        assert motion.device.rate == 400
        assert motion.accelerometer_data.seq == 902          # the latest, without asking


def test_a_newer_daemons_messages_are_ignored_not_fatal(fake_daemon, monkeypatch):
    fake = fake_daemon(watch_reply(rate=100.0),
                       hello='{"class":"hello","protocol":4,"version":"4.0","features":["gestures"],'
                             '"device":{"chip":"LIS9000","rate":100,"state":"ok","colour":"blue"}}')
    unknown = []
    monkeypatch.setattr(acceld.connection, "_newer_said", False)
    with pytest.warns(acceld.NewerProtocolWarning, match="speaks protocol 4, this library 3"):
        motion = acceld.connect(fake.path)
    with motion:
        assert motion.hello.protocol == 4 and motion.device.chip == "LIS9000"
        motion.on("unknown", unknown.append)
        with motion.updates(timeout=5) as updates:
            fake.send('{"class":"gesture","t":1.0,"kind":"wave"}')
            fake.send('{"class":"frame","seq":1,"t":0.01,"acc":[0,0,1],"quaternion":[1,0,0,0],"pitch":1.5}')
            fake.send('not json at all')
            fake.send('[1,2,3]')
            fake.send('{"class":"shake","t":2.0,"phase":"wobble","start":1.9,"intensity":{"x":1}}')
            fake.send('{"class":"orientation","t":3.0,"orientation":"diagonal","previous":"faceUp"}')
            got = [next(updates) for _ in range(3)]
    assert isinstance(got[0], acceld.Frame) and got[0].pitch == 1.5 and got[0].roll is None
    assert got[1] == acceld.Shake(t=2.0, phase="wobble", start=1.9)
    assert got[2].orientation == "diagonal"
    assert [u.cls for u in unknown] == ["gesture"]


def test_an_error_reply_raises_a_typed_exception(fake_daemon):
    def replies(request):
        if request["class"] == "zero":
            return ['{"class":"error","code":"no-data","message":"no sample yet","request":"zero"}']
        if request["class"] == "selftest":
            return ['{"class":"error","code":"not-permitted","message":"not you","request":"selftest"}']
        return []
    fake = fake_daemon(replies)
    with acceld.connect(fake.path) as motion:
        with pytest.raises(acceld.RequestError) as raised:
            motion.zero()
        assert (raised.value.code, raised.value.message, raised.value.request) == ("no-data", "no sample yet", "zero")
        with pytest.raises(acceld.NotPermitted) as raised:
            motion.selftest()
        assert raised.value.code == "not-permitted"
        assert motion.reference is None


def test_replies_are_matched_in_order_among_pushed_messages(fake_daemon):
    def replies(request):
        if request["class"] == "status":
            return ['{"class":"device","chip":"LIS302DL","rate":100,"state":"lost","event":"lost"}',
                    '{"class":"status","uptime":5.5,"clients":2,"counters":{"published":500}}']
        if request["class"] == "device":
            return ['{"class":"device","chip":"LIS302DL","rate":100,"state":"ok","event":"back"}',
                    '{"class":"device","chip":"LIS302DL","rate":100,"state":"ok"}']
        return watch_reply()(request)
    fake = fake_daemon(replies)
    pushed = []
    with acceld.connect(fake.path) as motion:
        motion.on("device", pushed.append)
        status = motion.status()
        assert status.uptime == 5.5 and status.counters.published == 500
        assert motion.fetch_device().event is None
        wait_for(lambda: len(pushed) == 2, 5, "the pushed device messages")
        assert [d.event for d in pushed] == ["lost", "back"]


def test_the_iterator_reports_what_its_own_queue_discarded(fake_daemon):
    fake = fake_daemon(watch_reply(rate=100.0))
    with acceld.connect(fake.path) as motion:
        with motion.updates(["frames"], buffer=5, timeout=5) as updates:
            for seq in range(1, 21):
                fake.send(frame(seq))
            wait_for(lambda: motion.accelerometer_data and motion.accelerometer_data.seq == 20, 5, "the last frame")
            first = next(updates)
            rest = [next(updates) for _ in range(5)]
    assert first == acceld.Dropped(count=15, total=15, local=True)
    assert [f.seq for f in rest] == [16, 17, 18, 19, 20]
    assert motion.lost == 0                     # the daemon delivered every one


def test_a_request_from_inside_a_handler_gets_its_reply(fake_daemon):
    def replies(request):
        if request["class"] == "zero":
            return [frame(7), '{"class":"zero","pitch":1.0,"roll":2.0}']
        return watch_reply(rate=100.0)(request)
    fake = fake_daemon(replies)
    references, seen = [], []
    with acceld.connect(fake.path) as motion:
        def handler(f):
            seen.append(f.seq)
            if len(seen) == 1:
                references.append(motion.zero())      # waits on the reader thread itself
        motion.start_device_motion_updates(handler)
        fake.send(frame(5))
        wait_for(lambda: references, 5, "zero's reply")
        fake.send(frame(9))
        wait_for(lambda: len(seen) == 3, 5, "three frames")
    assert references == [acceld.Attitude(1.0, 2.0)]
    assert seen == [5, 7, 9]


def test_a_peer_that_is_not_acceld(fake_daemon, workdir):
    fake = fake_daemon(hello="HTTP/1.1 400 Bad Request")
    with pytest.raises(acceld.ProtocolError, match="does not speak the acceld protocol"):
        acceld.connect(fake.path)
    fake.close()
    silent = fake_daemon(hello=None)
    with pytest.raises(acceld.ProtocolError, match="said nothing"):
        acceld.connect(silent.path, hello_timeout=0.3)


def test_a_daemon_slow_to_greet_is_waited_for(fake_daemon):
    # Socket activation on a slow board: acceld greets seconds after the
    # connection; the default wait (15 s) is longer than a reply's (5 s).
    fake = fake_daemon(hello_delay=6.0)
    with acceld.connect(fake.path) as motion:
        assert motion.hello.version == "9.9.9"


def test_a_full_daemon_refuses_with_a_typed_error(fake_daemon):
    fake = fake_daemon(hello='{"class":"error","code":"too-many-clients","message":"acceld serves at most 64"}')
    with pytest.raises(acceld.RequestError) as raised:
        acceld.connect(fake.path)
    assert raised.value.code == "too-many-clients"


def test_without_reconnect_the_loss_ends_the_iterator(fake_daemon):
    fake = fake_daemon(watch_reply(rate=100.0))
    with acceld.connect(fake.path, reconnect=False) as motion:
        updates = motion.updates(["frames"], timeout=5)
        fake.send(frame(1))
        fake.close()
        assert isinstance(next(updates), acceld.Frame)
        assert isinstance(next(updates), acceld.Disconnected)
        with pytest.raises(acceld.ConnectionLost):
            next(updates)
        with pytest.raises(acceld.ConnectionLost):
            motion.run(1)
        with pytest.raises(acceld.ConnectionLost):
            motion.status()


def test_a_closed_client_says_so(fake_daemon):
    fake = fake_daemon(watch_reply(rate=100.0))
    motion = acceld.connect(fake.path)
    updates = motion.updates(["frames"], timeout=5)
    motion.close()
    motion.close()                                  # twice is harmless
    with pytest.raises(StopIteration):
        next(updates)
    with pytest.raises(acceld.ConnectionLost, match="closed"):
        motion.updates()
    with pytest.raises(acceld.ConnectionLost):
        motion.status()
    motion.stop_accelerometer_updates()             # stopping what is stopped is harmless
    assert not motion.is_connected


def test_goodbye_ends_the_connection_before_the_socket_closes(fake_daemon):
    """The connection (acceld/connection.py) takes acceld at its word: after
    `goodbye` it reports the loss and connects again, though the fake
    keeps the first connection open; the watch is sent again, and the
    gap accounting starts afresh on the new connection."""
    fake = fake_daemon(watch_reply(rate=100.0))
    with acceld.connect(fake.path, max_backoff=0.2) as motion:
        with motion.updates(["frames"], timeout=10) as updates:
            first = wait_for(lambda: fake.connections and fake.connections[0], 5, "the first connection")
            fake.send(frame(1), first)
            fake.send('{"class":"goodbye","reason":"restart"}', first)
            got = [next(updates) for _ in range(4)]
            assert [type(m).__name__ for m in got] == ["Frame", "Goodbye", "Disconnected", "Reconnected"]
            assert got[2].reason == "acceld said goodbye: restart"
            assert len(fake.connections) == 2 and motion.reconnects == 1
            wait_for(lambda: [r["class"] for r in fake.requests] == ["watch", "watch"], 5, "the watch sent again")
            fake.send(frame(500), fake.connections[1])
            assert next(updates).seq == 500
            assert motion.lost == 0
