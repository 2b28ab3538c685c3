// SPDX-License-Identifier: Apache-2.0
import AccelMotion
import AccelProtocol
import NIOCore

/// One connected client. Confined to the hub's event loop.
final class Session: @unchecked Sendable {
    let id: Int
    let channel: Channel
    var streams: Set<StreamName> = []
    var fields = FrameFields.all
    /// Deliver every `decimation`-th sample: seq ≡ `phase` (mod `decimation`).
    /// Clients at one rate get different phases, so that a crowd of them
    /// does not all write on the same tick (64 at 50 Hz put p99 past 2 ms).
    var decimation: UInt64 = 1
    var phase: UInt64 = 0
    /// The frame rate the client asked for (nil: every sample), kept so
    /// that a change of the chip's rate keeps the client's rate.
    var requestedRate: Double?
    /// How late, in ms, this client's frames may arrive (nil: at once).
    var latency: Double?
    var reference: Attitude?
    var credentials: PeerCredentials?
    var dropped = 0
    var totalDropped = 0
    var stuckSince: UInt64?
    /// Lines queued since the last flush, each with its newline.
    private var outbox: ByteBuffer?

    init(id: Int, channel: Channel) {
        self.id = id
        self.channel = channel
    }

    var hasOutbox: Bool { outbox != nil }

    func append(_ line: [UInt8]) {
        if outbox == nil { outbox = channel.allocator.buffer(capacity: max(256, line.count * 16)) }
        outbox!.writeBytes(line)
        outbox!.writeInteger(UInt8(ascii: "\n"))
    }

    /// What is queued, for one write (empty if nothing is).
    func takeOutbox() -> ByteBuffer {
        defer { outbox = nil }
        return outbox ?? channel.allocator.buffer(capacity: 0)
    }

    /// Decimation and phase for the chip's rate `odr`.
    func decimate(for odr: Double) {
        decimation = requestedRate.map { UInt64(max(1, (odr / $0).rounded())) } ?? 1
        phase = UInt64(id) % decimation
    }

    func watches(_ event: MotionEvent) -> Bool {
        StreamName(rawValue: event.className).map(streams.contains) ?? false
    }
}

/// The peer of a Unix socket, from SO_PEERCRED. Laid out as struct ucred.
public struct PeerCredentials: Sendable, Equatable {
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// SO_PEERCRED (asm-generic/socket.h); Glibc's module hides it behind _GNU_SOURCE.
let peerCredentialsOption: Int32 = 17
