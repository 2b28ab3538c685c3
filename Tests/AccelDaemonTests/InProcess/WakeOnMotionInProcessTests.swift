// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelDriver
import AccelParts
import Testing
import TestSupport

/// [power] wake-on-motion on the in-process daemon, paced by the chip
/// model's INT1 (acceld --interrupt model --wake-on-motion --still-seconds 1),
/// as a client sees it: the device stream tells of each sleep and wake-up,
/// the first event after a wake-up by the chip says so, and a frames
/// watcher keeps it awake.
@Suite("Wake-on-motion, in process on virtual time")
struct WakeOnMotionInProcessTests {
    @Test("an events watcher on a board shaken every 4 s: asleep, awake by the chip, and the next event says \"wake\":\"chip\"")
    func sleepsBetweenShakes() throws {
        let daemon = try InProcessDaemon(part: .lis3dh, motion: MotionScript.shake(), interrupt: true,
                                         wakeOnMotion: WakeOnMotion(stillSeconds: 1, threshold: 0.1))
        let client = daemon.connect()
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["events","device"]}"#)
        daemon.run(seconds: 12)
        var seen: [String] = []
        var marked: [String: Any]?
        for message in client.readAll() {
            guard let kind = message["class"] as? String else { continue }
            if kind == "device", let event = message["event"] as? String {
                seen.append(event)
                #expect(message["state"] as? String == (event == "asleep" ? "asleep" : "ok"))
            } else if message["wake"] != nil && marked == nil {
                marked = message
                #expect(seen.last == "awake", "the marked event follows the wake-up: \(seen)")
            }
        }
        #expect(Array(seen.prefix(2)) == ["asleep", "awake"], "\(seen)")
        let event = try #require(marked, "an event marked after the wake-up: \(seen)")
        #expect(event["wake"] as? String == "chip")
        let counters = try #require(client.request(#"{"class":"status"}"#)?["counters"] as? [String: Int])
        #expect(counters["sleeps"]! >= 1 && counters["wakeUps"]! >= 1 && counters["lost"] == 0)
    }

    @Test("a frames watcher keeps it awake: frames on, numbered without a gap, and no sleep")
    func framesKeepItAwake() throws {
        let daemon = try InProcessDaemon(interrupt: true, wakeOnMotion: WakeOnMotion(stillSeconds: 1, threshold: 0.1))
        let client = daemon.connect()
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["frames","device"]}"#)
        daemon.run(seconds: 3)  // three times the still time
        let messages = client.readAll()
        #expect(!messages.contains { $0["event"] as? String == "asleep" })
        let seqs = messages.compactMap { $0["seq"] as? Int }
        #expect(seqs.count >= 290 && gaps(in: seqs) == daemon.sampler.counters.lost, "\(seqs.count) frames")
    }
}
