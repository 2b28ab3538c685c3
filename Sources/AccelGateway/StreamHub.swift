// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import NIOCore
import NIOWebSocket

/// Where acceld's messages meet the WebSocket clients, on the gateway's one
/// event loop. Two streams:
/// - `/ws/acceld`: acceld's own lines, as it sent them (frames, events,
///   device, status), one WebSocket message per batch with the lines
///   separated by newlines, after a greeting that says where things stand;
/// - `/ws/motion`: the same frames as DeviceMotion and DeviceOrientation
///   events (`BrowserMotion`).
/// A client that does not read loses messages (counted in /metrics) rather
/// than hold memory, and is closed after 10 s of that.
final class StreamHub {
    enum Stream: String { case acceld, motion }

    private struct Session {
        let channel: Channel
        let stream: Stream
        var unwritableSince: NIODeadline?
    }

    private let loop: EventLoop
    private let metrics: GatewayMetrics
    private var sessions: [ObjectIdentifier: Session] = [:]
    /// The gateway's own state line, then acceld's latest hello, watch reply,
    /// orientation, device and status lines: what a newcomer is sent first.
    private var gatewayLine = StreamHub.gatewayLine(connected: false, reason: "connecting")
    private var hello: [UInt8]?, watch: [UInt8]?, orientation: [UInt8]?, device: [UInt8]?, status: [UInt8]?
    /// ms between frames, for DeviceMotionEvent.interval.
    private var frameInterval = 10.0
    static let stuckLimit = TimeAmount.seconds(10)

    init(loop: EventLoop, metrics: GatewayMetrics) {
        self.loop = loop
        self.metrics = metrics
    }

    var count: Int { sessions.count }

    func add(_ channel: Channel, stream: Stream) {
        loop.preconditionInEventLoop()
        let id = ObjectIdentifier(channel)
        sessions[id] = Session(channel: channel, stream: stream)
        // By the close future, not channelInactive: a client that hangs up
        // during the upgrade is already inactive when its session is added.
        let hub = NIOLoopBound(self, eventLoop: loop)
        channel.closeFuture.whenComplete { _ in hub.value.remove(id) }
        metrics.webSocketClients.set(to: Double(sessions.count))
        if stream == .acceld {
            let greeting = [gatewayLine, hello, watch, orientation, device, status].compactMap { $0 }
            send(greeting, to: id)
        }
    }

    private func remove(_ id: ObjectIdentifier) {
        sessions[id] = nil
        metrics.webSocketClients.set(to: Double(sessions.count))
    }

    /// Closes every session (the gateway stops).
    func closeAll() {
        for session in sessions.values {
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: session.channel.allocator.buffer(integer: UInt16(1001)))
            session.channel.writeAndFlush(frame).whenComplete { _ in session.channel.close(promise: nil) }
        }
    }

    func handle(_ updates: [DaemonFeed.Update]) {
        var lines: [[UInt8]] = [], motion: [[UInt8]] = []
        // The DeviceMotion form costs a string a frame: only for its readers.
        let motionWanted = sessions.values.contains { $0.stream == .motion }
        for update in updates {
            switch update {
            case .connected(let greeting):
                gatewayLine = StreamHub.gatewayLine(connected: true, reason: nil)
                hello = Array(Message.hello(greeting).json.utf8)
                watch = nil; orientation = nil; device = nil; status = nil
                lines += [gatewayLine, hello!]
            case .disconnected(let reason):
                gatewayLine = StreamHub.gatewayLine(connected: false, reason: reason)
                lines.append(gatewayLine)
            case .message(let line, let message):
                switch message {
                case .frame(let frame) where motionWanted:
                    motion.append(Array(BrowserMotion.message(for: frame, interval: frameInterval).utf8))
                case .event(.orientation):
                    orientation = line
                case .status:
                    status = line
                case .device:
                    device = line
                case .watch(let reply):
                    watch = line
                    if let rate = reply.rate, rate > 0 { frameInterval = 1000 / rate }
                default:
                    break
                }
                lines.append(line)
            }
        }
        for (id, session) in sessions {
            let batch = session.stream == .acceld ? lines : motion
            if !batch.isEmpty { send(batch, to: id) }
        }
    }

    private func send(_ lines: [[UInt8]], to id: ObjectIdentifier) {
        guard var session = sessions[id] else { return }
        let channel = session.channel
        if channel.isWritable {
            var buffer = channel.allocator.buffer(capacity: lines.reduce(lines.count) { $0 + $1.count })
            for (index, line) in lines.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: "\n")) }
                buffer.writeBytes(line)
            }
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
            session.unwritableSince = nil
        } else {
            metrics.webSocketDropped.increment(by: Int64(lines.count))
            let now = NIODeadline.now()
            if let since = session.unwritableSince, now - since > StreamHub.stuckLimit {
                channel.close(promise: nil)
            } else if session.unwritableSince == nil {
                session.unwritableSince = now
            }
        }
        sessions[id] = session
    }

    static func gatewayLine(connected: Bool, reason: String?) -> [UInt8] {
        var object: JSONObject = ["class": .string("gateway"), "daemon": .string(connected ? "connected" : "disconnected")]
        if let reason { object["reason"] = .string(reason) }
        return Array(JSONValue.object(object).jsonText.utf8)
    }
}
