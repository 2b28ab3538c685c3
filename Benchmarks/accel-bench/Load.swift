// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelClient
import AccelCore
import AccelDriver
import AccelProtocol
import ArgumentParser
import Foundation

/// Many clients on one poll loop, each watching every stream: counts
/// frames, gaps in their sequence numbers, and delivery latency (receipt
/// on CLOCK_MONOTONIC minus the frame's sampling instant `t`, which acceld
/// gives on the same clock). With --pid, also the daemon's CPU, peak RSS
/// and open descriptors from /proc.
struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Client load on a running acceld: latency, lost samples, and the daemon's CPU and memory.")

    @Option(help: "acceld's socket.")
    var socket: String

    @Option(help: "Clients.")
    var clients = 16

    @Option(help: "Frame rate each client asks for, Hz (default: the chip's).")
    var rate: Double?

    @Option(help: "Latency each client allows, ms: with a FIFO part, the daemon batches samples (default: none).")
    var latency: Double?

    @Option(help: "Seconds to measure.")
    var seconds = 60.0

    @Option(help: "acceld's process id, for CPU, RSS and descriptors.")
    var pid: Int32?

    @Option(help: "Churn: each second, this many extra clients connect, read a little, and leave.")
    var churn = 0

    @Option(help: "Print RSS and descriptors every this many seconds (with --pid), and the samples the daemon lost in that window.")
    var every: Double = 0

    @Flag(help: "Churn only in every other --every window, to compare the samples lost with and without it in one run.")
    var alternateChurn = false

    @Option(help: ArgumentHelp("Also one client watching vibration: windows of this many seconds, half overlapped, 256 spectrum bins.", valueName: "seconds"))
    var vibration: Double?

    struct Client {
        var fd: Int32
        /// The sequence step between frames: the chip's rate over the
        /// client's (decimation), learnt from hello and the watch reply.
        var step = 1
        var chipRate: Double?
        var buffer: [UInt8] = []
        var lastSeq: Int?
        var frames = 0
        var gaps = 0
        var dropped = 0
        /// A vibration client's windows: the first sample of each.
        var windowStarts: [Int] = []
    }

    func connectClient(vibration: Double? = nil) -> Int32? {
        guard let fd = unixSocket(SOCK_STREAM, connectedTo: socket) else { return nil }
        let frames = Request.watch(streams: StreamName.events.union([.frames, .device]), rate: rate, fields: .all, latency: latency)
        let windows = vibration.map { Request.watch(streams: [.vibration], rate: nil, fields: .all, latency: nil, vibration: VibrationWatch(window: $0, spectrumBins: 256)) }
        let request = (windows ?? frames).json + "\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// Finds `"key":<number>` in a line without a JSON parser (cheap, so the
    /// load generator does not become the bottleneck).
    static func number(_ key: [UInt8], in line: ArraySlice<UInt8>) -> Double? {
        guard let start = line.firstRange(of: key) else { return nil }
        var end = start.upperBound
        while end < line.endIndex, line[end] != UInt8(ascii: ","), line[end] != UInt8(ascii: "}") { end += 1 }
        return Double(String(decoding: line[start.upperBound..<end], as: UTF8.self))
    }

    func cpuSeconds(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func memory(_ pid: Int32) -> (rss: Int, peak: Int, fds: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func kb(_ key: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(key) }.flatMap { Int($0.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") } ?? 0
        }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        return (kb("VmRSS:"), kb("VmHWM:"), fds)
    }

    /// The daemon's counters, from a `status` request on a connection of its own.
    func counters() -> (wakes: Double, lost: Double, published: Double)? {
        guard case .status(let status)? = try? DaemonConnection(path: socket).request(.status) else { return nil }
        return (Double(status.counters.wakes), Double(status.counters.lost), Double(status.counters.published))
    }

    func run() throws {
        var pool: [Client] = (0..<clients).compactMap { _ in connectClient().map { Client(fd: $0) } }
        guard pool.count == clients else { throw ValidationError("could only connect \(pool.count) of \(clients) clients to \(socket)") }
        if let vibration {
            guard let fd = connectClient(vibration: vibration) else { throw ValidationError("could not connect the vibration client to \(socket)") }
            pool.append(Client(fd: fd))
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(Int(seconds * 400) * clients)
        // Frames are scanned for their keys, not decoded as Messages: the
        // load generator must cost far less than the daemon it measures.
        let seqKey = Array("\"seq\":".utf8), tKey = Array("\"t\":".utf8), droppedKey = Array("\"class\":\"dropped\"".utf8)
        let vibrationKey = Array("\"class\":\"vibration\"".utf8)
        let helloKey = Array("\"class\":\"hello\"".utf8), watchKey = Array("\"class\":\"watch\"".utf8), rateKey = Array("\"rate\":".utf8)
        let countersStart = counters()
        let start = now()
        let cpuStart = pid.flatMap(cpuSeconds)
        let memoryStart = pid.map(memory)
        if let m = memoryStart { print("daemon at start: RSS \(m.rss / 1024) MB, \(m.fds) descriptors") }
        var nextReport = start + (every > 0 ? every : .infinity)
        var nextChurn = start + 1
        var churned = 0
        // Per window: lost and made (published + lost), by whether clients churned.
        var window = 0, windowStart = countersStart
        var tally: [Bool: (lost: Double, made: Double)] = [true: (0, 0), false: (0, 0)]
        var churning: Bool { !alternateChurn || window % 2 == 0 }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while now() - start < seconds {
            if churn > 0 && churning && now() >= nextChurn {
                nextChurn += 1
                for _ in 0..<churn {
                    if let fd = connectClient() {
                        usleep(1000)
                        _ = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                        close(fd)
                        churned += 1
                    }
                }
            }
            if let pid, now() >= nextReport {
                nextReport += every
                let m = memory(pid)
                var lostNote = ""
                if let a = windowStart, let b = counters() {
                    let lost = b.lost - a.lost, made = b.published - a.published + lost
                    tally[churning]!.lost += lost
                    tally[churning]!.made += made
                    lostNote = "; this window (\(churn > 0 && churning ? "churn" : "quiet")): \(Int(lost)) of \(Int(made)) samples lost"
                    windowStart = b
                }
                print("daemon at \(Int(now() - start)) s: RSS \(m.rss / 1024) MB, \(m.fds) descriptors, \(churned) clients came and went\(lostNote)")
                window += 1
                if alternateChurn { nextChurn = now() + 1 }
            }
            var fds = pool.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
            let received = now()
            for (i, p) in fds.enumerated() where p.revents & Int16(POLLIN) != 0 {
                let n = recv(p.fd, &chunk, chunk.count, 0)
                guard n > 0 else { continue }
                pool[i].buffer.append(contentsOf: chunk[0..<n])
                var lineStart = pool[i].buffer.startIndex
                while let newline = pool[i].buffer[lineStart...].firstIndex(of: 0x0A) {
                    let line = pool[i].buffer[lineStart..<newline]
                    if line.firstRange(of: vibrationKey) != nil {
                        if let seq = Load.number(seqKey, in: line) { pool[i].windowStarts.append(Int(seq)) }
                    } else if line.firstRange(of: helloKey) != nil {
                        pool[i].chipRate = Load.number(rateKey, in: line)
                    } else if line.firstRange(of: watchKey) != nil, let chip = pool[i].chipRate, let rate = Load.number(rateKey, in: line) {
                        pool[i].step = max(1, Int((chip / rate).rounded()))
                    } else if let seq = Load.number(seqKey, in: line).map(Int.init), let t = Load.number(tKey, in: line) {
                        if let last = pool[i].lastSeq, seq != last + pool[i].step { pool[i].gaps += (seq - last) / pool[i].step - 1 }
                        pool[i].lastSeq = seq
                        pool[i].frames += 1
                        latencies.append(received - t)
                    } else if line.firstRange(of: droppedKey) != nil {
                        pool[i].dropped += 1
                    }
                    lineStart = newline + 1
                }
                pool[i].buffer.removeSubrange(..<lineStart)
            }
        }
        let elapsed = now() - start
        let countersEnd = counters()
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(Int(Double(latencies.count) * p), latencies.count - 1)] * 1000 }
        let frames = pool.map(\.frames).reduce(0, +), gaps = pool.map(\.gaps).reduce(0, +), dropped = pool.map(\.dropped).reduce(0, +)
        print("load: \(clients) clients at \(rate.map { "\(fixed($0, 0)) Hz" } ?? "full rate")\(latency.map { ", latency \(fixed($0, 0)) ms" } ?? "") for \(fixed(elapsed, 0)) s: \(frames) frames (\(fixed(Double(frames) / elapsed / Double(clients), 1)) per client per second)")
        if let a = countersStart, let b = countersEnd {
            print("  sampler: \(fixed((b.wakes - a.wakes) / elapsed, 1)) wake-ups a second for \(fixed((b.published - a.published) / elapsed, 1)) samples a second; samples the daemon lost: \(Int(b.lost - a.lost))")
        }
        print("  frames missed (gaps in sequence numbers, per client, summed): \(gaps); dropped notices: \(dropped)")
        if let vibrationClient = pool.last, vibration != nil { print("  " + Load.windowsSummary(vibrationClient.windowStarts)) }
        if alternateChurn, let busy = tally[true], let quiet = tally[false] {
            print("soak: samples lost in churn windows \(Int(busy.lost)) of \(Int(busy.made)), in quiet windows \(Int(quiet.lost)) of \(Int(quiet.made))")
        }
        print("  latency from sampling instant to receipt: p50 \(fixed(percentile(0.5), 3)) ms, p99 \(fixed(percentile(0.99), 3)) ms, max \(fixed(latencies.last.map { $0 * 1000 } ?? .nan, 3)) ms")
        if let pid, let cpuStart, let cpuEnd = cpuSeconds(pid) {
            let m = memory(pid)
            print("  daemon: CPU \(fixed((cpuEnd - cpuStart) / elapsed * 100, 2)) % of one core (user+sys), peak RSS \(fixed(Double(m.peak) / 1024, 1)) MB, RSS now \(fixed(Double(m.rss) / 1024, 1)) MB, \(m.fds) descriptors")
        }
        for client in pool { close(client.fd) }
    }

    /// The vibration client's windows: how many, and whether each came a
    /// hop (half a window) after the last, as they do when no sample is lost.
    static func windowsSummary(_ starts: [Int]) -> String {
        let steps = zip(starts.dropFirst(), starts).map { $0 - $1 }
        let hop = steps.sorted().dropFirst(steps.count / 2).first ?? 0
        let outOfStep = steps.filter { $0 != hop }.count
        return "vibration client: \(starts.count) windows, a hop of \(hop) samples apart; \(outOfStep) out of step (windows start again after lost samples)"
    }
}
