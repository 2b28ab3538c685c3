# SPDX-License-Identifier: Apache-2.0
"""docs/protocol.schema.json, the protocol's one description, held against
what speaks it: the real daemon, docs/PROTOCOL.md's examples, this library
and the live page. Validated with python3-jsonschema (draft 2020-12); a
failure names the line and what the validator found."""
import json
import re
import socket
import time
from dataclasses import fields

import jsonschema
import pytest

import acceld
from acceld.messages import WIRE_CLASSES, Counters, Device, GyroscopeSelfTest, SelfTestAxis
from conftest import REPO, FakeDaemon
from test_messages import protocol_messages

SCHEMA = json.loads((REPO / "docs" / "protocol.schema.json").read_text())


def validator(side):
    """A validator of one side: `message` (the daemon's) or `request`."""
    return jsonschema.Draft202012Validator({"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"],
                                            "$ref": f"#/$defs/{side}"})


MESSAGE, REQUEST = validator("message"), validator("request")
# The schema as published, as a program that reads docs/protocol.schema.json
# would use it: the root, with the validator its $schema names.
ROOT = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


def problems(v, obj):
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in v.iter_errors(obj)]


def definition(side, name):
    """The $defs entry of class `name` on one side."""
    for option in SCHEMA["$defs"][side]["oneOf"]:
        schema = SCHEMA["$defs"][option["$ref"].split("/")[-1]]
        klass = properties(schema).get("class", {})
        if klass.get("const") == name or name in klass.get("enum", []):
            return schema
    raise KeyError(name)


def properties(schema):
    """An object schema's properties, through $ref and allOf."""
    found = dict(schema.get("properties", {}))
    for part in schema.get("allOf", []) + ([schema] if "$ref" in schema else []):
        if "$ref" in part:
            part = SCHEMA["$defs"][part["$ref"].split("/")[-1]]
        for key, value in properties(part).items():
            found.setdefault(key, value)
    return found


def wire_names(cls):
    return {f.metadata.get("wire") or f.name for f in fields(cls) if f.metadata.get("convert")}


def test_the_description_is_a_2020_12_schema_of_this_librarys_version():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["x-acceld-protocol"] == acceld.PROTOCOL_VERSION


def test_every_example_in_the_protocol_document_validates():
    messages = protocol_messages()
    assert len(messages) >= 30
    for obj in messages:
        assert problems(MESSAGE, obj) == [], obj
    text = (REPO / "docs" / "PROTOCOL.md").read_text()
    requests = [json.loads(line) for line in re.findall(r"^→ (\{.*\})$", text, re.M)]
    assert len(requests) >= 8
    for obj in requests:
        if obj["class"] == "frobnicate":   # the session's unknown class, refused on purpose
            assert problems(REQUEST, obj), "an undescribed class must not validate"
        else:
            assert problems(REQUEST, obj) == [], obj


def test_what_the_description_lacks_is_found():
    """The validator is not a formality: a drifted message fails it."""
    frame = {"class": "frame", "seq": 1, "t": 0.5, "acc": [0, 0, 1]}
    assert problems(MESSAGE, frame) == []
    assert problems(MESSAGE, {**frame, "jerk": [0, 0, 0]})
    assert problems(MESSAGE, {"class": "tap", "t": 1, "count": 3, "direction": "+z", "start": 0.5, "peak": 2})
    assert problems(MESSAGE, {"class": "shake", "t": 1, "phase": "end", "start": 0.5})          # no duration, peak
    assert problems(REQUEST, {"class": "configure"})                                           # nothing to change


def session_lines():
    """docs/PROTOCOL.md's lines, both sides: (side, object), the session's unknown class left out."""
    text = (REPO / "docs" / "PROTOCOL.md").read_text()
    requests = [json.loads(line) for line in re.findall(r"^→ (\{.*\})$", text, re.M)]
    return ([("request", r) for r in requests if r["class"] != "frobnicate"]
            + [("message", m) for m in protocol_messages()])


def test_real_lines_validate_against_the_published_root():
    """Issue 51: the root's oneOf refused every line valid on both sides,
    a watch request and most watch replies among them ("is valid under each
    of"); a line of either side must validate against the root as published."""
    assert ROOT.META_SCHEMA["$id"].rstrip("#") == SCHEMA["$schema"].rstrip("#")
    lines = session_lines() + [
        ("request", {"class": "watch", "streams": ["frames"], "rate": 10}),
        ("request", {"class": "watch", "streams": ["frames", "events", "device", "status"], "latency": 10}),
        ("request", {"class": "watch"}), ("request", {"class": "unwatch"}), ("request", {"class": "status"}),
        ("message", {"class": "watch", "streams": ["frames"], "rate": 10.0, "fields": ["acc", "attitude"]}),
        ("message", {"class": "watch", "streams": []}),
        ("message", json.loads(FakeDaemon.HELLO)),
        ("message", {"class": "error", "code": "unknown-class", "message": "unknown request class", "request": "x"}),
    ]
    classes_seen = {obj["class"] for _, obj in lines}
    assert {"watch", "hello", "status", "frame", "error", "poll", "device", "zero"} <= classes_seen
    for side, obj in lines:
        assert problems(MESSAGE if side == "message" else REQUEST, obj) == [], obj
        assert problems(ROOT, obj) == [], obj


def test_the_published_root_refuses_a_malformed_line():
    for obj in [
        {"class": "frobnicate"},                                              # an unknown class
        {"class": "watch", "streams": ["frames", "nosuchstream"]},            # a stream that does not exist
        {"class": "watch", "streams": ["frames"], "rate": "fast"},
        {"class": "frame", "seq": 1, "t": 0.5, "acc": [0, 0, 1], "jerk": [0, 0, 0]},
        {"class": "frame", "seq": -1, "t": 0.5},
        {"class": "hello", "protocol": 3},                                    # no version, no device
        {"class": "status", "uptime": 1},                                     # neither a request nor a reply
        {"class": "error", "code": "oops", "message": "x"},
        {"class": "configure"},                                               # nothing to change
        {"streams": ["frames"]}, [], "watch", None,
    ]:
        assert problems(ROOT, obj), f"{obj!r} must not validate against the root"


def test_the_library_has_a_field_for_every_described_property():
    for name, schema in ((n, definition("message", n)) for n in WIRE_CLASSES if n in classes("message")):
        described = set(properties(schema)) - {"class"}
        assert described - wire_names(WIRE_CLASSES[name]) == set(), f"{name}: the library lacks these fields"
    nested = [(Device, properties(definition("message", "device"))), (Counters, SCHEMA["$defs"]["counters"]["properties"]),
              (SelfTestAxis, SCHEMA["$defs"]["axisResult"]["properties"]),
              (GyroscopeSelfTest, properties(definition("message", "selftest"))["gyroscope"]["properties"])]
    for cls, described in nested:
        assert set(described) - {"class"} - wire_names(cls) == set(), f"{cls.__name__}: the library lacks these fields"


def classes(side):
    names = set()
    for option in SCHEMA["$defs"][side]["oneOf"]:
        klass = properties(SCHEMA["$defs"][option["$ref"].split("/")[-1]])["class"]
        names.update([klass["const"]] if "const" in klass else klass["enum"])
    return names


def test_the_library_knows_every_described_message_class():
    assert classes("message") <= set(WIRE_CLASSES)


def test_the_fake_daemon_the_library_is_tested_against_speaks_the_description():
    assert problems(MESSAGE, json.loads(FakeDaemon.HELLO)) == []


def test_the_live_page_reads_the_described_classes_and_counters():
    app = (REPO / "Web" / "app.js").read_text()
    handled = set(re.findall(r'case "([a-z]+)":', app[app.index("switch (m.class)"):]))
    assert {"frame", "device", "status", "hello"} <= handled
    # "gateway" is the gateway's own message about its link, not acceld's.
    assert handled - {"gateway"} <= classes("message"), handled - classes("message")
    words = (REPO / "Web" / "words.js").read_text()
    block = words[words.index("const COUNTERS = {"):]
    named = set(re.findall(r"^\s+(\w+): \[", block[:block.index("};")], re.M))
    assert named == set(SCHEMA["$defs"]["counters"]["properties"]), "words.js names every counter status carries"


def test_the_librarys_requests_validate(start_daemon, monkeypatch):
    sent = []
    original = acceld.Motion._send

    def recording(self, request):
        sent.append(dict(request))
        return original(self, request)

    monkeypatch.setattr(acceld.Motion, "_send", recording)
    daemon = start_daemon("rest")
    with acceld.connect(daemon.socket) as motion:
        with motion.updates(("frames", "events", "device"), rate=10) as updates:
            next(updates)
        motion.poll(), motion.status(), motion.fetch_device(), motion.zero(), motion.reset_reference()
        motion.configure(rate=400)
        motion.configure(tunables={"shake.threshold": "1.5"})
        motion.calibrate(offset=(0.01, 0, 0), scale=(1, 1, 1))
        motion.calibrate(reset=True)
        motion.selftest()
        learned = motion.learn(2)
    assert isinstance(learned, acceld.Learned) and learned.blocks == 8 and 0 < learned.off_level < learned.idle < learned.running
    assert {r["class"] for r in sent} >= {"watch", "poll", "status", "device", "zero", "configure", "calibrate", "selftest", "learn"}
    for request in sent:
        assert problems(REQUEST, request) == [], request
        assert problems(ROOT, request) == [], request


@pytest.mark.parametrize("part", ["LIS3DH", "LSM6DSO"])
def test_every_line_a_running_daemon_writes_validates(start_daemon, part):
    """A sample of what the real daemon sends: every stream watched, every
    request made (a bad one too), each line validated as it comes."""
    daemon = start_daemon("demo", "--part", part)
    requests = [
        {"class": "watch", "streams": ["frames", "events", "device", "status"], "latency": 10},
        {"class": "poll"}, {"class": "status"}, {"class": "device"}, {"class": "zero"}, {"class": "zero", "reset": True},
        {"class": "configure", "rate": 208 if part == "LSM6DSO" else 200},
        {"class": "configure", "tunables": {"shake.threshold": 1.5}},
        {"class": "calibrate", "offset": [0.01, 0, 0], "scale": [1, 1, 1]}, {"class": "calibrate", "reset": True},
        {"class": "selftest"}, {"class": "frobnicate"},
    ]
    expected = {"hello", "watch", "poll", "status", "device", "zero", "configured", "calibration", "selftest", "error", "frame"}
    seen, checked, buffer = set(), 0, b""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(daemon.socket)
        s.settimeout(1.0)
        s.sendall(b"".join(json.dumps(r).encode() + b"\n" for r in requests) + b"not json\n")
        deadline = time.monotonic() + 60
        while not expected <= seen and time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                continue
            assert chunk, f"acceld closed the connection (seen {sorted(seen)})"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                obj = json.loads(line)
                assert problems(MESSAGE, obj) == [], line.decode()
                assert problems(ROOT, obj) == [], line.decode()        # the schema as published, too
                seen.add(obj["class"])
                checked += 1
    assert expected <= seen, f"no {sorted(expected - seen)} within 60 s"
    assert checked >= len(expected)
    for request in requests:                                           # what was sent, against the root
        assert bool(problems(ROOT, request)) == (request["class"] == "frobnicate"), request
