// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import NIOCore

/// One client's connection: registers it with the hub and hands its
/// request lines (from LineDecoder) to the router.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = InboundLine

    private let hub: Hub
    private var session: Session?

    init(hub: Hub) {
        self.hub = hub
    }

    /// The handlers a client's channel needs, in order.
    static func addHandlers(to channel: Channel, hub: Hub) throws {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder(maxLength: hub.fanout.settings.maxLineBytes)))
        try channel.pipeline.syncOperations.addHandler(ClientHandler(hub: hub))
    }

    func channelActive(context: ChannelHandlerContext) {
        session = hub.connect(context.channel)
        if let session { hub.greet(session) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let session { hub.disconnect(session) }
        session = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session else { return }
        switch unwrapInboundIn(data) {
        case .line(let bytes):
            hub.router.handle(bytes, from: session)
        case .tooLong:
            let limit = hub.fanout.settings.maxLineBytes
            hub.fanout.reply(.error(ProtocolError("line-too-long", "a request line may be at most \(limit) bytes ([socket] max-line-bytes); the rest of this line is skipped")), to: session)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
