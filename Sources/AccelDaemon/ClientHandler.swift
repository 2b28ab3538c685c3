// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import NIOCore

/// Splits a client's bytes into request lines and hands them to the hub.
/// A line longer than the limit gets one `line-too-long` error and is
/// skipped up to its newline; the connection stays up.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let hub: Hub
    private let maxLine: Int
    private var session: Session?
    private var partial: [UInt8] = []
    private var discarding = false

    init(hub: Hub) {
        self.hub = hub
        self.maxLine = hub.socket.maxLineBytes
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
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { bytes in
            var start = 0
            while start < bytes.count {
                guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                    if !discarding { partial.append(contentsOf: bytes[start...]) }
                    break
                }
                if discarding {
                    discarding = false
                } else {
                    partial.append(contentsOf: bytes[start..<newline])
                    if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
                    if partial.count > maxLine {
                        tooLong(session)
                    } else if !partial.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                        hub.handle(partial[...], from: session)
                    }
                }
                partial.removeAll(keepingCapacity: partial.capacity <= 65536)
                start = newline + 1
            }
        }
        if partial.count > maxLine {
            partial.removeAll(keepingCapacity: false)
            discarding = true
            tooLong(session)
        }
    }

    private func tooLong(_ session: Session) {
        hub.write(ProtocolErrorLine.tooLong(maxLine), to: session)
        hub.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}

enum ProtocolErrorLine {
    static func tooLong(_ limit: Int) -> String {
        ProtocolError("line-too-long", "a request line may be at most \(limit) bytes ([socket] max-line-bytes); the rest of this line is skipped").json
    }
}
