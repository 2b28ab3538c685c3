// SPDX-License-Identifier: Apache-2.0
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
        // Until a frame turning at the tour's 90°/s, then one held still after it.
        var turning: [String: Any]?, settled: [String: Any]?
        var frames = 0
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, settled == nil {
            guard let frame = client.readMessage(timeout: 2), frame["class"] as? String == "frame" else { continue }
            frames += 1
            let rate = (frame["rotationRate"] as? [Double]) ?? []
            #expect(rate.count == 3 && (frame["quaternion"] as? [Double])?.count == 4 && frame["yaw"] is Double, "\(frame)")
            let speed = length(rate)
            if speed > 1.5 { turning = frame } else if turning != nil && speed < 0.02 { settled = frame }
        }
        let turn = try #require(turning, "no frame turning in \(frames) frames")
        let speed = length(turn["rotationRate"] as! [Double])
        #expect(abs(speed - .pi / 2) < 0.03, "the tour turns at 90°/s: \(speed) rad/s")
        // At rest after the turn the fused gravity is the accelerometer's.
        let still = try #require(settled)
        let acc = still["acc"] as! [Double], gravity = still["gravity"] as! [Double]
        let product: Double = zip(acc, gravity).map { $0 * $1 }.reduce(0, +)
        let dot = product / (length(acc) * length(gravity))
        #expect(acos(min(dot, 1)) * 180 / .pi < 2, "fused gravity \(gravity) against the accelerometer \(acc)")
    }
}

private func length(_ v: [Double]) -> Double { v.map { $0 * $0 }.reduce(0, +).squareRoot() }
