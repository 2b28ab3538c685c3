// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelCore
import AccelProtocol
import Dispatch
import Synchronization

/// acceld as the gateway sees it: one connection however many browsers,
/// brokers and scrapers there are, watching every stream, reconnecting
/// with back-off (0.1 s doubling to 5 s) when acceld restarts. acceld sees
/// one well-behaved client; nothing a network peer does reaches it.
public final class DaemonFeed: Sendable {
    public enum Update: Sendable {
        case connected(Hello)
        /// A line exactly as acceld sent it (forwarded without re-encoding),
        /// and what it says.
        case message(line: [UInt8], Message)
        case disconnected(reason: String)
    }

    public let socketPath: String
    /// Frames may come this late (ms): acceld then hands them over in
    /// batches (from the FIFO where the part has one), far fewer wake-ups
    /// on the board than one per sample; the page draws at 60 Hz anyway.
    public static let frameLatency = 50.0
    private let running = Mutex(false)
    private let queue = DispatchQueue(label: "acceld-gateway.feed")
    private let deliver: @Sendable ([Update]) -> Void

    /// `deliver` gets what arrived together: a batch of frames is one call.
    public init(socketPath: String, deliver: @escaping @Sendable ([Update]) -> Void) {
        self.socketPath = socketPath
        self.deliver = deliver
    }

    public func start() {
        running.withLock { $0 = true }
        queue.async { self.run() }
    }

    /// Ends the connection within a quarter second.
    public func stop() { running.withLock { $0 = false } }

    private var isRunning: Bool { running.withLock { $0 } }

    private func run() {
        var backoff = 0.1
        var away = false
        while isRunning {
            let connection: DaemonConnection
            do {
                connection = try DaemonConnection(path: socketPath)
            } catch {
                if !away { deliver([.disconnected(reason: error.description)]) }
                away = true
                MonotonicTime().sleep(seconds: backoff)
                backoff = min(backoff * 2, 5)
                continue
            }
            backoff = 0.1
            away = false
            deliver([.connected(connection.hello)])
            connection.send(.watch(streams: Set(StreamName.allCases), rate: nil, fields: .all, latency: DaemonFeed.frameLatency))
            do {
                while isRunning {
                    guard var line = try connection.nextLine(timeout: 0.25) else { continue }
                    var batch: [Update] = []
                    while true {
                        // A class this version cannot read is skipped, as clients do.
                        if let message = try? Message(parsing: line) { batch.append(.message(line: line, message)) }
                        guard batch.count < 256, let next = try connection.nextLine(timeout: 0) else { break }
                        line = next
                    }
                    if !batch.isEmpty { deliver(batch) }
                }
            } catch {
                deliver([.disconnected(reason: error.description)])
                away = true
            }
        }
    }
}
