// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private scratch directory per test.
public func scratchDirectory() -> String {
    let path = NSTemporaryDirectory() + "acceld-e2e-" + UUID().uuidString.prefix(8)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The real acceld binary, started with posix_spawn.
public final class DaemonProcess {
    public let pid: pid_t
    public let directory: String
    public let socketPath: String
    public let stderrPath: String
    private var exitStatus: Int32?

    /// - Parameters:
    ///   - arguments: after `acceld`; --socket and --calibration-file are added.
    ///   - passing: a descriptor to hand over as fd 3 (socket activation).
    ///   - shellPrefix: run through `sh -c` with this prefix (e.g. "LISTEN_PID=$$").
    public init(_ arguments: [String], environment: [String: String] = [:], passing fd: Int32? = nil,
         shellPrefix: String? = nil, socketPath: String? = nil, waitForSocket: Bool = true) throws {
        directory = scratchDirectory()
        self.socketPath = socketPath ?? directory + "/acceld.sock"
        stderrPath = directory + "/stderr.log"
        var argv = [acceldBinary, "--socket", self.socketPath, "--calibration-file", directory + "/calibration.json"] + arguments
        if let shellPrefix {
            argv = ["/bin/sh", "-c", "\(shellPrefix) exec \"$0\" \"$@\""] + argv
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory + "/stdout.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let fd { posix_spawn_file_actions_adddup2(&actions, fd, 3) }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LISTEN_") && $0.key != "NOTIFY_SOCKET" && !$0.key.hasPrefix("WATCHDOG") }
        for (key, value) in environment { env[key] = value }
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = withCleanSignals { posix_spawn(&child, argv[0], &actions, &$0, cArgs, cEnv) }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result)!) }
        pid = child
        if waitForSocket { try waitFor(socket: self.socketPath) }
    }

    public func waitFor(socket path: String, seconds: Double = 15) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let client = try? LineClient(path: path) {
                client.close()
                return
            }
            if hasExited { break }
            usleep(20_000)
        }
        Issue.record("acceld did not listen on \(path): \(stderr)")
        throw POSIXError(.ETIMEDOUT)
    }

    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    public var hasExited: Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return true
        }
        return false
    }

    /// Sends `signal` and waits for the exit status (128 + n if killed).
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, seconds: Double = 10) -> Int32? {
        if hasExited { return exitStatus }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if hasExited { return exitStatus }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = hasExited
        return nil
    }

    deinit {
        if !hasExited {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A newline-delimited JSON client over a Unix stream socket.
public final class LineClient {
    public private(set) var fd: Int32
    private var buffer: [UInt8] = []

    public init(path: String) throws {
        // CLOEXEC: a child another test spawns must not hold this connection open.
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            let code = errno
            Glibc.close(fd)
            // Swift runs deinit on an init that throws after every stored
            // property was set: it must not close this number again, which
            // by then may be another test's descriptor.
            fd = -1
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    public func send(_ text: String) { sendBytes(Array(text.utf8)) }

    public func sendBytes(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// The next line, or nil on timeout or end of stream.
    public func readLine(timeout: Double = 5) -> String? {
        let deadline = MonotonicTime.now() + UInt64(timeout * 1e9)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let now = MonotonicTime.now()
            guard now < deadline else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next message as a dictionary.
    public func readMessage(timeout: Double = 5) -> [String: Any]? {
        guard let line = readLine(timeout: timeout) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// Reads messages until one has `class` == name (skipping others).
    public func next(_ name: String, timeout: Double = 5) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = readMessage(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if message["class"] as? String == name { return message }
        }
        return nil
    }

    /// Sends a request and returns the first reply that is not a stream message.
    public func request(_ json: String, timeout: Double = 5) -> [String: Any]? {
        send(json + "\n")
        let streamed: Set<String> = ["frame", "orientation", "shake", "freefall", "movement", "tap", "dropped"]
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = readMessage(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if let name = message["class"] as? String, !streamed.contains(name) { return message }
        }
        return nil
    }

    /// Closes once: a second close(2) of the same number could close a
    /// descriptor another test thread has opened since (a CI run once lost
    /// a child's stderr pipe that way).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
    deinit { close() }
}

/// A short scripted day in the life, as a trace file: faceUp, portrait,
/// faceUp, a shake, a drop (about 10 s).
public func writeScenarioTrace(in directory: String) throws -> String {
    try writeTrace(scenarioScript(), comment: "scenario for the end-to-end tests", to: directory + "/scenario.csv")
}

/// The scenario itself: faceUp, portrait, faceUp, a shake, a drop (about 10 s).
public func scenarioScript() -> MotionScript {
    MotionScript(name: "scenario", segments: [
        .hold(Vector3(0, 0, 1), seconds: 1.2),
        .rotate(from: Vector3(0, 0, 1), to: Vector3(0, 1, 0), seconds: 0.4),
        .hold(Vector3(0, 1, 0), seconds: 1.2),
        .rotate(from: Vector3(0, 1, 0), to: Vector3(0, 0, 1), seconds: 0.4),
        .hold(Vector3(0, 0, 1), seconds: 1.0),
        .shake(base: Vector3(0, 0, 1), axis: Vector3(1, 0, 0), amplitude: 1.8, hertz: 5, seconds: 1.5),
        .hold(Vector3(0, 0, 1), seconds: 1.5),
        .freeFall(seconds: 0.5),
        .impact(base: Vector3(0, 0, 1), axis: Vector3(0, 0, 1), peak: 6, seconds: 0.02),
        .hold(Vector3(0, 0, 1), seconds: 2),
    ], loops: false)
}

/// Two knocks 0.2 s apart on a still, face-up board, 1.5 s in: one
/// double tap in direction -z (about 5 s).
public func writeDoubleTapTrace(in directory: String) throws -> String {
    try writeTrace(doubleTapScript(), comment: "a double tap for the end-to-end tests", to: directory + "/doubletap.csv")
}

/// The double tap itself: two knocks 0.2 s apart, 1.5 s in (about 5 s).
public func doubleTapScript() -> MotionScript {
    MotionScript(name: "double tap", segments: [
        .hold(Vector3(0, 0, 1), seconds: 1.5),
        .impact(base: Vector3(0, 0, 1), axis: Vector3(0, 0, -1), peak: 1.5, seconds: 0.02),
        .hold(Vector3(0, 0, 1), seconds: 0.18),
        .impact(base: Vector3(0, 0, 1), axis: Vector3(0, 0, -1), peak: 1.5, seconds: 0.02),
        .hold(Vector3(0, 0, 1), seconds: 3),
    ], loops: false)
}

/// A motion script sampled at 500 Hz into a trace file at `path`, for
/// `acceld --simulate PATH`.
public func writeTrace(_ script: MotionScript, comment: String, to path: String) throws -> String {
    var trace = Trace(comments: [comment])
    var t = 0.0
    while t <= script.duration {
        trace.times.append(t)
        trace.samples.append(script.specificForce(at: t))
        t += 0.002
    }
    try trace.text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
