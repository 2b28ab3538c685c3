// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
@testable import AccelDaemon
import AccelDriver
import Testing
import TestSupport

/// `learn`: the machine's off level and the idle threshold from it, on the
/// in-process daemon over the simulated machine (off for 2 s, then a
/// motor), on virtual time.
@Suite("Learning the off level, in process on virtual time")
struct LearnInProcessTests {
    func daemon(_ text: String = "") throws -> InProcessDaemon {
        let configuration = try Configuration(parsing: text)
        return try InProcessDaemon(part: .lsm6dso, motion: VibrationMotion.machine(), rate: 1660, range: 16, vibration: configuration.vibration)
    }

    /// A client watching the machine's state that asked to learn over
    /// `seconds`, and the daemon run `running` seconds on.
    func learning(_ daemon: InProcessDaemon, seconds: Double, running: Double) throws -> InProcessClient {
        let client = daemon.connect()
        _ = client.readMessage()
        _ = try #require(client.request(#"{"class":"watch","streams":["machine"]}"#))
        client.send(#"{"class":"learn","seconds":\#(seconds)}"# + "\n")
        daemon.run(seconds: running)
        return client
    }

    @Test("learned while the machine is off: the reply gives the off level and the thresholds, and the machine's start is still seen on them")
    func learned() throws {
        let daemon = try daemon()
        let client = try learning(daemon, seconds: 2, running: 2.1)
        let learned = try #require(client.next("learned"))
        let offLevel = try #require(learned["offLevel"] as? Double), idle = try #require(learned["idle"] as? Double)
        #expect(offLevel > 0 && offLevel < 0.02, "the LSM6DSO's noise at rest: \(learned)")
        #expect(learned["blocks"] as? Int == 8)
        #expect(abs(idle - offLevel * 1.5 / 0.7) < 1e-4 && learned["running"] as? Double == 0.1, "\(learned)")
        #expect(abs(daemon.hub.vibration.base.state.idle - idle) < 1e-5, "the thresholds the windows are checked against")
        daemon.run(seconds: 5)
        let changes = client.readAll().filter { $0["class"] as? String == "machine" }.compactMap { $0["state"] as? String }
        #expect(changes == ["running"], "off until the motor starts at 2 s: \(changes)")
    }

    @Test("a learn while the machine runs is refused at once, and one the machine starts during fails, each saying why; the connection stays up")
    func whileRunning() throws {
        let daemon = try daemon()
        let client = try learning(daemon, seconds: 4, running: 4.5)
        let ran = try #require(client.next("error"))
        #expect(ran["code"] as? String == "machine-running" && (ran["message"] as? String ?? "").contains("ran while"), "\(ran)")
        client.send(#"{"class":"learn"}"# + "\n")
        daemon.run(seconds: 0.1)
        let refused = try #require(client.next("error"))
        #expect(refused["code"] as? String == "machine-running" && (refused["message"] as? String ?? "").contains("learn its off level while it is off"), "\(refused)")
        client.send(#"{"class":"status"}"# + "\n")
        #expect(client.next("status") != nil, "the connection stays up")
        #expect(daemon.hub.vibration.base.state.idle == 0.05, "nothing learned")
    }

    @Test("learn is privileged, and its span is checked", arguments: [
        (#"{"class":"learn","seconds":1}"#, "bad-field", "between 2.0 and 600.0"),
        (#"{"class":"learn","seconds":"long"}"#, "bad-field", "must be a number"),
    ])
    func refusals(request: String, code: String, says: String) throws {
        let daemon = try daemon()
        let owner = daemon.connect(), nobody = daemon.connect(as: InProcessDaemon.nobody)
        _ = owner.readMessage()
        _ = nobody.readMessage()
        let reply = try #require(owner.request(request))
        #expect(reply["code"] as? String == code && (reply["message"] as? String ?? "").contains(says), "\(reply)")
        let stranger = try #require(nobody.request(#"{"class":"learn"}"#))
        #expect(stranger["code"] as? String == "not-permitted", "\(stranger)")
    }

    @Test("[vibration] idle-threshold = learn: the first quiet span at start gives the idle threshold; a reload takes the file's again")
    func atStart() throws {
        let daemon = try daemon("[vibration]\nidle-threshold = learn\n")
        daemon.hub.vibration.learn(seconds: 2, rate: 1660, atStart: true) { _ in }
        daemon.run(seconds: 2.1)
        let learned = daemon.hub.vibration.base.state
        #expect(learned.idle < 0.05 && !learned.learnAtStart, "\(learned)")
        daemon.hub.vibration.reconfigure(try Configuration(parsing: "[vibration]\nidle-threshold = 0.07\nrunning-threshold = 0.2\n").vibration)
        daemon.run(seconds: 0.1)
        #expect(daemon.hub.vibration.base.state.idle == 0.07)
    }
}
