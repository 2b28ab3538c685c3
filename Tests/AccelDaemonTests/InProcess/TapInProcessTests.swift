// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import Testing
import TestSupport

/// The `tap` stream on the in-process daemon: a client watching `events`
/// gets a double tap knocked on the chip model. (On virtual time no knock
/// is lost to a starved host: no retries.)
@Suite("Tap stream, in process on virtual time")
struct TapInProcessTests {
    @Test("two knocks 0.2 s apart on a still board reach an events watcher as one double tap")
    func doubleTap() throws {
        let daemon = try InProcessDaemon(motion: doubleTapScript())
        let client = daemon.connect()
        _ = try #require(client.readMessage())
        let ack = try #require(client.request(#"{"class":"watch","streams":["events"]}"#))
        #expect((ack["streams"] as? [String])?.contains("tap") == true, "\(ack)")
        daemon.run(seconds: 4)
        let taps = client.readAll().filter { $0["class"] as? String == "tap" }
        #expect(taps.count == 1, "\(taps)")
        let tap = try #require(taps.first)
        #expect(tap["count"] as? Int == 2, "\(tap)")
        #expect(tap["direction"] as? String == "-z")
    }
}
