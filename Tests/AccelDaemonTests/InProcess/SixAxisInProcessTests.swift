// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import Foundation
import Testing
import TestSupport

/// A six-axis part (the LSM6DSO's chip model) on the in-process daemon:
/// the gyroscope in hello, frames and the fused attitude, its self-test in
/// the selftest reply, its stored offset kept by a calibrate request.
@Suite("A gyroscope, in process on virtual time")
struct SixAxisInProcessTests {
    @Test("the hello says the gyroscope's range; frames carry its rate and the fused attitude through the tour's turns")
    func tour() throws {
        let daemon = try InProcessDaemon(part: .lsm6dso, motion: try DeviceSource.motion(named: "tour", playedBy: .lsm6dso), rate: 104)
        let client = daemon.connect()
        let device = try #require(client.readMessage()?["device"] as? [String: Any])
        #expect(device["chip"] as? String == "LSM6DSO" && device["gyroscope"] as? Int == 2000 && device["rate"] as? Int == 104)
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        // A frame turning at the tour's 90°/s, then half a second (52 frames) held still after it.
        var turning: [String: Any]?, still: [[String: Any]] = []
        for _ in 0..<60 where still.count < 52 {
            daemon.run(seconds: 0.5)
            for frame in client.readAll() where frame["class"] as? String == "frame" && still.count < 52 {
                let rate = (frame["rotationRate"] as? [Double]) ?? []
                #expect(rate.count == 3 && (frame["quaternion"] as? [Double])?.count == 4 && frame["yaw"] is Double, "\(frame)")
                let speed = length(rate)
                if speed > 1.5 { turning = frame; still = [] } else if turning != nil { still = speed < 0.02 ? still + [frame] : [] }
            }
        }
        let turn = try #require(turning, "no frame turning")
        let speed = length(turn["rotationRate"] as! [Double])
        #expect(abs(speed - .pi / 2) < 0.03, "the tour turns at 90°/s: \(speed) rad/s")
        // At rest after the turn the fused gravity is the accelerometer's:
        // its average over the half second (one sample's noise is about 1°).
        try #require(still.count == 52, "no half second still after the turn")
        let acc = (0..<3).map { axis in still.map { ($0["acc"] as! [Double])[axis] }.reduce(0, +) / Double(still.count) }
        let gravity = still.last!["gravity"] as! [Double]
        let dot = zip(acc, gravity).map { $0 * $1 }.reduce(0, +) / (length(acc) * length(gravity))
        #expect(acos(min(dot, 1)) * 180 / .pi < 2, "fused gravity \(gravity) against the accelerometer's average \(acc)")
    }

    @Test("the selftest reply has the gyroscope's self-test beside the accelerometer's: each axis moved within ST's 150 to 700 dps at ±2000 dps; frames go on after it")
    func selfTest() throws {
        let daemon = try InProcessDaemon(part: .lsm6dso, rate: 104)
        let client = daemon.connect()
        _ = client.readMessage()
        let reply = try #require(client.request(#"{"class":"selftest"}"#))
        #expect(reply["class"] as? String == "selftest" && reply["passed"] as? Bool == true && (reply["axes"] as? [Any])?.count == 3, "\(reply)")
        let gyroscope = try #require(reply["gyroscope"] as? [String: Any], "\(reply)")
        let axes = gyroscope["axes"] as? [[String: Any]] ?? []
        #expect(gyroscope["passed"] as? Bool == true && gyroscope["range"] as? Int == 2000 && axes.count == 3, "\(gyroscope)")
        for axis in axes {
            let delta = abs(axis["delta"] as? Double ?? 0)
            #expect(delta >= 150 && delta <= 700 && axis["min"] as? Double == 150 && axis["max"] as? Double == 700, "\(axis)")
        }
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        daemon.run(seconds: 0.1)
        let frame = client.next("frame")
        #expect(frame?["rotationRate"] != nil, "sampling resumes with the gyroscope: \(frame ?? [:])")
    }

    @Test("a calibrate request sets the accelerometer's offset and keeps the gyroscope's that accelctl stored")
    func calibrateRequestKeepsTheGyroscopesOffset() throws {
        let path = scratchDirectory() + "/calibration.json"
        try CalibrationStore(path: path).save(Calibration(gyroscopeOffset: Vector3(0.7, -1.2, 2.1)))
        let daemon = try InProcessDaemon(part: .lsm6dso, rate: 104, calibrationFile: path)
        let client = daemon.connect()
        #expect(client.readMessage()?["class"] as? String == "hello")
        let reply = client.request(#"{"class":"calibrate","offset":[0.01,0.02,0.03],"scale":[1,1,1]}"#)
        #expect(reply?["class"] as? String == "calibration", "\(String(describing: reply))")
        let stored = try #require(try CalibrationStore(path: path).load())
        #expect(stored.offset == Vector3(0.01, 0.02, 0.03) && stored.gyroscopeOffset == Vector3(0.7, -1.2, 2.1))
    }
}

private func length(_ v: [Double]) -> Double { v.map { $0 * $0 }.reduce(0, +).squareRoot() }
