// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
@testable import AccelDaemon
import AccelCore
import AccelDriver
import Testing
import TestSupport

/// Requests and replies on the in-process daemon: configure, privileges,
/// and what hostile input gets, with a watcher alongside to show that the
/// others are unaffected. (The privilege check through a real socket's
/// SO_PEERCRED stays end to end: DaemonEndToEndTests.)
@Suite("Requests, in process on virtual time")
struct RequestsInProcessTests {
    @Test("a privileged configure changes the range, and the device message and the next hello say so")
    func configure() throws {
        let daemon = try InProcessDaemon()
        let client = daemon.connect()
        _ = client.readMessage()
        let reply = try #require(client.request(#"{"class":"configure","range":8,"rate":400}"#))
        #expect(reply["class"] as? String == "device", "\(reply)")
        #expect(reply["range"] as? Int == 8 && reply["rate"] as? Int == 400)
        let hello = try #require(daemon.connect().readMessage())
        let device = try #require(hello["device"] as? [String: Any])
        #expect(device["range"] as? Int == 8 && device["rate"] as? Int == 400)
        let bad = try #require(client.request(#"{"class":"configure","range":4}"#))
        #expect(bad["code"] as? String == "device-error")
        #expect((bad["message"] as? String)?.contains("choose one of ±2 g, ±8 g") == true)
    }

    @Test("an unprivileged client is refused configure, calibrate and selftest, naming who may, and may still ask status and watch")
    func unprivileged() throws {
        let daemon = try InProcessDaemon()
        let client = daemon.connect(as: InProcessDaemon.nobody)
        _ = client.readMessage()
        for request in [#"{"class":"configure","range":8}"#, #"{"class":"calibrate"}"#, #"{"class":"selftest"}"#] {
            let reply = try #require(client.request(request))
            #expect(reply["code"] as? String == "not-permitted", "\(request): \(reply)")
            #expect((reply["message"] as? String)?.contains("not to uid 65534") == true)
        }
        #expect(client.request(#"{"class":"status"}"#)?["class"] as? String == "status")
        #expect(client.request(#"{"class":"watch","streams":["frames"]}"#)?["class"] as? String == "watch")
        daemon.run(seconds: 0.1)
        #expect(client.next("frame") != nil)
        let device = try #require(daemon.connect().readMessage()?["device"] as? [String: Any])
        #expect(device["range"] as? Int == 2, "the refused configure changed nothing")
    }

    @Test("malformed JSON, unknown requests, a 1 MB line and random bytes get errors; the connection and other clients are unaffected")
    func hostileInput() throws {
        let daemon = try InProcessDaemon()
        let watcher = try watchingFrames(daemon)
        let hostile = daemon.connect()
        _ = hostile.readMessage()
        #expect(hostile.request("{not json")?["code"] as? String == "bad-json")
        #expect(hostile.request(#"{"class":"explode"}"#)?["code"] as? String == "unknown-class")
        #expect(hostile.request(#"[1,2,3]"#)?["code"] as? String == "not-an-object")
        #expect(hostile.request(#"{"class":"watch","streams":["everything"]}"#)?["code"] as? String == "bad-field")
        #expect(hostile.request(#"{"class":"watch","rate":"fast"}"#)?["code"] as? String == "bad-field")
        hostile.send(String(repeating: "x", count: 1 << 20) + "\n")
        #expect(hostile.next("error")?["code"] as? String == "line-too-long")
        var generator = SeededRandom(seed: 7)
        hostile.sendBytes((0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) } + [0x0A])
        // Random bytes: every line gets an error or is skipped; then it still works.
        hostile.send(#"{"class":"status"}"# + "\n")
        #expect(hostile.next("status") != nil)
        daemon.run(seconds: 1)
        let seqs = watcher.readAll().compactMap { $0["seq"] as? Int }
        #expect(seqs.count >= 99 && gaps(in: seqs) == 0, "the watcher's frames kept coming, contiguous")
    }

    @Test("10,000 malformed requests get 10,000 errors; the connection and a watcher are unaffected")
    func malformedFlood() throws {
        let daemon = try InProcessDaemon()
        let watcher = try watchingFrames(daemon)
        let hostile = daemon.connect()
        _ = hostile.readMessage()
        let kinds = ["{bad", "[]", "{\"class\":7}", "{\"class\":\"nope\"}", "\"just a string\"", "{\"class\":\"watch\",\"rate\":-1}"]
        var flood = ""
        for i in 0..<10_000 { flood += kinds[i % kinds.count] + "\n" }
        hostile.send(flood)
        #expect(hostile.readAll().filter { $0["class"] as? String == "error" }.count == 10_000)
        #expect(hostile.request(#"{"class":"status"}"#)?["class"] as? String == "status", "the same connection still works")
        daemon.run(seconds: 1)
        let seqs = watcher.readAll().compactMap { $0["seq"] as? Int }
        #expect(seqs.count >= 99 && gaps(in: seqs) == 0)
    }

    @Test("configure changes the pipeline's tunables on the same connection; a misspelt key gets a hint, a key fixed at start a refusal")
    func tunables() throws {
        // The drop script falls for 0.5 s every 3 s.
        let daemon = try InProcessDaemon(motion: MotionScript.drop())
        let client = daemon.connect()
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["freefall"]}"#)
        func falls(within seconds: Double) -> Int {
            daemon.run(seconds: seconds)
            return client.readAll().filter { $0["class"] as? String == "freefall" && $0["phase"] as? String == "start" }.count
        }
        #expect(falls(within: 3.2) >= 1, "the default minimum catches a 0.5 s fall")
        let reply = try #require(client.request(#"{"class":"configure","tunables":{"freefall.minimum-seconds":5}}"#))
        #expect(reply["class"] as? String == "configured", "\(reply)")
        #expect(falls(within: 3.2) == 0, "a 0.5 s fall is shorter than 5 s")
        let typo = try #require(client.request(#"{"class":"configure","tunables":{"shake.treshold":2}}"#))
        #expect((typo["message"] as? String)?.contains("did you mean 'shake.threshold'?") == true, "\(typo)")
        let fixed = try #require(client.request(#"{"class":"configure","tunables":{"device.bus":2}}"#))
        #expect((fixed["message"] as? String)?.contains("cannot change at run time") == true)
    }

    @Test("calibrate with the board flat: the offset the chip model was given, within its noise, saved; frames keep coming")
    func calibrateFlat() throws {
        let path = scratchDirectory() + "/calibration.json"
        let daemon = try InProcessDaemon(rate: 400, calibrationFile: path)
        let watcher = try watchingFrames(daemon)
        let client = daemon.connect()
        _ = client.readMessage()
        client.send(#"{"class":"calibrate","seconds":0.5}"# + "\n")
        #expect(client.readMessage() == nil, "the reply waits for 0.5 s of readings")
        daemon.run(seconds: 1)
        let reply = try #require(client.next("calibration"))
        let offset = try #require(reply["offset"] as? [Double])
        // The simulated chip: offset (0.012, -0.008, 0.018) g, 18 mg digits, noise 4 mg.
        for (measured, given) in zip(offset, [0.012, -0.008, 0.018]) {
            #expect(abs(measured - given) < 0.02, "\(offset)")
        }
        let saved = try #require(try CalibrationStore(path: path).load(), "saved to \(path)")
        #expect(reply["file"] as? String == path)
        #expect(zip([saved.offset.x, saved.offset.y, saved.offset.z], offset).allSatisfy { abs($0 - $1) < 1e-3 }, "saved \(saved.offset)")
        let seqs = watcher.readAll().compactMap { $0["seq"] as? Int }
        #expect(seqs.count >= 399 && gaps(in: seqs) == 0, "frames all along: \(seqs.count)")
    }

    @Test("status counts the clients and the uptime on the daemon's clock")
    func statusOnTheDaemonsClock() throws {
        let daemon = try InProcessDaemon()
        let client = daemon.connect()
        _ = daemon.connect()
        _ = client.readMessage()
        daemon.run(seconds: 5)
        let status = try #require(client.request(#"{"class":"status"}"#))
        #expect(status["clients"] as? Int == 2)
        let uptime = try #require(status["uptime"] as? Double)
        #expect(abs(uptime - 5) < 0.02, "5 s of the daemon's clock: \(uptime)")
        let counters = try #require(status["counters"] as? [String: Int])
        #expect((counters["published"] ?? 0) >= 495)
    }
}

/// A client of the in-process daemon that has read hello and watches every
/// frame, after the phase lock has settled (from then on no sample is lost).
func watchingFrames(_ daemon: InProcessDaemon) throws -> InProcessClient {
    daemon.run(seconds: 0.5)
    let client = daemon.connect()
    _ = client.readMessage()
    try #require(client.request(#"{"class":"watch","streams":["frames"]}"#)?["class"] as? String == "watch")
    return client
}
