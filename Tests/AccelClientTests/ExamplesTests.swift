// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Runs an example from Examples/ against a daemon for a few seconds.
func runExample(_ name: String, seconds: Double, on daemon: DaemonProcess) throws -> String {
    let result = try run("/usr/bin/env", ["ACCELD_SOCKET=\(daemon.socketPath)", repositoryRoot + "/.build/debug/\(name)", String(seconds)])
    #expect(result.status == 0, "\(name) exited \(result.status): \(result.stderr)")
    return result.stdout
}

@Suite("The Swift examples, each against acceld --simulate", .serialized, .timeLimit(.minutes(2)))
struct ExamplesTests {
    @Test("BubbleLevel draws the bubble centred and says level on a flat, still board")
    func bubbleLevel() throws {
        let daemon = try DaemonProcess(["--simulate", "rest"])
        defer { _ = daemon.stop() }
        let lines = try runExample("BubbleLevel", seconds: 1.5, on: daemon).split(separator: "\n")
        #expect(lines.count >= 8, "about 10 a second")
        #expect(lines.last?.hasPrefix("[----------o----------]") == true && lines.last?.hasSuffix("level") == true, "\(lines.last ?? "")")
    }

    @Test("ShakeToRing rings once per shake, never twice within its minimum interval")
    func shakeToRing() throws {
        let daemon = try DaemonProcess(["--simulate", "shake"])
        defer { _ = daemon.stop() }
        let rings = try runExample("ShakeToRing", seconds: 6, on: daemon).split(separator: "\n").filter { $0.contains("ring!") }
        #expect(rings.count >= 1, "the shake motion shakes")
        let times = rings.compactMap { line in line.split(separator: "=").last.flatMap { Double($0.dropLast(3)) } }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1 }, "\(times)")
    }

    @Test("TiltToScroll holds still on a level board")
    func tiltToScroll() throws {
        let daemon = try DaemonProcess(["--simulate", "rest"])
        defer { _ = daemon.stop() }
        let lines = try runExample("TiltToScroll", seconds: 1.5, on: daemon).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("line 1 "), "\(lines)")
    }

    @Test("DataLogger writes the trace format, and acceld replay reads it back")
    func dataLogger() throws {
        let daemon = try DaemonProcess(["--simulate", "demo"])
        defer { _ = daemon.stop() }
        let csv = try runExample("DataLogger", seconds: 2, on: daemon)
        let rows = csv.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(rows.first == "t,x,y,z" && rows.count >= 150, "about 100 rows a second: \(rows.count)")
        let file = try temporaryFile(csv, name: "logged.csv")
        let replay = try acceld(["replay", file])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.split(separator: "\n").filter { $0.contains("\"class\":\"frame\"") }.count >= 150)
    }

    @Test("AutoRotation names a rotation for each upright face of the tour and keeps it for face up or down")
    func autoRotation() throws {
        let daemon = try DaemonProcess(["--simulate", "tour"])
        defer { _ = daemon.stop() }
        let output = try runExample("AutoRotation", seconds: 8, on: daemon)
        #expect(output.contains("landscapeLeft: rotate the display to 90°"), "\(output)")
        #expect(output.contains("portrait: rotate the display to 0°"), "\(output)")
        #expect(output.contains("keep the display as it is"), "\(output)")
    }
}
