// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import Dispatch
import Synchronization

/// A connection to acceld that stays: on a thread of its own it connects,
/// sends the standing watch, reads lines and decodes them, and when acceld
/// goes away (or says goodbye) it says so once and connects again with
/// back-off, sending the watch again. Frames' sequence numbers are checked
/// across the whole life of the link: a gap is samples lost (a reconnection
/// starts the count afresh; acceld numbers its samples anew). What MotionManager,
/// the gateway's feed and the sensor proxy's link are built on.
public final class DaemonLink: Sendable {
    /// Seconds between attempts to connect: `first`, doubling to `ceiling`;
    /// the first attempt after a loss is at once.
    public struct Backoff: Sendable, Equatable {
        public var first: Double
        public var ceiling: Double
        public init(first: Double = 0.1, ceiling: Double) {
            self.first = first
            self.ceiling = ceiling
        }
        /// A program on the board: back within 2 s of acceld (docs/CLIENTS.md).
        public static let program = Backoff(ceiling: 2)
        /// A service beside acceld (the gateway, the sensor proxy): 0.1 s
        /// doubling to 5 s (docs/SENSORPROXY.md).
        public static let service = Backoff(ceiling: 5)
        /// The wait after `delay`.
        public func after(_ delay: Double) -> Double { min(delay * 2, ceiling) }
    }

    public enum Update: Sendable {
        /// Connected, the watch sent; `awayFor`: seconds since the outage
        /// began, nil for a first connection that never failed.
        case connected(Hello, awayFor: Double?)
        /// A line exactly as acceld sent it, and what it says (lines this
        /// version cannot read are skipped).
        case message(line: [UInt8], Message)
        /// Samples missing before the frame that follows (a gap in the
        /// chip's sample numbers, counting the decimation acceld applies).
        case lostSamples(Int)
        /// The connection failed, or none could be made: said once an
        /// outage, not once an attempt.
        case disconnected(ClientError)
    }

    public let socketPath: String
    private let backoff: Backoff
    private let queue: DispatchQueue
    private let deliver: @Sendable ([Update]) -> Void
    /// Waits between attempts; false when the link was stopped meanwhile.
    private let pause: @Sendable (Double) -> Bool
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    struct State: Sendable {
        var running = false
        var looping = false
        var connection: DaemonConnection?
        var watch: Request?
        /// The watch as a function of acceld's hello, where it depends on
        /// what the daemon offers (its protocol); set, it takes `watch`'s place.
        var chooseWatch: (@Sendable (Hello) -> Request?)?
        var device: DeviceInfo?
        var lost = 0
        var dropped = 0
    }

    /// `deliver` gets what arrived together (a batch of up to 256 lines is
    /// one call), on the link's own thread, in order.
    public convenience init(socketPath: String, backoff: Backoff, label: String = "AccelClient.link",
                            deliver: @escaping @Sendable ([Update]) -> Void) {
        self.init(socketPath: socketPath, backoff: backoff, label: label, pause: nil, deliver: deliver)
    }

    /// `pause`, for tests: waits the seconds given, false to stop.
    init(socketPath: String, backoff: Backoff, label: String, pause: (@Sendable (Double) -> Bool)?,
         deliver: @escaping @Sendable ([Update]) -> Void) {
        self.socketPath = socketPath
        self.backoff = backoff
        self.queue = DispatchQueue(label: label)
        self.deliver = deliver
        let wake = self.wake
        self.pause = pause ?? { seconds in wake.wait(timeout: .now() + seconds) == .timedOut }
    }

    /// Starts the link's thread (again, after `stop`); nothing if it runs.
    public func start() {
        while wake.wait(timeout: .now()) == .success {}  // a stop's wake-up, already taken up
        let spawn = state.withLock { state -> Bool in
            state.running = true
            defer { state.looping = true }
            return !state.looping
        }
        if spawn { queue.async { self.run() } }
    }

    /// Ends the connection within a quarter second, or a wait between
    /// attempts at once.
    public func stop() {
        state.withLock { $0.running = false }
        wake.signal()
    }

    /// The request to hold: sent now if connected, and on every
    /// (re)connection; nil: nothing watched (`unwatch` if connected).
    public func watch(_ request: Request?) {
        state.withLock { state in
            state.watch = request
            state.chooseWatch = nil
            state.connection?.send(request ?? .unwatch(streams: nil))
        }
    }

    /// The watch chosen on each connection from acceld's hello: a client
    /// that uses what a newer protocol added asks an older daemon only for
    /// what it has, rather than get a refusal and nothing.
    public func watch(choosing choose: @escaping @Sendable (Hello) -> Request?) {
        state.withLock { state in
            state.watch = nil
            state.chooseWatch = choose
            if let connection = state.connection { connection.send(choose(connection.hello) ?? .unwatch(streams: nil)) }
        }
    }

    /// Sends a request on the present connection, its reply to come among
    /// the updates; false when there is none (nothing is kept for later).
    @discardableResult
    public func send(_ request: Request) -> Bool {
        state.withLock { state in
            guard let connection = state.connection else { return false }
            connection.send(request)
            return true
        }
    }

    public var isConnected: Bool { state.withLock { $0.connection != nil } }
    /// The device acceld serves (its hello, then its `device` messages).
    public var device: DeviceInfo? { state.withLock { $0.device } }
    /// Samples lost so far, over every connection.
    public var lostSampleCount: Int { state.withLock { $0.lost } }
    /// What acceld says it dropped for this client (`dropped`'s total, summed over connections).
    public var droppedCount: Int { state.withLock { $0.dropped } }

    private var isRunning: Bool { state.withLock { $0.running } }

    /// Whether the loop goes on; when not, it is over (a `start` from now
    /// on starts another), decided under the one lock.
    private func goesOn() -> Bool {
        state.withLock { state in
            if !state.running { state.looping = false }
            return state.running
        }
    }

    // (Connecting and following a connection are functions of their own:
    // as one loop, Swift 6.3.1's optimizer never finished compiling it, -O.)
    private func run() {
        var away: UInt64?
        while goesOn() {
            guard let connection = connect(away: &away) else { continue }
            let awayFor = away.map { Double(MonotonicTime.now() - $0) / 1e9 }
            away = nil
            deliver([.connected(connection.hello, awayFor: awayFor)])
            do {
                try follow(connection)
            } catch {
                state.withLock { $0.connection = nil }
                away = MonotonicTime.now()
                deliver([.disconnected(error)])
            }
        }
        state.withLock { $0.connection = nil }
    }

    /// A connection with the watch sent, tried with back-off until acceld
    /// answers; nil when stopped. An outage is said once.
    private func connect(away: inout UInt64?) -> DaemonConnection? {
        var delay = backoff.first
        while isRunning {
            do throws(ClientError) {
                let connection = try DaemonConnection(path: socketPath)
                state.withLock { state in
                    state.connection = connection
                    state.device = connection.device
                    if let watch = state.chooseWatch.map({ $0(connection.hello) }) ?? state.watch { connection.send(watch) }
                }
                return connection
            } catch {
                if away == nil {
                    away = MonotonicTime.now()
                    deliver([.disconnected(error)])
                }
                guard pause(delay) else { return nil }
                delay = backoff.after(delay)
            }
        }
        return nil
    }

    /// Reads one connection until it fails, acceld says goodbye or the link
    /// stops, delivering batches with their lost samples counted.
    private func follow(_ connection: DaemonConnection) throws(ClientError) {
        var accounting = LostSamples(chipRate: Double(connection.device.rate))
        while isRunning {
            guard var line = try connection.nextLine(timeout: 0.25) else { continue }
            var batch: [Update] = []
            var end: ClientError?
            while true {
                // A class this version cannot read is skipped, as clients do.
                if let message = try? Message(parsing: line) {
                    if let lost = note(message, in: &accounting) { batch.append(.lostSamples(lost)) }
                    batch.append(.message(line: line, message))
                    // Gone as soon as it says so, not when its socket closes.
                    if case .goodbye(let reason) = message { end = .disconnected("acceld said goodbye: \(reason)") }
                }
                guard end == nil, batch.count < 256 else { break }
                do throws(ClientError) {
                    guard let next = try connection.nextLine(timeout: 0) else { break }
                    line = next
                } catch {
                    end = error  // the lines before the end are delivered first
                    break
                }
            }
            if !batch.isEmpty { deliver(batch) }
            if let end { throw end }
        }
    }

    /// Keeps the link's state and the accounting; the samples lost before
    /// `message`, if any.
    private func note(_ message: Message, in accounting: inout LostSamples) -> Int? {
        switch message {
        case .frame(let frame):
            guard let lost = accounting.frame(frame.seq) else { return nil }
            state.withLock { $0.lost += lost }
            return lost
        case .watch(let reply):
            accounting.watched(rate: reply.rate)
        case .device(let device):
            state.withLock { $0.device = device }
            accounting.device(rate: Double(device.rate))
        case .dropped(let count, _):
            state.withLock { $0.dropped += count }
        default:
            break
        }
        return nil
    }
}

/// Gaps in one connection's frame numbers, in the chip's samples: a frame
/// `step` samples after the one before is on time (acceld decimates to the
/// rate watched, `step` = chip rate / frame rate).
struct LostSamples: Sendable {
    private(set) var chipRate: Double
    private(set) var frameRate: Double?
    private(set) var step: UInt64 = 1
    private var last: UInt64?

    init(chipRate: Double) { self.chipRate = chipRate }

    /// The samples missing before frame `seq`, if any.
    mutating func frame(_ seq: UInt64) -> Int? {
        defer { last = seq }
        guard let last, seq > last + step else { return nil }
        return Int(seq - last - step)
    }

    /// A watch reply: frames now come at `rate`.
    mutating func watched(rate: Double?) {
        guard let rate, rate > 0 else { return }
        frameRate = rate
        restep()
    }

    /// A device message: the chip's rate may have changed, and acceld
    /// works the decimation out again; the numbering restarts here.
    mutating func device(rate: Double) {
        guard rate != chipRate else { return }
        chipRate = rate
        last = nil
        restep()
    }

    private mutating func restep() {
        guard let frameRate, chipRate > 0 else { return }
        step = UInt64(max(1, (chipRate / frameRate).rounded()))
    }
}
