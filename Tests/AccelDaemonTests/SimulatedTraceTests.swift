// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import Foundation
import Testing
import TestSupport

/// `acceld --simulate TRACE`: hello says where the trace's time 0 lies on
/// the clock of every `t`, a `device` event `trace-end` says when it
/// ended, and `--loop` plays it again. Judged on what each frame's `t`
/// says, never on how many frames a busy host let through.
@Suite("acceld --simulate TRACE: its time 0, its end, --loop")
struct SimulatedTraceTests {
    /// Flat (+Z up) for half a second, then on its side (+X up) for the other half.
    private func halfAndHalf() throws -> String {
        try temporaryFile("t,x,y,z\n0,0,0,1\n0.5,0,0,1\n0.51,1,0,0\n1,1,0,0\n", name: "half-and-half.csv")
    }

    /// Where a frame's acceleration points: "z" flat, "x" on its side.
    private func side(_ frame: [String: Any]) -> String? {
        guard let acc = frame["acc"] as? [Double] else { return nil }
        if abs(acc[2] - 1) < 0.1 && abs(acc[0]) < 0.1 { return "z" }
        if abs(acc[0] - 1) < 0.1 && abs(acc[2]) < 0.1 { return "x" }
        return nil
    }

    @Test("hello places the trace's time 0 on t's clock; trace-end comes once; the model holds the last row after it")
    func endsAndHolds() throws {
        let daemon = try SocketDaemon(simulate: try halfAndHalf(), rate: 100)
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.readMessage())
        let trace = try #require((hello["device"] as? [String: Any])?["trace"] as? [String: Any])
        let start = try #require(trace["start"] as? Double)
        #expect(trace["seconds"] as? Double == 1 && trace["loop"] as? Bool == false, "\(trace)")
        _ = client.request(#"{"class":"watch","streams":["frames","device"]}"#)
        // A host that starved the test past the trace's end: the device's
        // description says so (its last message) where the event went by.
        client.send(#"{"class":"device"}"# + "\n")
        var ended: [String: Any]?
        var after: [[String: Any]] = []
        while after.count < 20, let message = client.readMessage(timeout: 30) {
            if message["event"] as? String == "trace-end" {
                #expect(ended?["event"] == nil, "one trace-end without --loop")
                ended = message
            } else if message["class"] as? String == "device", (message["message"] as? String)?.contains("ended") == true {
                ended = ended ?? message
            } else if message["class"] as? String == "frame", let t = message["t"] as? Double {
                if t - start < 0.4 { #expect(side(message) == "z", "flat before 0.5 s of the trace: \(message)") }
                if t - start > 0.6 { #expect(side(message) == "x", "on its side after 0.5 s, and held after its end: \(message)") }
                if ended != nil && t - start > 1.05 { after.append(message) }
            }
        }
        let event = try #require(ended)
        #expect((event["message"] as? String)?.contains("ended after 1.000 s: the chip model holds its last row (--loop plays it again)") == true, "\(event)")
        #expect(event["state"] as? String == "ok", "the end of a trace says nothing of the chip's health")
        #expect(after.count == 20)
    }

    @Test("--loop plays the trace again: each frame's side follows its t modulo the trace's length, and trace-end comes at each end")
    func loops() throws {
        let daemon = try SocketDaemon(simulate: try halfAndHalf(), rate: 100, loop: true)
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.readMessage())
        let trace = try #require((hello["device"] as? [String: Any])?["trace"] as? [String: Any])
        let start = try #require(trace["start"] as? Double)
        #expect(trace["loop"] as? Bool == true)
        _ = client.request(#"{"class":"watch","streams":["frames","device"]}"#)
        var ends = 0
        var seen: Set<String> = []
        while ends < 2, let message = client.readMessage(timeout: 30) {
            if message["event"] as? String == "trace-end" {
                ends += 1
                #expect((message["message"] as? String)?.contains("it plays again from its start (--loop)") == true)
            } else if message["class"] as? String == "frame", let t = message["t"] as? Double {
                let phase = (t - start).truncatingRemainder(dividingBy: 1)
                if phase > 0.1 && phase < 0.4 { #expect(side(message) == "z", "phase \(phase): \(message)"); seen.insert("z") }
                if phase > 0.6 && phase < 0.9 { #expect(side(message) == "x", "phase \(phase): \(message)"); seen.insert("x") }
            }
        }
        #expect(ends == 2)
        #expect(seen == ["z", "x"], "frames from both halves of a later pass")
    }

    @Test("--loop is for a trace file: with a built-in motion, and without --simulate, it is a usage error (64)")
    func loopRefused() throws {
        #expect {
            try SocketDaemon(simulate: "demo", loop: true)
        } throws: { error in
            let start = error as? Daemon.StartError
            return start?.exitCode == 64 && start?.description.contains("--loop plays a trace file again each time it ends; demo is a built-in motion") == true
        }
        let bare = try acceld(["--loop", "--socket", "/nonexistent/acceld.sock"])
        #expect(bare.status == 64)
        #expect(bare.stderr.contains("--loop plays a simulated trace again: it goes with --simulate TRACE"), "\(bare.stderr)")
    }
}
