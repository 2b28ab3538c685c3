// SPDX-License-Identifier: Apache-2.0
import AccelClient
import AccelProtocol

/// acceld as the gateway sees it: one connection however many browsers,
/// brokers and scrapers there are, watching every stream, reconnecting
/// with back-off (0.1 s doubling to 5 s) when acceld restarts: AccelClient's
/// `DaemonLink`, its updates in the gateway's terms. acceld sees one
/// well-behaved client; nothing a network peer does reaches it.
public final class DaemonFeed: Sendable {
    public enum Update: Sendable {
        case connected(Hello)
        /// A line exactly as acceld sent it (forwarded without re-encoding),
        /// and what it says.
        case message(line: [UInt8], Message)
        case disconnected(reason: String)
    }

    public var socketPath: String { link.socketPath }
    /// Frames may come this late (ms): acceld then hands them over in
    /// batches (from the FIFO where the part has one), far fewer wake-ups
    /// on the board than one per sample; the page draws at 60 Hz anyway.
    public static let frameLatency = 50.0
    private let link: DaemonLink

    /// The protocol that brought the `vibration` and `machine` streams.
    public static let vibrationProtocol = 3

    /// What to watch on a daemon that greets with `hello`: every stream the
    /// page, the metrics and MQTT show, and, when `vibration` is asked for
    /// and the daemon has it, its windows and the machine's state. An older
    /// daemon would refuse the whole watch for an unknown stream.
    public static func watch(for hello: Hello, vibration: VibrationWatch?) -> Request {
        var streams = StreamName.byDefault.union([.status])
        var windows: VibrationWatch?
        if let vibration, hello.protocolVersion >= vibrationProtocol {
            streams.formUnion([.vibration, .machine])
            windows = vibration
        }
        return .watch(streams: streams, rate: nil, fields: .all, latency: DaemonFeed.frameLatency, vibration: windows)
    }

    /// `deliver` gets what arrived together: a batch of frames is one call.
    /// `vibration`: the windows to watch where acceld has the analysis.
    public init(socketPath: String, vibration: VibrationWatch? = nil, deliver: @escaping @Sendable ([Update]) -> Void) {
        link = DaemonLink(socketPath: socketPath, backoff: .service, label: "acceld-gateway.feed") { updates in
            let batch = updates.compactMap { update -> Update? in
                switch update {
                case .connected(let hello, _): .connected(hello)
                case .message(let line, let message): .message(line: line, message)
                case .disconnected(let error): .disconnected(reason: error.description)
                case .lostSamples: nil  // the page and the metrics count from acceld's own numbers
                }
            }
            if !batch.isEmpty { deliver(batch) }
        }
        link.watch { hello in DaemonFeed.watch(for: hello, vibration: vibration) }
    }

    public func start() { link.start() }

    /// Ends the connection within a quarter second.
    public func stop() { link.stop() }
}
