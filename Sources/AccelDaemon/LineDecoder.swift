// SPDX-License-Identifier: Apache-2.0
import NIOCore

/// What a client's bytes come to: request lines, or the news that a line
/// was longer than allowed.
enum InboundLine: Equatable {
    case line([UInt8])
    case tooLong
}

/// Splits a client's bytes into lines of at most `maxLength` bytes (without
/// the newline, and a CR before it). A longer line is reported once and
/// skipped up to its newline; blank lines are ignored.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundLine

    let maxLength: Int
    private var discarding = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maxLength {
                buffer.moveReaderIndex(to: buffer.writerIndex)
                if !discarding {
                    discarding = true
                    context.fireChannelRead(wrapInboundOut(.tooLong))
                }
            }
            return .needMoreData
        }
        var line = buffer.readBytes(length: newline - buffer.readerIndex)!
        buffer.moveReaderIndex(forwardBy: 1)
        if discarding {
            discarding = false
            return .continue
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        if line.count > maxLength {
            context.fireChannelRead(wrapInboundOut(.tooLong))
        } else if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its newline is not a request.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
