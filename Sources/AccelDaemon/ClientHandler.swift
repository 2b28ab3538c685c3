// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import NIOCore

/// The reading side of one client's connection, on NIO's event loop: its
/// request lines (from LineDecoder) go to the router on the hub's queue,
/// in order, and its hang-up removes the session there.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = InboundLine

    private let hub: Hub
    private let session: Session

    init(hub: Hub, session: Session) {
        self.hub = hub
        self.session = session
    }

    /// The handlers a client's channel needs, in order.
    static func addHandlers(to channel: Channel, hub: Hub, session: Session) throws {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder(maxLength: hub.fanout.settings.maxLineBytes)))
        try channel.pipeline.syncOperations.addHandler(ClientHandler(hub: hub, session: session))
    }

    func channelInactive(context: ChannelHandlerContext) {
        let hub = hub, session = session
        hub.queue.async { hub.disconnect(session) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let hub = hub, session = session
        switch unwrapInboundIn(data) {
        case .line(let bytes):
            hub.queue.async { hub.router.handle(bytes, from: session) }
        case .tooLong:
            let limit = hub.fanout.settings.maxLineBytes
            let error = ProtocolError("line-too-long", "a request line may be at most \(limit) bytes ([socket] max-line-bytes); the rest of this line is skipped")
            hub.queue.async { hub.fanout.reply(.error(error), to: session) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
