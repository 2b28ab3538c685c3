// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `acceld replay` is the daemon on a virtual clock with standard output
/// as its one client: it prints the streams a watch names, the vibration
/// analysis's and the machine's included, with [vibration] applied.
@Suite("acceld replay, the daemon's streams")
struct ReplayStreamsTests {
    /// The built-in machine (30 Hz unbalance, off for its first second) on
    /// an LSM6DSO at 1,660 Hz, as the vibration stream's client sees it.
    private func machine(_ extra: [String] = []) throws -> (result: ProcessResult, messages: [[String: Any]]) {
        let result = try acceld(["replay", "machine", "--seconds", "5", "--part", "LSM6DSO", "--rate", "1660",
                                 "--streams", "vibration,machine"] + extra)
        let messages = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (result, messages)
    }

    @Test("--streams vibration,machine prints the daemon's windows and the machine's start, no frames, the same each run")
    func vibrationAndMachine() throws {
        let (result, messages) = try machine()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(messages.allSatisfy { ["vibration", "machine"].contains($0["class"] as? String) })
        let windows = messages.filter { $0["class"] as? String == "vibration" }
        // 5 s of 1 s windows that overlap by half: one every 0.5 s.
        #expect((8...10).contains(windows.count), "\(windows.count) windows")
        let seqs = windows.compactMap { $0["seq"] as? Int }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
        let last = try #require(windows.last?["axes"] as? [String: Any])
        let dominant = try #require((last["x"] as? [String: Any])?["dominant"] as? [Double])
        #expect(abs(dominant[0] - 30) < 1, "the unbalance's line: \(dominant)")
        #expect(messages.contains { $0["class"] as? String == "machine" && $0["state"] as? String == "running" })
        #expect(try machine().result.stdout == result.stdout)
    }

    @Test("[vibration] applies: a machine class adds its zone to every window, --spectrum its bins")
    func configurationApplies() throws {
        let config = try temporaryFile("[vibration]\nmachine-class = II\n", name: "class.conf")
        let (plain, _) = try machine()
        #expect(!plain.stdout.contains(#""zone""#))
        let (classed, messages) = try machine(["--config", config, "--spectrum", "8"])
        #expect(classed.status == 0, "\(classed.stderr)")
        let windows = messages.filter { $0["class"] as? String == "vibration" }
        #expect(!windows.isEmpty && windows.allSatisfy { ["A", "B", "C", "D"].contains($0["zone"] as? String) })
        #expect(windows.allSatisfy { (($0["spectrum"] as? [String: Any])?["amplitudes"] as? [Double])?.count == 8 })
    }

    @Test("bad --streams, a window the rate cannot give and a motion without end are usage errors that say what to do")
    func usageErrors() throws {
        let unknown = try acceld(["replay", "rest", "--streams", "frames,vibrations"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains(#"--streams: unknown stream "vibrations"; streams are frames"#), "\(unknown.stderr)")
        let both = try acceld(["replay", "rest", "--streams", "frames", "--events-only"])
        #expect(both.status == 64 && both.stderr.contains("--events-only is --streams events: give one of them"))
        let short = try acceld(["replay", "rest", "--streams", "vibration", "--window", "0.01"])
        #expect(short.status == 64 && short.stderr.contains("window"), "\(short.stderr)")
        #expect(short.stdout.isEmpty)
        let endless = try acceld(["replay", "machine", "--part", "LSM6DSO", "--rate", "1660", "--streams", "machine"])
        #expect(endless.status == 64)
        #expect(endless.stderr.contains("machine has no end: say how many seconds of it to play (--seconds)"), "\(endless.stderr)")
    }
}
