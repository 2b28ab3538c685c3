// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `accelctl vibration` piped, against a real acceld playing the built-in
/// machine: a motor at 29.95 Hz that starts 2 s into the model's time
/// (VibrationMotion.machine()). Counts are of windows, never of seconds:
/// --seconds is only a generous deadline for a starved host.
@Suite("accelctl vibration through acceld", .serialized, .ownThread)
struct VibrationCommandTests {
    static func machine() throws -> SocketDaemon { try SocketDaemon(simulate: "machine", part: "LSM6DSO", rate: 1660, range: 16) }

    @Test("piped, a line per window; once the machine runs, the dominant line is the motor's 29.95 Hz")
    func linesPerWindow() throws {
        let daemon = try Self.machine()
        defer { daemon.stop() }
        // 16 windows of 1 s every 0.5 s: the model's first 8.5 s or so,
        // the motor running (and confirmed for three windows) from about 4 s.
        let result = try accelctl(["vibration", "--socket", daemon.socketPath, "--count", "16", "--seconds", "120"])
        #expect(result.status == 0, "\(result.stderr)")
        // Each window's line starts with its local time, as events' do.
        let windows = result.stdout.split(separator: "\n").filter { $0.firstMatch(of: #/^\d\d:\d\d:\d\d\.\d{3} /#) != nil }
        #expect(windows.count == 16, "\(result.stdout)")
        let running = windows.filter { $0.split(separator: " ")[1] == "running" }
        #expect(!running.isEmpty, "the motor starts 2 s in: \(result.stdout)")
        for line in running {
            let words = line.split(separator: " ")
            let dominant = words.firstIndex(of: "dominant").flatMap { Double(words[$0 + 1]) }
            // Half a bin of a 1 s window.
            #expect(dominant.map { abs($0 - 29.95) <= 0.5 } == true, "\(line)")
        }
        #expect(result.stdout.contains("machine running since"), "the machine's change is a line too: \(result.stdout)")
    }

    @Test("--json passes acceld's messages through, with the spectrum's bins asked for")
    func json() throws {
        let daemon = try Self.machine()
        defer { daemon.stop() }
        let result = try accelctl(["vibration", "--socket", daemon.socketPath, "--json", "--bins", "64", "--count", "2", "--seconds", "120"])
        #expect(result.status == 0, "\(result.stderr)")
        let messages = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let windows = messages.filter { $0["class"] as? String == "vibration" }
        #expect(windows.count == 2 && messages.count == result.stdout.split(separator: "\n").count, "\(result.stdout)")
        for window in windows {
            #expect(((window["spectrum"] as? [String: Any])?["amplitudes"] as? [Double])?.count == 64)
        }
    }

    @Test("a window the daemon refuses: acceld's words, exit 65, nothing printed")
    func refusedWindow() throws {
        let daemon = try Self.machine()
        defer { daemon.stop() }
        let result = try accelctl(["vibration", "--socket", daemon.socketPath, "--window", "0.1", "--count", "1", "--seconds", "60"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("acceld refused (bad-field)") && result.stderr.contains("use a window of at least 0.3 s"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("--learn at rest: the off level, the thresholds, and the [vibration] lines that keep them")
    func learnAtRest() throws {
        let daemon = try SocketDaemon(simulate: "rest", part: "LSM6DSO", rate: 1660, range: 16)
        defer { daemon.stop() }
        let result = try accelctl(["vibration", "--socket", daemon.socketPath, "--learn", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("mg over 8 quarter-second blocks"), "\(result.stdout)")
        #expect(result.stdout.contains("[vibration]\nidle-threshold = 0.0") && result.stdout.contains("running-threshold = 0.1000"), "\(result.stdout)")
    }

    @Test("--learn while the machine starts: acceld's words, exit 75 (try again when it is off)")
    func learnWhileRunning() throws {
        let daemon = try Self.machine()
        defer { daemon.stop() }
        let result = try accelctl(["vibration", "--socket", daemon.socketPath, "--learn", "30"])
        #expect(result.status == 75, "\(result.stdout)")
        #expect(result.stderr.contains("acceld refused (machine-running)") && result.stderr.contains("while"), "\(result.stderr)")
    }

    @Test("without a daemon: exit 69 and how to start it")
    func noDaemon() throws {
        let result = try accelctl(["vibration", "--socket", "/nonexistent/acceld.sock"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("acceld is not running"))
    }

    @Test("a daemon of protocol 2 has no vibration stream: upgrade acceld, exit 76")
    func oldDaemon() throws {
        let path = scratchDirectory() + "/old.sock"
        let listener = try listen(at: path)
        defer { close(listener) }
        // The protocol-2 daemon greets and then hears nothing it knows.
        DispatchQueue.global().async {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let hello = #"{"class":"hello","protocol":2,"version":"0.1.0","device":{"chip":"LIS3DH","location":"fake","range":2,"rate":100,"mode":"normal","resolution":12,"state":"ok"}}"# + "\n"
            _ = hello.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var byte: UInt8 = 0
            while recv(client, &byte, 1, 0) > 0 {}
            close(client)
        }
        let result = try accelctl(["vibration", "--socket", path, "--count", "1", "--seconds", "10"])
        #expect(result.status == 76)
        #expect(result.stderr.contains("protocol 2") && result.stderr.contains("upgrade acceld"), "\(result.stderr)")
    }

    func listen(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, Glibc.listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        return fd
    }
}
