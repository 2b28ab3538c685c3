// SPDX-License-Identifier: Apache-2.0
@testable import AccelConfiguration
@testable import AccelDaemon
import AccelDriver
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The vibration and machine streams on the in-process daemon, over the
/// simulated machine (VibrationMotion.machine: a 29.95 Hz shaft and its
/// bearing, starting 2 s in), as acceld --simulate machine serves them.
@Suite("Vibration, in process on virtual time")
struct VibrationInProcessTests {
    @Test("vibration: each client's windows in order, the machine's line and its start, the configured machine's zone and orders; windows the rate cannot give are refused")
    func vibration() throws {
        // The simulated machine's shaft and bearing, as a user would configure them.
        let configuration = try Configuration(parsing: "[vibration]\nmachine-class = II\nshaft = auto 20-40\nbearing = geometry 9 7.94 39.04\n")
        let daemon = try InProcessDaemon(part: .lsm6dso, motion: VibrationMotion.machine(), rate: 1660, range: 16,
                                         vibration: configuration.vibration)
        let client = daemon.connect()
        _ = client.readMessage()
        let refused = try #require(client.request(#"{"class":"watch","streams":["vibration"],"vibration":{"window":0.1}}"#))
        #expect(refused["class"] as? String == "error" && (refused["message"] as? String ?? "").contains("at least 0.3 s"), "\(refused)")
        let reply = try #require(client.request(#"{"class":"watch","streams":["vibration","machine"],"vibration":{"window":0.5,"overlap":0.5,"spectrum":64}}"#))
        #expect((reply["vibration"] as? [String: Any])?["window"] as? Double == 0.5, "\(reply)")
        daemon.run(seconds: 6)  // the machine starts at 2 s, ramps for 1 s, and must hold 1.5 s
        var windows: [[String: Any]] = [], started: [String: Any]?
        for message in client.readAll() {
            switch message["class"] as? String {
            case "vibration": windows.append(message)
            case "machine": started = message
            default: break
            }
        }
        let seqs = windows.compactMap { $0["seq"] as? Int }
        #expect(zip(seqs.dropFirst(), seqs).allSatisfy { $0 > $1 }, "in order: \(seqs)")
        #expect(started?["state"] as? String == "running" && started?["from"] as? String == "off", "\(started ?? [:])")
        #expect(windows.filter { $0["state"] as? String == "running" }.count >= 2, "\(windows.count) windows")
        let running = try #require(windows.last { $0["state"] as? String == "running" })
        let line = try #require((running["peaks"] as? [[Double]])?.first)
        #expect(abs(line[0] - 29.95) < 1, "the motor's line, within half a 2 Hz bin: \(line)")
        #expect(((running["spectrum"] as? [String: Any])?["amplitudes"] as? [Double])?.count == 64)
        #expect(["A", "B", "C", "D"].contains(running["zone"] as? String ?? ""), "class II judges the velocity: \(running)")
        #expect(abs((running["shaft"] as? Double ?? 0) - 29.95) < 1, "the shaft found within 20 to 40 Hz: \(running)")
        let orders = (running["orders"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(orders == ["shaft", "bpfo", "bpfi", "bsf", "ftf"], "the bearing's orders from its geometry: \(orders)")
        let judged = (running["orders"] as? [[String: Any]] ?? []).filter { $0["condition"] != nil }.compactMap { $0["name"] as? String }
        #expect(judged == ["bpfo", "bpfi", "bsf", "ftf"], "a condition for each bearing order, none for the shaft: \(running)")
        let bearing = try #require(running["bearing"] as? [String: Any])
        #expect(["ok", "watch", "alarm"].contains(bearing["condition"] as? String ?? "") && judged.contains(bearing["order"] as? String ?? ""))
        #expect((running["average"] as? [String: Any])?["windows"] as? Int ?? 0 > 1, "the envelopes averaged: \(running)")
        #expect(client.request(#"{"class":"status"}"#)?["class"] as? String == "status", "the connection stays up")
    }

    @Test("a reloaded [vibration] (SIGHUP's path) reaches the windows: no zone before, class I's after, windows started again")
    func reconfigured() throws {
        let daemon = try InProcessDaemon(part: .lsm6dso, motion: VibrationMotion.machine(), rate: 1660, range: 16)
        let client = daemon.connect()
        _ = client.readMessage()
        _ = try #require(client.request(#"{"class":"watch","streams":["vibration"]}"#))
        daemon.run(seconds: 4)
        let before = client.readAll().filter { $0["class"] as? String == "vibration" }
        #expect(!before.isEmpty && before.allSatisfy { $0["zone"] == nil }, "no class configured, no zone")
        let lastBefore = try #require(before.last?["seq"] as? Int)
        let reloaded = try Configuration(parsing: "[vibration]\nmachine-class = I\n")
        daemon.hub.vibration.reconfigure(reloaded.vibration)
        daemon.run(seconds: 3)
        let after = client.readAll().filter { $0["class"] as? String == "vibration" }
        #expect(!after.isEmpty && after.allSatisfy { ["A", "B", "C", "D"].contains($0["zone"] as? String ?? "") }, "\(after.map { $0["zone"] ?? "none" })")
        // Started again: the first window after the reload begins a whole window on, not half.
        let firstAfter = try #require(after.first?["seq"] as? Int)
        #expect(firstAfter - lastBefore >= 1_660, "\(lastBefore) then \(firstAfter)")
    }

    @Test("lost samples: the windows and the average start again, counted in every later message; no window spans the gap")
    func restartsAfterLostSamples() throws {
        let daemon = try InProcessDaemon(part: .lsm6dso, motion: VibrationMotion.machine(), rate: 1660, range: 16)
        let client = daemon.connect()
        _ = client.readMessage()
        _ = try #require(client.request(#"{"class":"watch","streams":["frames","vibration"],"rate":1660}"#))
        daemon.run(seconds: 3)
        daemon.model.fail(forSeconds: 0.5, errno: EIO)
        daemon.run(seconds: 4)
        var windows: [[String: Any]] = [], frames: Set<Int> = []
        for message in client.readAll() {
            if message["class"] as? String == "vibration" { windows.append(message) }
            if message["class"] as? String == "frame", let seq = message["seq"] as? Int { frames.insert(seq) }
        }
        // A window's samples: its duration at its rate (1,680 at 1,660 Hz: kissfft's fast sizes).
        let count = Int(((windows.first?["duration"] as? Double ?? 0) * (windows.first?["rate"] as? Double ?? 0)).rounded())
        #expect(count == 1_680)
        let missing = try #require((frames.min()!...frames.max()!).first { !frames.contains($0) }, "the outage lost samples")
        let before = windows.filter { ($0["seq"] as? Int ?? 0) + count <= missing }
        let after = windows.filter { ($0["seq"] as? Int ?? 0) > missing }
        #expect(before.count + after.count == windows.count, "no window spans the gap")
        #expect(!before.isEmpty && before.allSatisfy { $0["restarts"] as? Int == 0 })
        #expect(!after.isEmpty && after.allSatisfy { $0["restarts"] as? Int == 1 }, "\(after.map { $0["restarts"] ?? "none" })")
        #expect((after.first?["average"] as? [String: Any])?["windows"] as? Int == 1, "the average started again")
    }
}
