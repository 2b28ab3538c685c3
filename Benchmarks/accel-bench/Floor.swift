// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelCore
import AccelDriver
import ArgumentParser
import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// The floor under acceld's live figures: what the design's timing alone
/// costs on this machine, with no chip, no pipeline and no JSON. A
/// DispatchSourceTimer repeating at the output rate on a serial queue (as
/// the sampler's), each tick handed to a SwiftNIO event loop (as each frame
/// is to the hub), which writes a frame-sized line to each of `--clients`
/// sockets with plain write(2). Prints the CPU of all but the thread that
/// reads those sockets, and how late the ticks ran: a tick later than one period
/// minus the sampler's 0.3 ms margin is a sample acceld would have lost.
struct Floor: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "CPU and lateness of a bare 400 Hz DispatchSourceTimer with a hand-off to a SwiftNIO loop.")

    @Option(help: "Ticks per second.")
    var rate = 400

    @Option(help: "Seconds to run.")
    var seconds = 30.0

    @Flag(help: "The timer alone, without handing each tick to the event loop.")
    var noHop = false

    @Option(help: "Sockets to write a 230-byte line to on each tick.")
    var clients = 0

    @Flag(help: "For comparison: a plain thread sleeping with clock_nanosleep instead of the DispatchSourceTimer.")
    var thread = false

    func run() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let queue = DispatchQueue(label: "floor", qos: .userInteractive)
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        let interval = UInt64(1e9 / Double(rate))
        let ticks = Int(seconds * Double(rate))
        // Confined to `queue`: tick index (coalesced fires count) and time.
        nonisolated(unsafe) var fired: [(index: UInt64, at: UInt64)] = []
        nonisolated(unsafe) var index: UInt64 = 0
        fired.reserveCapacity(ticks + 1)
        let done = DispatchSemaphore(value: 0)
        let hop = !noHop
        let readers = try Readers(count: clients)
        let sockets = readers.writeEnds
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 229) + [0x0A]
        let deliver: @Sendable () -> Void = { for fd in sockets { _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } } }
        let tick: @Sendable () -> Void = { if hop { loop.execute(deliver) } else { deliver() } }
        timer.setEventHandler {
            fired.append((index, MonotonicTime.now()))
            index += UInt64(max(timer.data, 1))
            tick()
            if fired.count == ticks { timer.cancel(); done.signal() }
        }
        let cpuStart = cpuSeconds()
        let start = now()
        if thread {
            // One wake-up per tick: sleep to absolute deadlines on CLOCK_MONOTONIC.
            let origin = MonotonicTime.now()
            let sleeper = Thread {
                for k in 0..<UInt64(ticks) {
                    let due = origin + k * interval
                    var deadline = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
                    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
                    fired.append((k, MonotonicTime.now()))
                    index = k + 1
                    tick()
                }
                done.signal()
            }
            sleeper.start()
        } else {
            timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(interval)), leeway: .microseconds(50))
            timer.resume()
        }
        done.wait()
        let elapsed = now() - start
        try group.syncShutdownGracefully()
        let reading = readers.finish()
        let cpu = (cpuSeconds() - reading - cpuStart) / elapsed * 100

        // Lateness against the ideal grid: the earliest tick (relative to
        // its index) defines time zero.
        let offsets = fired.map { Double($0.at) - Double($0.index) * Double(interval) }
        let zero = offsets.min()!
        let lateness = offsets.map { ($0 - zero) / 1e6 }.sorted()
        let limit = Double(interval) / 1e6 - 0.3
        let late = lateness.filter { $0 > limit }.count
        let coalesced = Int(index) - fired.count
        print("floor: a \(rate) Hz \(thread ? "clock_nanosleep thread" : "DispatchSourceTimer")\(hop ? " handing each tick to a SwiftNIO loop" : " alone")\(clients > 0 ? ", \(clients) writes a tick" : ""), \(Int(seconds)) s:"
              + " CPU \(fixed(cpu, 2)) % of one core;"
              + " lateness p50 \(fixed(lateness[lateness.count / 2], 3)) ms, p99 \(fixed(lateness[lateness.count * 99 / 100], 3)) ms, max \(fixed(lateness.last!, 3)) ms;"
              + " \(late) ticks later than \(fixed(limit, 1)) ms and \(coalesced) coalesced (samples an overrun would have cost)")
    }

    /// Socket pairs: the write ends, and a thread that drains the read
    /// ends with one poll loop (as `accel-bench load` does). `finish()`
    /// closes them and returns that thread's CPU time, to be left out.
    final class Readers: @unchecked Sendable {
        let writeEnds: [Int32]
        private let readEnds: [Int32]
        private var readerSeconds = 0.0
        private let finished = DispatchSemaphore(value: 0)

        init(count: Int) throws {
            var pairs: [[Int32]] = []
            for _ in 0..<count {
                var pair: [Int32] = [0, 0]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw ValidationError("socketpair failed") }
                pairs.append(pair)
            }
            writeEnds = pairs.map { $0[0] }
            readEnds = pairs.map { $0[1] }
            guard count > 0 else { return }
            Thread {
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                var fds = self.readEnds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                drain: while poll(&fds, nfds_t(fds.count), -1) > 0 {
                    for i in fds.indices where fds[i].revents != 0 {
                        if read(fds[i].fd, &buffer, buffer.count) <= 0 { break drain }
                    }
                }
                var spent = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spent)
                self.readerSeconds = Double(spent.tv_sec) + Double(spent.tv_nsec) / 1e9
                self.finished.signal()
            }.start()
        }

        func finish() -> Double {
            writeEnds.forEach { _ = close($0) }
            if !readEnds.isEmpty { finished.wait() }
            readEnds.forEach { _ = close($0) }
            return readerSeconds
        }
    }

    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
