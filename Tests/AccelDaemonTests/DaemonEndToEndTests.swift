// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

let isRoot = getuid() == 0

/// A client that has read hello and watches every frame.
func watchingFrames(_ daemon: DaemonProcess) throws -> LineClient {
    let client = try LineClient(path: daemon.socketPath)
    _ = client.readMessage()
    _ = client.request(#"{"class":"watch","streams":["frames"]}"#)
    return client
}

/// Gaps a client saw in its frames' sequence numbers.
func gaps(in seqs: [Int]) -> Int { zip(seqs.dropFirst(), seqs).map { $0 - $1 - 1 }.reduce(0, +) }

/// Samples the daemon itself never got (overruns on a loaded machine):
/// every gap a client sees must be one of these, or the client was shorted.
func daemonLost(_ path: String) -> Int {
    guard let client = try? LineClient(path: path) else { return -1 }
    _ = client.readMessage()
    return (client.request(#"{"class":"status"}"#)?["counters"] as? [String: Int])?["lost"] ?? -1
}

@Suite("acceld end to end", .serialized, .daemons)
struct DaemonEndToEndTests {
    @Test("an unprivileged client is refused configure, calibrate and selftest, and may still watch",
          .enabled(if: isRoot, "needs root to run a client as another user"))
    func unprivileged() throws {
        let scratch = scratchDirectory()
        let config = scratch + "/open.conf"
        try "[socket]\nmode = 0666\n".write(toFile: config, atomically: true, encoding: .utf8)
        chmod(scratch, 0o755)
        let daemon = try DaemonProcess(["--simulate", "rest", "--config", config], socketPath: scratch + "/acceld.sock")
        let script = """
            import socket, json, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rwb')
            f.readline()
            for req in ['{"class":"configure","range":8}', '{"class":"calibrate"}', '{"class":"selftest"}', '{"class":"status"}']:
                f.write((req + '\\n').encode()); f.flush()
                while True:
                    m = json.loads(f.readline())
                    if m['class'] not in ('frame',): break
                print(m['class'], m.get('code', ''))
            """
        let result = try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, daemon.socketPath])
        #expect(result.stdout == "error not-permitted\nerror not-permitted\nerror not-permitted\nstatus \n", "\(result.stderr) \(result.status)")
        daemon.stop()
    }

    @Test("with NOTIFY_SOCKET and WATCHDOG_USEC set, READY=1 then WATCHDOG=1 arrive")
    func notify() throws {
        let scratch = scratchDirectory()
        let path = scratch + "/notify.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        let daemon = try DaemonProcess(["--simulate", "rest"], environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"])
        var messages: [String] = []
        let end = Date().addingTimeInterval(5)
        while Date() < end, !messages.contains(where: { $0.contains("WATCHDOG=1") }) {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 500) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        let ready = messages.firstIndex { $0.contains("READY=1") }
        let watchdog = messages.firstIndex { $0.contains("WATCHDOG=1") }
        #expect(ready != nil && watchdog != nil, "\(messages)")
        #expect(messages.contains { $0.contains("STATUS=") })
        daemon.stop()
        // Shutdown says STOPPING=1.
        var buffer = [UInt8](repeating: 0, count: 4096)
        var sawStopping = false
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&pfd, 1, 500) > 0 {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 && String(decoding: buffer[0..<n], as: UTF8.self).contains("STOPPING=1") { sawStopping = true }
        }
        #expect(sawStopping)
    }

    @Test("socket activation: a listening socket passed as fd 3 with LISTEN_FDS/LISTEN_PID is adopted and kept on exit")
    func socketActivation() throws {
        let scratch = scratchDirectory()
        let path = scratch + "/activated.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(fd, 16) == 0)
        // The daemon's own --socket points elsewhere: it must use fd 3.
        let daemon = try DaemonProcess(["--simulate", "rest"], environment: ["LISTEN_FDS": "1"], passing: fd,
                                       shellPrefix: "LISTEN_PID=$$; export LISTEN_PID;", waitForSocket: false)
        close(fd)
        try daemon.waitFor(socket: path)
        let client = try LineClient(path: path)
        #expect(client.readMessage()?["class"] as? String == "hello")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "it did not create its own socket")
        #expect(daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: path), "a socket passed by systemd belongs to acceld.socket and stays")
    }

    @Test("SIGTERM: clients get goodbye, the socket file is removed, exit status 0")
    func sigterm() throws {
        let daemon = try DaemonProcess(["--simulate", "rest"])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        kill(daemon.pid, SIGTERM)
        let goodbye = client.next("goodbye", timeout: 5)
        #expect(goodbye?["reason"] as? String == "acceld is stopping")
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test("a SIGTERM at any moment of start-up ends the daemon promptly, never a hang")
    func sigtermDuringStartUp() throws {
        // Steps through start-up in 3 ms strides, past the point where it listens.
        for delay in stride(from: 0, through: 120_000, by: 3_000) {
            let daemon = try DaemonProcess(["--simulate", "rest"], waitForSocket: false)
            usleep(useconds_t(delay))
            let status = daemon.stop(seconds: 5)
            // 143: killed by the default action, before acceld blocked the signal.
            #expect(status == 0 || status == 143, "SIGTERM \(delay / 1000) ms after spawn: status \(status.map(String.init) ?? "none, still running after 5 s")")
        }
    }

    @Test("a second daemon on the same socket is refused with advice, and the first keeps working")
    func secondDaemon() throws {
        let first = try DaemonProcess(["--simulate", "rest"])
        let second = try DaemonProcess(["--simulate", "rest"], socketPath: first.socketPath, waitForSocket: false)
        let deadline = Date().addingTimeInterval(10)
        while !second.hasExited && Date() < deadline { usleep(20_000) }
        #expect(second.stop() == 75)
        #expect(second.stderr.contains("another acceld is already listening"))
        let client = try LineClient(path: first.socketPath)
        #expect(client.readMessage()?["class"] as? String == "hello")
        first.stop()
    }

    @Test("SIGHUP reloads the pipeline's tunables without dropping clients, and keeps them when the file is wrong")
    func reloadAndTunables() throws {
        let scratch = scratchDirectory()
        let config = scratch + "/acceld.conf"
        let strict = "[freefall]\nminimum-seconds = 5\n"
        try strict.write(toFile: config, atomically: true, encoding: .utf8)
        // The drop script falls for 0.5 s every 3 s.
        let daemon = try DaemonProcess(["--simulate", "drop", "--config", config])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.readMessage()
        _ = client.request(#"{"class":"watch","streams":["freefall"]}"#)
        func falls(within seconds: Double) -> Int {
            let end = Date().addingTimeInterval(seconds)
            var n = 0
            while Date() < end { if client.readMessage(timeout: 0.3)?["phase"] as? String == "start" { n += 1 } }
            return n
        }
        #expect(falls(within: 3.2) == 0, "a 0.5 s fall is shorter than the configured 5 s")
        try "[freefall]\nminimum-seconds = 0.1\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        #expect(falls(within: 3.2) >= 1, "after SIGHUP the default applies, on the same connection")
        try "[freefall]\nminimum-seconds = banana\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        usleep(300_000)
        #expect(daemon.stderr.contains("acceld.conf:2: [freefall] minimum-seconds: 'banana' is not a number"))
        #expect(daemon.stderr.contains("keeping the running configuration"))
        #expect(client.request(#"{"class":"status"}"#)?["class"] as? String == "status", "still serving")
        #expect(daemon.stop() == 0)
    }

    @Test("with --wait-for-device a missing bus does not stop the daemon: it serves, reporting the device lost")
    func waitForDevice() throws {
        let daemon = try DaemonProcess(["--bus", "250", "--wait-for-device"])
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.readMessage())
        let device = try #require(hello["device"] as? [String: Any])
        #expect(device["state"] as? String == "lost")
        usleep(500_000)
        #expect(!daemon.hasExited)
        #expect(daemon.stop() == 0)
    }
}
