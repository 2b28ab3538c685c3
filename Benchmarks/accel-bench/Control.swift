// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelConfiguration
import AccelCore
import AccelDaemon
import AccelDriver
import AccelParts
import AccelProtocol
import ArgumentParser
import Foundation
import Synchronization

/// Issue 48's figures on the real daemon (started in this process on a
/// real socket, with systemd's watchdog asked for): while one client
/// configures each part to its slowest rate, how long a new client waits
/// for its hello and a status reply, the largest gap between the watchdog's
/// pings, and how many `configured` events a `device` watcher gets.
struct Control: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The control side during a configure to each part's slowest rate: a new client's hello and status, the watchdog's pings, the configured events.")

    @Option(help: "Parts, comma-separated (default: every part).")
    var parts: String?

    @Option(help: "WatchdogSec of the unit, s: acceld pings every half of it.")
    var watchdog = 10.0

    func run() throws {
        let chosen = try parts.map { names in
            try names.split(separator: ",").map { name in
                guard let part = ChipProfile.named(String(name)) else { throw ValidationError("--parts: no part \(name)") }
                return part
            }
        } ?? ChipProfile.inReadingOrder
        var worst = (wait: 0.0, gap: 0.0, events: Set<Int>())
        for part in chosen {
            let figure = try measure(part)
            worst = (max(worst.wait, figure.wait), max(worst.gap, figure.gap), worst.events.union([figure.events]))
            print("\(part.name.padding(toLength: 10, withPad: " ", startingAt: 0)) to \(figure.rate) Hz: hello + status in \(fixed(figure.wait * 1000, 1)) ms; largest watchdog gap \(fixed(figure.gap, 2)) s; \(figure.events) configured event\(figure.events == 1 ? "" : "s"), new rate \(figure.told.map(String.init) ?? "none")")
        }
        print("control: worst hello + status \(fixed(worst.wait * 1000, 1)) ms (target ≤ 20 ms); largest watchdog gap \(fixed(worst.gap, 2)) s at WatchdogSec=\(fixed(watchdog, 0)) (target ≤ \(fixed(watchdog * 0.55, 1)) s); configured events per configure: \(worst.events.sorted()) (target [1])")
    }

    private func measure(_ part: ChipProfile) throws -> (rate: Int, wait: Double, gap: Double, events: Int, told: Int?) {
        let directory = NSTemporaryDirectory() + "accel-bench-control-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pings = try WatchdogListener(path: directory + "/notify")
        var configuration = Configuration()
        configuration.socket.path = directory + "/acceld.sock"
        configuration.daemon.calibrationFile = directory + "/calibration.json"
        configuration.device.part = part.name
        let options = Daemon.Options(configuration: configuration, configurationPath: nil, source: .simulated(motion: "rest"))
        let daemon = Daemon(options: options, environment: ["NOTIFY_SOCKET": pings.path, "WATCHDOG_USEC": String(Int(watchdog * 1e6))])
        try daemon.start()
        defer { daemon.stop() }
        let slowest = part.modes[0].rates.map(\.hertz).min()!
        let watcher = try LineSocket(path: configuration.socket.path)
        _ = watcher.readLine(timeout: 10)
        watcher.send(#"{"class":"watch","streams":["device"]}"#)
        _ = watcher.readLine(timeout: 10)
        let asker = try LineSocket(path: configuration.socket.path)
        _ = asker.readLine(timeout: 10)
        // Right after a ping, so that a configure that held the control
        // queue would show as the longest gap it could make.
        _ = pings.next(timeout: watchdog)
        let sent = now()
        asker.send(#"{"class":"configure","rate":\#(slowest)}"#)
        usleep(50_000)
        let started = now()
        let newcomer = try LineSocket(path: configuration.socket.path)
        _ = newcomer.readLine(timeout: 30)
        newcomer.send(#"{"class":"status"}"#)
        _ = newcomer.readLine(timeout: 30)
        let wait = now() - started
        _ = asker.readLine(timeout: 30)
        let answered = now()
        var events = 0
        var told: Int?
        while let line = watcher.readLine(timeout: 1) {
            guard line.contains(#""event":"configured""#) else { continue }
            events += 1
            told = (try? Message(parsing: Array(line.utf8))).flatMap { if case .device(let device) = $0 { device.rate } else { nil } }
        }
        // Pings until half an interval past the reply: the gap spanning the configure is among them.
        while now() < answered + watchdog * 0.55, pings.next(timeout: watchdog) != nil {}
        let times = [sent] + pings.times.filter { $0 > sent }
        let gap = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .infinity
        return (slowest, wait, gap, events, told)
    }
}

/// systemd's side of sd_notify: a datagram socket whose WATCHDOG=1 pings
/// are stamped as they arrive.
private final class WatchdogListener: @unchecked Sendable {
    // (Unchecked: `stamps` is under its lock; `fd` is set once.)
    let path: String
    private let fd: Int32
    private let stamps = Mutex<[Double]>([])

    init(path: String) throws {
        self.path = path
        unlink(path)
        guard let fd = unixSocket(SOCK_DGRAM, boundTo: path) else { throw ValidationError("cannot bind \(path): errno \(errno)") }
        self.fd = fd
    }

    deinit { close(fd) }

    var times: [Double] { stamps.withLock { $0 } }

    /// The next WATCHDOG=1 within `timeout` seconds, stamped; nil if none came.
    func next(timeout: Double) -> Double? {
        let deadline = now() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while now() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max((deadline - now()) * 1000, 1))) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let stamp = now()
            if String(decoding: buffer[..<count], as: UTF8.self).contains("WATCHDOG=1") {
                stamps.withLock { $0.append(stamp) }
                return stamp
            }
        }
        return nil
    }
}

/// A client of acceld's socket that sends lines and reads them one at a time.
private final class LineSocket {
    private let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        guard let fd = unixSocket(SOCK_STREAM, connectedTo: path) else { throw ValidationError("cannot connect to \(path): errno \(errno)") }
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ line: String) {
        _ = (line + "\n").withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// The next line within `timeout` seconds; nil if none came.
    func readLine(timeout: Double) -> String? {
        let deadline = now() + timeout
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...end) }
                return String(decoding: pending[..<end], as: UTF8.self)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - now()
            guard left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            pending += buffer[..<count]
        }
    }
}
