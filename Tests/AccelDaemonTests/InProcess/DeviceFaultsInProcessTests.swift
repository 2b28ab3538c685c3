// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelDriver
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A chip that fails, on the in-process daemon: what watching clients are
/// told of the device, and how the sequence numbers account for the outage.
/// The faults are acceld --fault's, injected at set instants of the chip's clock.
@Suite("Device faults, in process on virtual time")
struct DeviceFaultsInProcessTests {
    @Test("2 s of bus errors, then a chip reset: clients see device lost, back and reconfigured, and the sequence skips")
    func faults() throws {
        let daemon = try InProcessDaemon()
        let client = daemon.connect()
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["frames","device"]}"#)
        daemon.run(seconds: 1.5)
        daemon.model.fail(forSeconds: 2, errno: EIO)  // --fault eio@1.5+2
        daemon.run(seconds: 3.5)
        daemon.model.resetToPowerDown()  // --fault reset@5
        daemon.run(seconds: 2)
        var states: [String] = [], seqs: [Int] = []
        for message in client.readAll() {
            if message["class"] as? String == "device", let event = message["event"] as? String { states.append(event) }
            if let seq = message["seq"] as? Int { seqs.append(seq) }
        }
        #expect(states == ["lost", "back", "reconfigured"])
        // The outage's 200, up to 25 for the last back-off (250 ms), a few for the reset.
        let missing = gaps(in: seqs)
        #expect(missing >= 200 && missing <= 240, "2 s of samples (plus the retry back-off) missing: \(missing)")
        let status = try #require(client.request(#"{"class":"status"}"#))
        let counters = try #require(status["counters"] as? [String: Int])
        #expect(counters["lost"] == missing)
        #expect(counters["recoveries"] == 1 && counters["reconfigurations"] == 1)
    }
}
