# SPDX-License-Identifier: Apache-2.0
"""Gyroscope updates (Core Motion's startGyroUpdates, gyroData) against a
fake daemon serving a six-axis part, and one serving a LIS302DL."""
import json

import pytest

import acceld
from conftest import wait_for

SIX_AXIS = ('{"class":"hello","protocol":2,"version":"9.9.9","device":{"chip":"LSM6DSO","location":"fake",'
            '"range":2,"rate":104,"mode":"high-performance","resolution":16,"gyroscope":2000,"state":"ok"}}')


def watch_reply(request):
    if request["class"] == "watch":
        return [json.dumps({"class": "watch", "streams": request["streams"], "rate": 104.0})]
    if request["class"] == "unwatch":
        return ['{"class":"watch","streams":[]}']
    return []


def turning(seq):
    return (f'{{"class":"frame","seq":{seq},"t":{seq / 104:.6f},"acc":[0.0,0.0,1.0],'
            f'"rotationRate":[0.1,-0.2,{seq / 100:.5f}]}}')


def test_push_and_pull_give_each_frames_rotation_rate(fake_daemon):
    fake = fake_daemon(watch_reply, hello=SIX_AXIS)
    with acceld.connect(fake.path) as motion:
        assert motion.is_gyro_available and not motion.is_gyro_active
        frames = []
        motion.start_gyro_updates(frames.append)
        assert motion.is_gyro_active
        assert "frames" in fake.requests[-1]["streams"]
        for seq in (1, 2, 3):
            fake.send(turning(seq))
        wait_for(lambda: len(frames) == 3, 5, "three frames")
        assert [f.seq for f in frames] == [1, 2, 3]
        assert frames[-1].rotation_rate == (0.1, -0.2, 0.03)
        assert motion.gyro_data.seq == 3                 # pull: the latest
        motion.stop_gyro_updates()
        assert not motion.is_gyro_active


def test_a_part_without_a_gyroscope_refuses_gyro_updates(fake_daemon):
    fake = fake_daemon(watch_reply)                      # the LIS302DL
    with acceld.connect(fake.path) as motion:
        assert not motion.is_gyro_available
        with pytest.raises(acceld.NoGyroscope, match="LIS302DL acceld serves has no gyroscope"):
            motion.start_gyro_updates(lambda frame: None)
        assert not motion.is_gyro_active
        assert all(r["class"] != "watch" for r in fake.requests)
