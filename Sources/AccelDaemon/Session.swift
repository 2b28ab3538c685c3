// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelMotion
import AccelProtocol

/// One connected client as the control side knows it: what it watches and
/// how, who it is, and its request lines. Confined to the control queue;
/// the sampler's thread sees a `Subscriber` copy.
final class Session: @unchecked Sendable {
    let id: Int
    /// Its socket in the daemon; an in-memory sink in tests.
    let connection: any ClientSink
    let credentials: PeerCredentials?
    var streams: Set<StreamName> = []
    var fields = FrameFields.all
    /// Deliver every `decimation`-th sample: seq ≡ `phase` (mod `decimation`).
    /// Clients at one rate get different phases, so that a crowd of them
    /// does not all write on the same tick (64 at 50 Hz put p99 past 2 ms).
    private(set) var decimation: UInt64 = 1
    private(set) var phase: UInt64 = 0
    /// The frame rate the client asked for (nil: every sample), kept so
    /// that a change of the chip's rate keeps the client's rate.
    var requestedRate: Double?
    /// How late, in ms, this client's frames may arrive (nil: at once).
    var latency: Double?
    var reference: Attitude?
    /// The windows of its `vibration` messages.
    var vibration: VibrationWatch?
    var lines: RequestLines
    /// A request of its is with the sampler: its later lines wait here, so
    /// that its replies come in the order of its requests.
    var awaitingSampler = false
    var heldLines: [InboundLine] = []

    init(id: Int, connection: any ClientSink, credentials: PeerCredentials?, maxLineBytes: Int) {
        self.id = id
        self.connection = connection
        self.credentials = credentials
        lines = RequestLines(maxLength: maxLineBytes)
    }

    /// Decimation and phase for the chip's rate `odr`.
    func decimate(for odr: Double) {
        decimation = requestedRate.map { UInt64(max(1, (odr / $0).rounded())) } ?? 1
        phase = UInt64(id) % decimation
    }

    /// A reply: sent at once, after whatever the client was sent before.
    /// When it ends streams (`endsStreams`), lines made for the client's
    /// old subscription are dropped from now on, so none follows the reply;
    /// otherwise such a line may still come, since the sampler picks up
    /// the new subscription at its next step. Reply before replacing the
    /// fan-out's snapshot, so that no line of the new one comes first.
    func reply(_ message: Message, endsStreams: Bool = false) {
        if endsStreams { connection.nextGeneration() }
        connection.append(message.jsonBytes, isReply: true, generation: nil)
        connection.flush()
    }

    var subscriber: Subscriber {
        Subscriber(connection: connection, generation: connection.generation, streams: streams, fields: fields,
                   decimation: decimation, phase: phase, reference: reference, vibration: vibration)
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
