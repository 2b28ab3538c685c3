// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

/// Runs an example from Examples/ against a daemon for a few seconds.
func runExample(_ name: String, seconds: Double, on daemon: SocketDaemon) throws -> String {
    let result = try run("/usr/bin/env", ["ACCELD_SOCKET=\(daemon.socketPath)", buildDirectory + "/\(name)", String(seconds)])
    #expect(result.status == 0, "\(name) exited \(result.status): \(result.stderr)")
    return result.stdout
}

/// Runs an example that runs until stopped (dispatchMain) for `seconds`,
/// then stops it; its output line-buffered, so that none is lost.
func runUntilStopped(_ name: String, seconds: Double, socket: String) throws -> String {
    let result = try run("/usr/bin/timeout", [String(seconds), "/usr/bin/stdbuf", "-oL", "/usr/bin/env",
                                              "ACCELD_SOCKET=\(socket)", buildDirectory + "/\(name)"])
    #expect(result.status == 124, "\(name) ran until stopped: \(result.stderr)")
    return result.stdout
}

@Suite("The Swift examples, each against acceld --simulate", .serialized, .ownThread)
struct ExamplesTests {
    @Test("FirstTenLines is docs/CLIENTS.md's first ten lines, verbatim, and prints samples at 10 Hz")
    func firstTenLines() throws {
        let docs = try String(contentsOfFile: repositoryRoot + "/docs/CLIENTS.md", encoding: .utf8)
        let snippet = try #require(docs.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let source = try String(contentsOfFile: repositoryRoot + "/Examples/FirstTenLines/main.swift", encoding: .utf8)
        let program = source.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("//") }.joined(separator: "\n")
        #expect(program == snippet, "docs/CLIENTS.md and Examples/FirstTenLines/main.swift differ")
        #expect(snippet.split(separator: "\n").count <= 10)
        let daemon = try SocketDaemon(simulate: "rest")
        defer { daemon.stop() }
        let lines = try runUntilStopped("FirstTenLines", seconds: 3, socket: daemon.socketPath).split(separator: "\n")
        #expect(lines.count >= 10, "about 10 a second: \(lines)")
        let z = lines.last.flatMap { $0.split(separator: " ").dropFirst(5).first }.flatMap { Double($0) }
        #expect(lines.allSatisfy { $0.hasPrefix("x ") && $0.hasSuffix(" g") } && abs((z ?? 0) - 1) < 0.1, "\(lines)")
    }

    @Test("FirstTenLines without a daemon: the handler's error, once, saying what to do")
    func firstTenLinesNoDaemon() throws {
        let socket = scratchDirectory() + "/none.sock"
        let output = try runUntilStopped("FirstTenLines", seconds: 1.5, socket: socket)
        #expect(output == "no samples: \(ClientError.noDaemon(socket))\n", "\(output)")
    }

    @Test("BubbleLevel: the bubble centred and level on a flat board, off to the side when an edge is raised")
    func bubbleLevel() throws {
        // Level, then the +X edge raised by 20° (roll -20°). The trace
        // starts with the daemon: 2 s of level leave room for a slow start.
        let script = MotionScript(name: "level then tilted", segments: [
            .hold(Vector3(0, 0, 1), seconds: 2), .hold(Vector3(0.342, 0, 0.940), seconds: 20),
        ], loops: false)
        let daemon = try SocketDaemon(simulate: try writeTrace(script, comment: "bubble level", to: scratchDirectory() + "/level.csv"))
        defer { daemon.stop() }
        let lines = try runExample("BubbleLevel", seconds: 3.5, on: daemon).split(separator: "\n")
        #expect(lines.count >= 10, "about 10 a second")
        #expect(lines.prefix(5).contains { $0.hasPrefix("[----------o----------]") && $0.hasSuffix("level") }, "\(lines)")
        // 45° spans the vial's 10 cells each side: 20° is 4.4 cells to the
        // right, which the chip's 18 mg steps and noise make 4 or 5.
        let last = try #require(lines.last)
        let bubble = last.firstIndex(of: "o").map { last.distance(from: last.startIndex, to: $0) - 1 }
        #expect([14, 15].contains(bubble ?? 0), "\(last)")
        #expect(["-19°", "-20°", "-21°"].contains(last.split(separator: " ").last ?? ""), "\(last)")
    }

    @Test("BubbleLevel on a part with a gyroscope shows the heading and the turn: 90°/s in the tour's first turn")
    func bubbleLevelGyroscope() throws {
        // No --rate: the LSM6DSO's own 104 Hz, as the README runs it.
        let daemon = try SocketDaemon(simulate: "tour", part: "LSM6DSO")
        defer { daemon.stop() }
        let lines = try runExample("BubbleLevel", seconds: 3.5, on: daemon).split(separator: "\n")
        // The simulated gyroscope's offset reads as about 1°/s until the fusion has learnt it.
        #expect(lines.first.map { $0.contains(" yaw ") && $0.contains(" turning ") } == true, "\(lines)")
        // The tour holds face up for 2 s, then turns 90° in a second about y.
        #expect(lines.contains { ["turning 89°/s", "turning 90°/s", "turning 91°/s"].contains(where: $0.contains) }, "\(lines)")
    }

    @Test("BubbleLevel without a daemon fails with exit 69 after its run, saying what to do")
    func bubbleLevelNoDaemon() throws {
        let socket = scratchDirectory() + "/none.sock"
        let result = try run("/usr/bin/env", ["ACCELD_SOCKET=\(socket)", buildDirectory + "/BubbleLevel", "1"])
        #expect(result.status == 69, "exit \(result.status)")
        #expect(result.stdout.hasSuffix("BubbleLevel: no sample arrived in 1.0 s: \(ClientError.noDaemon(socket))\n"), "\(result.stdout)")
    }

    @Test("each example's --help is help (exit 0, no connection tried), and a word that is no number of seconds a usage error (64)",
          arguments: ["AutoRotation", "BubbleLevel", "DataLogger", "ShakeToRing", "TiltToScroll"])
    func help(example: String) throws {
        let help = try run("/usr/bin/env", ["ACCELD_SOCKET=/nonexistent/acceld.sock", buildDirectory + "/" + example, "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("Usage: \(example) [seconds]") && !help.stdout.contains("no sample"), "\(help.stdout)\(help.stderr)")
        let wrong = try run(buildDirectory + "/" + example, ["soon"])
        #expect(wrong.status == 64 && wrong.stderr.contains("'soon' is not a number of seconds"), "\(wrong.stderr)")
    }

    @Test("BubbleLevel run by a user the socket refuses: the handler's error says so, with what to do")
    func bubbleLevelNoPermission() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            Issue.record("needs root and setpriv, to run the example as nobody")
            return
        }
        // A fake daemon, so that the socket keeps the mode this test gives it.
        let fake = try FakeDaemon(lines: [
            #"{"class":"hello","protocol":2,"version":"0.2.0","device":{"chip":"LIS302DL","location":"fake","range":2,"rate":100,"mode":"normal","resolution":8,"state":"ok"}}"#,
            #"{"class":"frame","seq":1,"t":0.01,"acc":[0,0,1],"gravity":[0,0,1],"user":[0,0,0],"pitch":0,"roll":0}"#,
        ])
        defer { fake.stop() }
        // nobody runs a copy in a folder it may enter.
        let binary = (fake.path as NSString).deletingLastPathComponent + "/BubbleLevel"
        // Copied by cp, not by this process: a descriptor open for writing
        // here, inherited by a child another test spawns meanwhile, would
        // make the exec below fail with ETXTBSY (it once did).
        // Its mode set, not left to the umask (acceld once narrowed the
        // process's umask while it made its socket, and a SocketDaemon
        // starting meanwhile left the copy without its x bits).
        let copied = try run("/bin/cp", [buildDirectory + "/BubbleLevel", binary])
        #expect(copied.status == 0 && chmod(binary, 0o755) == 0, "\(copied.stderr)")
        func asNobody() throws -> ProcessResult {
            try run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                                         "/usr/bin/env", "ACCELD_SOCKET=\(fake.path)", binary, "3"])
        }
        chmod(fake.path, 0o666)
        let allowed = try asNobody()
        #expect(allowed.status == 0 && allowed.stdout.contains("[----------o----------] pitch 0° roll 0° level"), "\(allowed)")
        chmod(fake.path, 0)
        // A run that never reached acceld fails, with the client's exit code.
        let refused = try asNobody()
        let error = ClientError.permission(fake.path)
        #expect(refused.stdout == "BubbleLevel: no samples: \(error)\nBubbleLevel: no sample arrived in 3.0 s: \(error)\n", "\(refused.stdout)")
        #expect(refused.status == error.exitCode, "exit \(refused.status)")
    }

    @Test("ShakeToRing rings once per shake, never twice within its minimum interval")
    func shakeToRing() throws {
        let daemon = try SocketDaemon(simulate: "shake")
        defer { daemon.stop() }
        let rings = try runExample("ShakeToRing", seconds: 6, on: daemon).split(separator: "\n").filter { $0.contains("ring!") }
        #expect(rings.count >= 1, "the shake motion shakes")
        let times = rings.compactMap { line in line.split(separator: "=").last.flatMap { Double($0.dropLast(3)) } }
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1 }, "\(times)")
    }

    @Test("TiltToScroll starts at the top, scrolls down when tilted forward, and back up when tilted the other way")
    func tiltToScroll() throws {
        let script = MotionScript(name: "level, forward, back", segments: [
            .hold(Vector3(0, 0, 1), seconds: 1.5), .hold(Vector3(0, 0.5, 0.866), seconds: 1.5),
            .hold(Vector3(0, -0.5, 0.866), seconds: 20),
        ], loops: false)
        let daemon = try SocketDaemon(simulate: try writeTrace(script, comment: "tilt to scroll", to: scratchDirectory() + "/tilt.csv"))
        defer { daemon.stop() }
        let lines = try runExample("TiltToScroll", seconds: 4, on: daemon).split(separator: "\n")
        let shown = lines.compactMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
        #expect(shown.first == 1, "it starts at the top: \(lines)")
        let peak = shown.max() ?? 0
        #expect(peak >= 50, "30° forward scrolls down, 10 lines an update: \(shown)")
        #expect((shown.last ?? .max) < peak, "tilted back, it scrolls up again: \(shown)")
    }

    @Test("DataLogger writes the trace format, and acceld replay reads it back")
    func dataLogger() throws {
        let daemon = try SocketDaemon(simulate: "demo")
        defer { daemon.stop() }
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
        let daemon = try SocketDaemon(simulate: "tour")
        defer { daemon.stop() }
        let output = try runExample("AutoRotation", seconds: 8, on: daemon)
        #expect(output.contains("landscapeLeft: rotate the display to 90°"), "\(output)")
        #expect(output.contains("portrait: rotate the display to 0°"), "\(output)")
        #expect(output.contains("keep the display as it is"), "\(output)")
    }
}
