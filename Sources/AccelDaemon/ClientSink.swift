// SPDX-License-Identifier: Apache-2.0
import AccelProtocol

/// Where a session's lines go: the seam between the control side and the
/// socket. In the daemon it is the client's socket (`ClientConnection`);
/// in tests an in-memory sink whose lines the test reads, as SwiftNIO's
/// EmbeddedChannel keeps its outbound buffer, so that requests, streams
/// and stuck clients are tested without a socket or a clock.
/// Called from the control queue (replies) and the sampler's thread
/// (frames); implementations keep the two in order.
protocol ClientSink: AnyObject, Sendable {
    /// Appends a line (without its newline), or drops it (`Backlog.append`).
    func append(_ line: [UInt8], isReply: Bool, generation: Int?)
    /// Hands what was appended to the client, as far as it takes it.
    func flush()
    /// A new subscription: lines tagged with an older generation are dropped from now on.
    func nextGeneration()
    /// The subscription lines are made for now (`append`'s `generation`).
    var generation: Int { get }
    /// Nanoseconds (on the hub's clock) the client has been over its buffer; nil: it keeps up.
    func stuck(now: UInt64) -> UInt64?
    /// Ends the connection; idempotent. On the control queue.
    func close()
}

/// What waits to be sent to one client, and the policy every sink shares:
/// past `high` bytes waiting, streamed lines are dropped and counted (and
/// the time noted, for the stuck-client check) until the backlog drains
/// to `low`; the next line delivered is preceded by a `dropped` notice.
/// Lines made for an older generation of the client's subscription are
/// not delivered. Replies are never dropped.
struct Backlog {
    let high: Int
    let low: Int
    var bytes: [UInt8] = []
    var overHigh = false
    /// Streamed lines dropped since the client was last told, and in all.
    var dropped = 0
    var totalDropped = 0
    /// Since when the client has been over its buffer (ns, the hub's clock).
    var stuckSince: UInt64?
    /// Bumped at every change of what the client watches.
    var generation = 0

    init(bufferBytes: Int) {
        high = bufferBytes
        low = bufferBytes / 2
    }

    /// `now` is read only when a line is dropped.
    mutating func append(_ line: [UInt8], isReply: Bool, generation: Int?, now: () -> UInt64) {
        if let generation, generation != self.generation { return }
        if overHigh && !isReply {
            dropped += 1
            totalDropped += 1
            if stuckSince == nil { stuckSince = now() }
            return
        }
        if dropped > 0 {
            bytes.append(contentsOf: Message.dropped(count: dropped, total: totalDropped).jsonBytes)
            bytes.append(UInt8(ascii: "\n"))
            dropped = 0
        }
        bytes.append(contentsOf: line)
        bytes.append(UInt8(ascii: "\n"))
        noteSize()
    }

    /// After bytes were put back (a partial send): over `high` again?
    mutating func noteSize() {
        if bytes.count >= high { overHigh = true }
    }

    /// The backlog is down to `low`: streamed lines flow again. True when
    /// it was over `high` until now.
    mutating func relieve() -> Bool {
        guard overHigh, bytes.count <= low else { return false }
        overHigh = false
        stuckSince = nil
        return true
    }
}
