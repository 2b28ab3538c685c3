// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelMotion
import AccelProtocol
import Dispatch
import Logging

/// The connected clients and delivery to them: each has its own bounded
/// buffer; what does not fit is dropped and counted, and a client that
/// stops reading is disconnected. Lines for a client gather in its outbox
/// and go to the kernel as one write at the flush (a FIFO wake brings 18:
/// docs/PERFORMANCE.md, "Fewer system calls per wake"). Confined to the
/// hub's queue.
final class Fanout {
    let settings: SocketSettings
    private let logger = Logger(label: "acceld.server")
    private(set) var sessions: [Int: Session] = [:]
    private var nextID = 1

    init(settings: SocketSettings) {
        self.settings = settings
    }

    var count: Int { sessions.count }

    /// Registers a new client on its connected socket `descriptor` (which
    /// the session then owns), or refuses it when the daemon is full.
    func connect(_ descriptor: Int32, credentials: PeerCredentials?, queue: DispatchQueue) -> Session? {
        let socket = ClientSocket(descriptor: descriptor, queue: queue, bufferBytes: settings.clientBufferBytes)
        let session = Session(id: nextID, socket: socket, credentials: credentials)
        nextID += 1
        guard sessions.count < settings.maxClients else {
            let refusal = ProtocolError("too-many-clients", "acceld serves at most \(settings.maxClients) clients ([socket] max-clients); try again later")
            send(.error(refusal), to: session, isReply: true)
            session.flush()
            socket.shutDown()
            socket.close()
            return nil
        }
        sessions[session.id] = session
        return session
    }

    /// Forgets a client whose connection closed, and closes our side of it.
    func remove(_ session: Session) {
        sessions[session.id] = nil
        session.socket.close()
    }

    /// Queues a message for a client. A streamed one (a frame, an event,
    /// a status or device push) is counted as dropped instead if the
    /// client's buffer is full: it is told how many on its next delivered
    /// message. Replies are never dropped: a client past its buffer is not
    /// read from (Session), so it cannot ask for more than it takes.
    func send(_ message: Message, to session: Session, isReply: Bool = false) {
        send(message.jsonBytes, to: session, isReply: isReply)
    }

    func send(_ line: [UInt8], to session: Session, isReply: Bool = false) {
        if session.socket.isWritable {
            session.stuckSince = nil
        } else if !isReply {
            session.dropped += 1
            session.totalDropped += 1
            if session.stuckSince == nil { session.stuckSince = MonotonicTime.now() }
            return
        }
        if session.dropped > 0 {
            let notice = Message.dropped(count: session.dropped, total: session.totalDropped)
            session.dropped = 0
            session.append(notice.jsonBytes)
        }
        session.append(line)
    }

    /// A reply: sent at once.
    func reply(_ message: Message, to session: Session) {
        send(message, to: session, isReply: true)
        flush()
    }

    /// To every client that `wants` it, encoded once.
    func broadcast(_ message: Message, to wants: (Session) -> Bool) {
        let line = message.jsonBytes
        for session in sessions.values where wants(session) { send(line, to: session) }
    }

    /// Hands what was queued to the kernel, one write per client, and
    /// disconnects clients that have not read for too long.
    func flush() {
        var now: UInt64?
        for session in sessions.values {
            session.flush()
            // A client that drained its backlog is not stuck, whether or not
            // anything was sent to it since.
            if session.socket.isWritable { session.stuckSince = nil }
            guard let since = session.stuckSince else { continue }
            if now == nil { now = MonotonicTime.now() }
            if Double(now! - since) / 1e9 > settings.clientStuckSeconds {
                logger.notice("client \(session.id) has not read for \(settings.clientStuckSeconds) s: disconnecting it")
                sessions[session.id] = nil
                session.socket.shutDown()
                session.socket.close()
            }
        }
    }

    /// A frame to the clients at whose rate it falls, and its events to
    /// their watchers. Encoded once per set of fields, for every client
    /// that wants those fields (most want the same: one encoding).
    func publish(_ frame: Frame, _ events: [MotionEvent]) {
        var encoded: (fields: FrameFields, line: [UInt8])?
        for session in sessions.values {
            if session.streams.contains(.frames) && frame.seq % session.decimation == session.phase {
                if let reference = session.reference {
                    send(frame.jsonBytes(fields: session.fields, reference: reference), to: session)
                } else if let encoded, encoded.fields == session.fields {
                    send(encoded.line, to: session)
                } else {
                    let line = frame.jsonBytes(fields: session.fields)
                    encoded = (session.fields, line)
                    send(line, to: session)
                }
            }
            for event in events where session.watches(event) {
                send(.event(event), to: session)
            }
        }
    }

    /// Ends every connection (NIO's reading side sees end of file).
    func closeAll() {
        for session in sessions.values {
            session.socket.shutDown()
            session.socket.close()
        }
        sessions.removeAll()
    }
}
