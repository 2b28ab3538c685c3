# SPDX-License-Identifier: Apache-2.0
"""The message types against docs/PROTOCOL.md, and the rules for what a newer daemon may send."""
import json
import re

import pytest

import acceld
from acceld.messages import WIRE_CLASSES
from conftest import REPO


def protocol_messages():
    """Every daemon message docs/PROTOCOL.md shows: the sessions' ← lines and the JSON examples."""
    text = (REPO / "docs" / "PROTOCOL.md").read_text()
    lines = re.findall(r"^← (\{.*\})$", text, re.M)
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        lines += [line for line in block.splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


def test_every_message_in_the_protocol_document_parses_to_its_dataclass():
    objects = protocol_messages()
    assert len(objects) >= 15
    for obj in objects:
        msg = acceld.parse(obj)
        assert msg.CLASS == obj["class"], obj
        assert not isinstance(msg, acceld.Unknown)
        for key, value in obj.items():
            if key == "class" or value is None:  # a documented null stays None
                continue
            name = {"emptyReads": "empty_reads", "rotationRate": "rotation_rate", "gyroRecovering": "gyro_recovering",
                    "envelopeSpectrum": "envelope_spectrum", "offLevel": "off_level", "from": "previous"}.get(key, key)
            assert getattr(msg, name) is not None, f"{obj['class']}.{key} lost"


def documented_classes():
    """The classes the daemon sends, as docs/PROTOCOL.md names them: its ###
    headings, the first column of its `| class |` tables, and the reply
    column of its requests table."""
    text = (REPO / "docs" / "PROTOCOL.md").read_text()
    messages = text[text.index("## Messages from the daemon"):]
    names = set(re.findall(r"^### ([a-z]+)$", messages, re.M))
    table = None
    for line in text.splitlines():
        if line.startswith("| class |"):
            table = "requests" if "reply" in line else "classes"
        elif not line.startswith("|"):
            table = None
        elif table and not line.startswith("|---"):
            cells = [c.strip() for c in line.replace("\\|", "").strip("|").split("|")]
            column = cells[-1] if table == "requests" else cells[0]
            names.update(re.findall(r"^`(\w+)`", column))
    return names


def test_the_documented_message_classes_are_all_known():
    documented = documented_classes()
    assert {"hello", "device", "frame", "orientation", "tap", "status", "goodbye", "calibration", "selftest"} <= documented
    assert documented - set(WIRE_CLASSES) == set()
    # and the one the reply of a tunables-only configure uses (Hub.swift)
    assert "configured" in WIRE_CLASSES


def test_a_frame_with_its_fields():
    frame = acceld.parse('{"class":"frame","seq":190,"t":2419.312518,"acc":[0.0180,-0.0180,1.0080],'
                         '"pitch":-0.17,"roll":-1.23}')
    assert isinstance(frame, acceld.Frame)
    assert frame.seq == 190 and frame.t == 2419.312518
    assert frame.acc == acceld.Vector(0.018, -0.018, 1.008) and frame.acc.z == 1.008
    x, y, z = frame.acc
    assert (x, y, z) == (0.018, -0.018, 1.008)
    assert frame.gravity is None and frame.user is None
    assert frame.attitude == acceld.Attitude(-0.17, -1.23)


def test_unknown_fields_are_ignored_and_bad_ones_become_none():
    msg = acceld.parse('{"class":"shake","t":1.5,"phase":"start","start":1.25,"vigour":"lots",'
                       '"peak":"high","nested":{"a":[1,2]}}')
    assert msg == acceld.Shake(t=1.5, phase="start", start=1.25, duration=None, peak=None)
    frame = acceld.parse('{"class":"frame","seq":"x","acc":[1,2],"gravity":[1,2,"z"],"user":[0,0,1]}')
    assert frame.seq is None and frame.acc is None and frame.gravity is None
    assert frame.user == (0.0, 0.0, 1.0)
    status = acceld.parse('{"class":"status","uptime":1,"counters":{"published":3,"newCounter":9}}')
    assert status.counters.published == 3 and status.counters.lost == 0 and status.device is None


def test_unknown_classes_become_unknown():
    msg = acceld.parse('{"class":"gesture","kind":"wave"}')
    assert isinstance(msg, acceld.Unknown)
    assert msg.cls == "gesture" and msg.fields["kind"] == "wave"
    assert isinstance(acceld.parse('{"no":"class"}'), acceld.Unknown)
    assert isinstance(acceld.parse('{"class":42}'), acceld.Unknown)


def test_only_non_objects_raise():
    for line in ("[1,2]", '"frame"', "null"):
        with pytest.raises(ValueError):
            acceld.parse(line)


def test_attitude_relative_to_a_reference():
    a = acceld.Attitude(12.5, -30.0)
    assert a.relative_to(a) == acceld.Attitude(0.0, 0.0)
    assert acceld.Attitude(20.0, 0.0).relative_to(acceld.Attitude(5.0, 0.0)) == acceld.Attitude(15.0, 0.0)
    assert acceld.Attitude(0.0, 20.0).multiply_by_inverse_of(acceld.Attitude(0.0, 5.0)) == acceld.Attitude(0.0, 15.0)


def test_a_frame_from_a_part_with_a_gyroscope():
    line = ('{"class":"frame","seq":5120,"t":51.204512,"acc":[0.0012,0.4990,0.8661],"pitch":30.00,"roll":0.00,'
            '"yaw":12.50,"quaternion":[0.96018,0.25728,0.02818,0.10516],"rotationRate":[0.00012,-0.00031,0.21817]}')
    frame = acceld.parse(json.loads(line))
    assert frame.yaw == 12.5 and frame.quaternion == (0.96018, 0.25728, 0.02818, 0.10516)
    assert frame.rotation_rate == acceld.messages.Vector(0.00012, -0.00031, 0.21817) and frame.gyro_recovering is None
    hello = acceld.parse(json.loads('{"class":"hello","protocol":2,"version":"0.2.0","device":{"chip":"LSM6DSO","location":"x","range":2,"rate":104,"mode":"high-performance","resolution":16,"gyroscope":2000,"state":"ok"}}'))
    assert hello.device.gyroscope == 2000


def test_a_simulated_trace_says_where_its_time_0_lies():
    hello = acceld.parse(json.loads('{"class":"hello","protocol":3,"version":"0.2.0","device":{"chip":"LIS302DL","location":"chip model (fall.csv)","range":2,"rate":100,"mode":"normal","resolution":8,"state":"ok","trace":{"name":"fall.csv","start":3521.204118,"seconds":12.5,"loop":false}}}'))
    assert hello.device.trace == acceld.messages.Trace(name="fall.csv", start=3521.204118, seconds=12.5, loop=False)
    assert acceld.parse({"class": "device", "chip": "LIS302DL", "state": "ok"}).trace is None


def test_a_six_axis_selftest_carries_the_gyroscope():
    msg = acceld.parse({"class": "selftest", "passed": False, "range": 2, "mode": "high-performance",
                        "axes": [{"axis": "x", "delta": 14000.0, "min": 820.0, "max": 27869.0, "passed": True, "diagnosis": "within limits"}],
                        "gyroscope": {"passed": False, "range": 2000,
                                      "axes": [{"axis": "y", "delta": 100.0, "min": 150.0, "max": 700.0, "passed": False,
                                                "diagnosis": "moved too little"}]}})
    assert isinstance(msg.gyroscope, acceld.GyroscopeSelfTest)
    assert msg.gyroscope.range == 2000 and not msg.gyroscope.passed
    assert msg.gyroscope.axes[0].axis == "y" and msg.gyroscope.axes[0].delta == 100.0
    assert acceld.parse({"class": "selftest", "passed": True, "range": 2, "mode": "normal", "axes": []}).gyroscope is None


def test_the_client_is_the_daemons_release():
    """python3-acceld ships beside acceld at one version: the client says the same."""
    swift = (REPO / "Sources" / "AccelProtocol" / "Version.swift").read_text()
    daemon = re.search(r'acceldVersion = "([^"]+)"', swift).group(1)
    pyproject = (REPO / "clients" / "python" / "pyproject.toml").read_text()
    assert acceld.__version__ == daemon
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == daemon


def test_wall_time_turns_a_monotonic_t_into_now():
    import time
    # A message stamped now reads as now on the wall clock, within the
    # instants between the two clock reads.
    before = time.time()
    stamped = acceld.wall_time(time.monotonic())
    assert before - 0.001 <= stamped <= time.time() + 0.001
    assert acceld.wall_time(100.0) - acceld.wall_time(99.0) == pytest.approx(1.0, abs=1e-3)


def test_a_vibration_window_parses_with_its_spectra_as_numbers():
    line = next(obj for obj in protocol_messages() if obj["class"] == "vibration")
    msg = acceld.parse(line)
    assert isinstance(msg, acceld.Vibration)
    assert msg.axes["x"].peak_to_peak == line["axes"]["x"]["peakToPeak"]
    assert msg.axes["z"].dominant == tuple(line["axes"]["z"]["dominant"])
    assert msg.peaks[0] == tuple(line["peaks"][0]) and msg.band == (10.0, 1000.0)
    assert list(msg.spectrum.amplitudes) == line["spectrum"]["amplitudes"]   # a numpy array where numpy is installed
    assert msg.envelope_spectrum.step == line["envelopeSpectrum"]["step"]
    assert msg.average == {"windows": 19, "span": 10.0} and msg.restarts == 0
    judged = acceld.parse('{"class":"vibration","bearing":{"condition":"alarm","order":"bpfo","indicator":22.0},'
                          '"orders":[{"name":"bpfo","frequency":81.1,"family":[[80.2,0.01,22.5],null,null],"indicator":22.0,"condition":"alarm"}]}')
    assert judged.bearing["condition"] == "alarm" and judged.orders[0]["family"][1] is None
    machine = acceld.parse('{"class":"machine","t":1.5,"state":"running","from":"off"}')
    assert isinstance(machine, acceld.Machine) and (machine.state, machine.previous) == ("running", "off")
