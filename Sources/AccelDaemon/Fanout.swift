// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelMotion
import AccelProtocol
import Logging
import NIOCore

/// The connected clients and delivery to them: each has its own bounded
/// buffer; what does not fit is dropped and counted, and a client that
/// stops reading is disconnected. Confined to the hub's event loop.
final class Fanout {
    let settings: SocketSettings
    private let logger = Logger(label: "acceld.server")
    private(set) var sessions: [Int: Session] = [:]
    private var nextID = 1

    init(settings: SocketSettings) {
        self.settings = settings
    }

    var count: Int { sessions.count }

    /// Registers a new client, or refuses it when the daemon is full.
    func connect(_ channel: Channel) -> Session? {
        let session = Session(id: nextID, channel: channel)
        nextID += 1
        guard sessions.count < settings.maxClients else {
            let refusal = ProtocolError("too-many-clients", "acceld serves at most \(settings.maxClients) clients ([socket] max-clients); try again later")
            send(.error(refusal), to: session)
            channel.writeAndFlush(channel.allocator.buffer(capacity: 0)).whenComplete { _ in channel.close(promise: nil) }
            return nil
        }
        sessions[session.id] = session
        return session
    }

    func remove(_ session: Session) {
        sessions[session.id] = nil
    }

    func send(_ message: Message, to session: Session) {
        send(message.jsonBytes, to: session)
    }

    func send(_ line: [UInt8], to session: Session) {
        send(buffer: lineBuffer(line, session.channel.allocator), to: session)
    }

    /// A reply: sent at once.
    func reply(_ message: Message, to session: Session) {
        send(message, to: session)
        flush()
    }

    /// To every client that `wants` it, encoded once.
    func broadcast(_ message: Message, to wants: (Session) -> Bool) {
        let line = message.jsonBytes
        for session in sessions.values where wants(session) { send(line, to: session) }
    }

    /// A line and its newline in a buffer.
    private func lineBuffer(_ line: [UInt8], _ allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: line.count + 1)
        buffer.writeBytes(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// Queues a line for a client, or counts it as dropped if the client's
    /// buffer is full (it is told how many on its next delivered message).
    func send(buffer: ByteBuffer, to session: Session) {
        let channel = session.channel
        guard channel.isWritable else {
            session.dropped += 1
            session.totalDropped += 1
            if session.stuckSince == nil { session.stuckSince = MonotonicTime.now() }
            return
        }
        session.stuckSince = nil
        if session.dropped > 0 {
            let notice = Message.dropped(count: session.dropped, total: session.totalDropped)
            session.dropped = 0
            channel.write(lineBuffer(notice.jsonBytes, channel.allocator), promise: nil)
        }
        channel.write(buffer, promise: nil)
        session.needsFlush = true
    }

    /// Hands what was queued to the kernel, one write per client, and
    /// disconnects clients that have not read for too long.
    func flush() {
        let now = MonotonicTime.now()
        for session in sessions.values {
            if session.needsFlush {
                session.needsFlush = false
                session.channel.flush()
            }
            if let since = session.stuckSince, Double(now - since) / 1e9 > settings.clientStuckSeconds {
                logger.notice("client \(session.id) has not read for \(settings.clientStuckSeconds) s: disconnecting it")
                sessions[session.id] = nil
                session.channel.close(promise: nil)
            }
        }
    }

    /// A frame to the clients at whose rate it falls, and its events to
    /// their watchers. Encoded into one buffer per set of fields, shared by
    /// every client that wants those fields (NIO buffers are copy-on-write).
    func publish(_ frame: Frame, _ events: [MotionEvent]) {
        var encoded: [FrameFields: ByteBuffer] = [:]
        for session in sessions.values {
            if session.streams.contains(.frames) && frame.seq % session.decimation == session.phase {
                if let reference = session.reference {
                    send(frame.jsonBytes(fields: session.fields, reference: reference), to: session)
                } else if let cached = encoded[session.fields] {
                    send(buffer: cached, to: session)
                } else {
                    let buffer = lineBuffer(frame.jsonBytes(fields: session.fields), session.channel.allocator)
                    encoded[session.fields] = buffer
                    send(buffer: buffer, to: session)
                }
            }
            for event in events where session.watches(event) {
                send(.event(event), to: session)
            }
        }
    }

    func closeAll(on eventLoop: EventLoop) -> EventLoopFuture<Void> {
        let closes = sessions.values.map { $0.channel.close() }
        sessions.removeAll()
        return EventLoopFuture.andAllComplete(closes, on: eventLoop)
    }
}
