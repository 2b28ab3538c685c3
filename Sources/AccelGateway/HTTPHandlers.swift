// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// What every connection's handlers share.
struct GatewayContext: Sendable {
    let policy: HostPolicy
    let assets: WebAssets
    let metrics: GatewayMetrics
    let metricsEnabled: Bool
}

/// GET and HEAD only: the page's files, /metrics when enabled, and the
/// answer for a /ws/ path that came without a (valid) upgrade. Every
/// response names what was wrong when it refuses. Nothing here reaches
/// acceld: configure, calibrate and self-test are not offered over HTTP.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let shared: GatewayContext
    private var head: HTTPRequestHead?

    init(_ shared: GatewayContext) { self.shared = shared }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break  // no route takes a body; it is read and dropped
        case .end:
            if let head { respond(to: head, context: context) }
            head = nil
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let host = head.headers["host"].first ?? ""
        guard shared.policy.allowsHost(host) else {
            shared.metrics.refused("host")
            return send(.forbidden, "Host '\(host)' is not a name this gateway answers to: add it to [gateway] server-names (a page elsewhere could otherwise reach the board through DNS rebinding)\n", head, context)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return send(.methodNotAllowed, "\(head.method) is not served: the gateway is read-only (GET, HEAD)\n", head, context, extra: [("Allow", "GET, HEAD")])
        }
        let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "/")
        if let stream = StreamHub.Stream(uri: path) {
            if !shared.policy.allowsOrigin(head.headers["origin"].first) {
                shared.metrics.refused("origin")
                return send(.forbidden, "Origin '\(head.headers["origin"].first ?? "")' may not open \(path): only pages this gateway serves may\n", head, context)
            }
            return send(.badRequest, "\(path) is the \(stream.rawValue) WebSocket stream: connect with a WebSocket upgrade (GET with Upgrade: websocket)\n", head, context)
        }
        if path == "/metrics" && shared.metricsEnabled {
            return send(.ok, shared.metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8", head, context)
        }
        guard let asset = shared.assets[path] else {
            return send(.notFound, "\(path) is not here: the live page is at /\n", head, context)
        }
        send(.ok, asset.bytes, type: asset.contentType, head, context)
    }

    private func send(_ status: HTTPResponseStatus, _ text: String, _ head: HTTPRequestHead, _ context: ChannelHandlerContext,
                      extra: [(String, String)] = []) {
        send(status, Array(text.utf8), type: "text/plain; charset=utf-8", head, context, extra: extra)
    }

    private func send(_ status: HTTPResponseStatus, _ body: [UInt8], type: String, _ head: HTTPRequestHead,
                      _ context: ChannelHandlerContext, extra: [(String, String)] = []) {
        shared.metrics.response(Int(status.code))
        var headers = HTTPHeaders([
            ("Content-Type", type), ("Content-Length", String(body.count)), ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
            ("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:"),
        ] + extra)
        let keepAlive = head.isKeepAlive && status.code < 400
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

extension StreamHub.Stream {
    /// The stream a request's target names (its query ignored).
    init?(uri: String) {
        switch uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" {
        case "/ws/acceld": self = .acceld
        case "/ws/motion": self = .motion
        default: return nil
        }
    }
}

/// One WebSocket client. Nothing it sends is acted on (the streams are
/// one-way); pings are answered and a close is returned.
final class WebSocketSession: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let stream: StreamHub.Stream
    private let hub: StreamHub
    private var closing = false

    init(stream: StreamHub.Stream, hub: StreamHub) {
        self.stream = stream
        self.hub = hub
    }

    func handlerAdded(context: ChannelHandlerContext) { hub.add(context.channel, stream: stream) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            guard !closing else { return context.close(promise: nil) }
            closing = true
            var data = frame.unmaskedData
            let code = data.readSlice(length: 2) ?? context.channel.allocator.buffer(capacity: 0)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)))
                .whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }
}

/// At most `limit` connections at once; the next gets 503 and is closed
/// before any of its bytes are parsed.
final class ConnectionLimiter: Sendable {
    private let open: Mutex<Int>
    private let limit: Int
    private let metrics: GatewayMetrics

    init(limit: Int, metrics: GatewayMetrics) {
        self.open = Mutex(0)
        self.limit = limit
        self.metrics = metrics
    }

    /// Admits a new connection, or refuses it; call from the child
    /// channel's initializer.
    func admit(_ channel: Channel) -> Bool {
        let admitted = open.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in self.open.withLock { $0 -= 1 } }
        } else {
            metrics.refused("connections")
            metrics.response(503)
            let body = "The gateway serves its maximum of \(limit) connections ([gateway] max-connections): try later.\n"
            let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
            channel.writeAndFlush(channel.allocator.buffer(string: text)).whenComplete { _ in channel.close(promise: nil) }
        }
        return admitted
    }
}

/// Closes a connection that has sent nothing for the idle time before
/// its upgrade (a slow or silent client must not hold a slot).
final class IdleCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }
}
