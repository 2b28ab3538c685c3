// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelMotion
import AccelProtocol
import NIOCore

/// One connected client. Confined to the hub's queue.
final class Session: @unchecked Sendable {
    let id: Int
    let socket: ClientSocket
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
    /// Lines queued since the last flush, each with its newline; its
    /// capacity is kept from flush to flush.
    private var outbox: [UInt8] = []

    /// NIO's side of the connection, which reads the requests (nil until
    /// NIO has registered it).
    var channel: Channel? {
        didSet { if !socket.isWritable { readRequests(false) } }
    }

    init(id: Int, socket: ClientSocket, credentials: PeerCredentials?) {
        self.id = id
        self.socket = socket
        self.credentials = credentials
        socket.writabilityChanged = { [unowned self] in readRequests($0) }
    }

    /// Requests are read only while the client takes its replies: one that
    /// sends faster than it reads is slowed, never answered with gaps
    /// (replies are not dropped, and the replies waiting stay bounded).
    private func readRequests(_ yes: Bool) {
        channel?.setOption(ChannelOptions.autoRead, value: yes).whenFailure { _ in }
    }

    func append(_ line: [UInt8]) {
        outbox.append(contentsOf: line)
        outbox.append(UInt8(ascii: "\n"))
    }

    /// Writes what is queued, in one system call when the client keeps up.
    func flush() {
        guard !outbox.isEmpty else { return }
        socket.write(outbox)
        outbox.removeAll(keepingCapacity: true)
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

extension PeerCredentials {
    /// Who is at the other end of a connected Unix socket, as the kernel
    /// says (SO_PEERCRED); nil if it does not.
    init?(of descriptor: Int32) {
        var credentials = PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, peerCredentialsOption, &credentials, &length) == 0,
              length == MemoryLayout<PeerCredentials>.size else { return nil }
        self = credentials
    }
}
