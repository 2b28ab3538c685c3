// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// A flat calibration asked for over the socket while a client watches:
/// the control side installs the collector on the sampler's thread, the
/// reads feed it, and the result comes back as a reply, with frames
/// flowing all along. Run by the ThreadSanitizer stage too, on the
/// timer's path and on the interrupt's.
@Suite("Flat calibration through the socket", .serialized, .ownThread)
struct FlatCalibrationEndToEndTests {
    @Test("calibrate with the board flat: the offset the chip model was given, within its noise; frames keep coming",
          arguments: [nil, "model"])
    func calibrateFlat(interrupt: String?) throws {
        let daemon = try SocketDaemon(simulate: "rest", rate: 400, interrupt: interrupt)
        let watcher = try LineClient(path: daemon.socketPath)
        _ = watcher.readMessage()
        _ = watcher.request(#"{"class":"watch","streams":["frames"]}"#)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        let reply = try #require(client.request(#"{"class":"calibrate","seconds":0.5}"#, timeout: 30))
        #expect(reply["class"] as? String == "calibration", "\(reply)")
        let offset = try #require(reply["offset"] as? [Double])
        // acceld's chip model: offset (0.012, -0.008, 0.018) g, 18 mg digits, noise 4 mg.
        for (measured, given) in zip(offset, [0.012, -0.008, 0.018]) {
            #expect(abs(measured - given) < 0.02, "\(offset)")
        }
        var seqs: [Int] = []
        while seqs.count < 50, let frame = watcher.next("frame", timeout: 5) { seqs.append(frame["seq"] as! Int) }
        #expect(seqs.count == 50, "frames after the calibration")
        #expect(gaps(in: seqs) <= daemonLost(daemon.socketPath))
        daemon.stop()
    }
}
