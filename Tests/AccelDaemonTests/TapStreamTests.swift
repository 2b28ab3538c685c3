// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

/// The `tap` stream through the real daemon: a client watching `events`
/// gets a double tap knocked on the (simulated) chip.
@Suite("acceld tap stream")
struct TapStreamTests {
    @Test("two knocks 0.2 s apart on a still board reach an events watcher as one double tap")
    func doubleTap() throws {
        let script = MotionScript(name: "double tap", segments: [
            .hold(Vector3(0, 0, 1), seconds: 1.5),
            .impact(base: Vector3(0, 0, 1), axis: Vector3(0, 0, -1), peak: 1.5, seconds: 0.02),
            .hold(Vector3(0, 0, 1), seconds: 0.18),
            .impact(base: Vector3(0, 0, 1), axis: Vector3(0, 0, -1), peak: 1.5, seconds: 0.02),
            .hold(Vector3(0, 0, 1), seconds: 3),
        ], loops: false)
        let path = try writeTrace(script, comment: "a double tap for the end-to-end tests", to: scratchDirectory() + "/doubletap.csv")
        let daemon = try DaemonProcess(["--simulate", path])
        let client = try LineClient(path: daemon.socketPath)
        _ = try #require(client.readMessage())
        let ack = try #require(client.request(#"{"class":"watch","streams":["events"]}"#))
        #expect((ack["streams"] as? [String])?.contains("tap") == true, "\(ack)")
        var taps: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(8)
        while Date() < deadline, taps.isEmpty {
            guard let message = client.readMessage(timeout: 2) else { continue }
            if message["class"] as? String == "tap" { taps.append(message) }
        }
        let tap = try #require(taps.first)
        #expect(tap["count"] as? Int == 2)
        #expect(tap["direction"] as? String == "-z")
        daemon.stop()
    }
}
