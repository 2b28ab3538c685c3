// SPDX-License-Identifier: Apache-2.0
import AccelCore
@testable import AccelDaemon
@testable import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Foundation
import Testing
import TestSupport

/// acceld on a six-axis part's chip model: the gyroscope reaches the
/// socket through the real daemon.
@Suite("acceld with a gyroscope", .daemons)
struct SixAxisDaemonTests {
    @Test("the hello says the gyroscope's range; frames carry its rate and the fused attitude through the tour's turns")
    func tour() throws {
        let daemon = try DaemonProcess(["--simulate", "tour", "--part", "LSM6DSO", "--rate", "104"])
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.readMessage())
        let device = try #require(hello["device"] as? [String: Any])
        #expect(device["chip"] as? String == "LSM6DSO" && device["gyroscope"] as? Int == 2000 && device["rate"] as? Int == 104)
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        // Until a frame turning at the tour's 90°/s, then half a second
        // (52 frames) held still after it.
        var turning: [String: Any]?, still: [[String: Any]] = []
        var frames = 0
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, still.count < 52 {
            guard let frame = client.readMessage(timeout: 2), frame["class"] as? String == "frame" else { continue }
            frames += 1
            let rate = (frame["rotationRate"] as? [Double]) ?? []
            #expect(rate.count == 3 && (frame["quaternion"] as? [Double])?.count == 4 && frame["yaw"] is Double, "\(frame)")
            let speed = length(rate)
            if speed > 1.5 { turning = frame; still = [] } else if turning != nil { still = speed < 0.02 ? still + [frame] : [] }
        }
        let turn = try #require(turning, "no frame turning in \(frames) frames")
        let speed = length(turn["rotationRate"] as! [Double])
        #expect(abs(speed - .pi / 2) < 0.03, "the tour turns at 90°/s: \(speed) rad/s")
        // At rest after the turn the fused gravity is the accelerometer's:
        // its average over the half second (one sample's noise is about 1°).
        try #require(still.count == 52, "no half second still after the turn in \(frames) frames")
        let acc = (0..<3).map { axis in still.map { ($0["acc"] as! [Double])[axis] }.reduce(0, +) / Double(still.count) }
        let gravity = still.last!["gravity"] as! [Double]
        let product: Double = zip(acc, gravity).map { $0 * $1 }.reduce(0, +)
        let dot = product / (length(acc) * length(gravity))
        #expect(acos(min(dot, 1)) * 180 / .pi < 2, "fused gravity \(gravity) against the accelerometer's average \(acc)")
    }
}

@Suite("selftest over the socket on a six-axis part", .daemons)
struct SixAxisSelfTestRequestTests {
    @Test("the reply has the gyroscope's self-test beside the accelerometer's: each axis moved within ST's 150 to 700 dps at ±2000 dps; frames go on after it")
    func gyroscopeToo() throws {
        let daemon = try DaemonProcess(["--simulate", "rest", "--part", "LSM6DSO"])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        let reply = try #require(client.request(#"{"class":"selftest"}"#, timeout: 30))
        #expect(reply["class"] as? String == "selftest" && reply["passed"] as? Bool == true && (reply["axes"] as? [Any])?.count == 3, "\(reply)")
        let gyroscope = try #require(reply["gyroscope"] as? [String: Any], "\(reply)")
        let axes = gyroscope["axes"] as? [[String: Any]] ?? []
        #expect(gyroscope["passed"] as? Bool == true && gyroscope["range"] as? Int == 2000 && axes.count == 3, "\(gyroscope)")
        for axis in axes {
            let delta = abs(axis["delta"] as? Double ?? 0)
            #expect(delta >= 150 && delta <= 700 && axis["min"] as? Double == 150 && axis["max"] as? Double == 700, "\(axis)")
        }
        _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
        let frame = client.readMessage(timeout: 10)
        #expect(frame?["class"] as? String == "frame" && frame?["rotationRate"] != nil, "sampling resumes with the gyroscope: \(frame ?? [:])")
        daemon.stop()
    }
}

@Suite("The selftest reply's verdict")
struct SelfTestVerdictTests {
    @Test("it passes only when the accelerometer and the gyroscope both pass")
    func both() {
        let accelerometer = SelfTestReport(part: "LSM6DSO", range: 2, mode: "high-performance", axes: Axis.allCases.map {
            SelfTestReport.AxisResult(axis: $0, normal: 0, selfTest: 14_000, delta: 14_000, limits: 820...27_869, magnitudeOnly: true)
        })
        func gyroscope(y: Double) -> GyroscopeSelfTestReport {
            GyroscopeSelfTestReport(part: "LSM6DSO", range: 2000, axes: Axis.allCases.map {
                GyroscopeSelfTestReport.AxisResult(axis: $0, normal: 0, selfTest: $0 == .y ? y : 425, limits: 150...700)
            })
        }
        #expect(SelfTestReply(accelerometer, gyroscope: gyroscope(y: 425)).passed)
        let weak = SelfTestReply(accelerometer, gyroscope: gyroscope(y: 100))
        #expect(!weak.passed && weak.axes.allSatisfy(\.passed) && weak.gyroscope?.axes[1].passed == false)
        #expect(weak.gyroscope?.axes[1].diagnosis.contains("too little") == true)
        #expect(SelfTestReply(accelerometer, gyroscope: nil).passed && SelfTestReply(accelerometer, gyroscope: nil).gyroscope == nil)
    }
}

private func length(_ v: [Double]) -> Double { v.map { $0 * $0 }.reduce(0, +).squareRoot() }

/// Issue #28's yaw target on the chip model: an LSM6DSO with its
/// datasheet's typical zero-rate level (±1 dps) and rate noise
/// (3.8 mdps/√Hz, 0.027 dps rms at 104 Hz), still on a table.
@Suite("The fusion on the chip model")
struct FusionOnChipModelTests {
    @Test("at rest with the datasheet's offset, yaw drifts under 1° a minute once the fusion has learnt it")
    func yawDrift() throws {
        let time = VirtualTime()
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeOffset = Vector3(1, -1, 1)
        imperfections.gyroscopeNoise = 0.0038 * (104.0 / 2).squareRoot()
        imperfections.noise = 0.0007
        let model = ChipModel(profile: .lsm6dso, motion: MotionScript(name: "table", segments: [.hold(Vector3(0, 0, 1), seconds: 1)]),
                              time: time, imperfections: imperfections)
        let driver = try Accelerometer(bus: model, time: time, part: .lsm6dso)
        try driver.configure(DeviceConfiguration(range: 2, rate: 104))
        var pipeline = MotionPipeline(gyroscopeRange: driver.rotationRange!)
        var events: [MotionEvent] = []
        var yaw: [Double] = []
        for seq in 0..<(104 * 120) {
            let reading = try driver.nextReading()
            let frame = pipeline.process(Sample(seq: UInt64(seq), t: time.seconds, counts: reading.counts, g: driver.acceleration(reading.counts),
                                                rotationRate: reading.rotation.flatMap(driver.rotationRate)), events: &events)
            yaw.append(frame.attitude.yaw * 180 / .pi)
        }
        let drift = yaw[yaw.count - 1] - yaw[104 * 60]
        print("yaw drift on the chip model in the second minute, with 1°/s of offset: \(drift)°; the first minute: \(yaw[104 * 60] - yaw[0])°")
        #expect(abs(drift) <= 1, "\(drift)° in the second minute")
    }
}
