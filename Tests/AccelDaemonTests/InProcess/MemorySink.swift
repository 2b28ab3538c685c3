// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelProtocol
import Synchronization

/// A client's end of the control side's seam, in memory, as SwiftNIO's
/// EmbeddedChannel keeps its outbound buffer: the hub appends and flushes
/// lines exactly as to a socket, and the test takes them from `delivered`.
/// The backlog is the daemon's own (`Backlog`: the buffer's limit, dropped
/// lines counted, the time the client started falling behind); a client
/// that `stopsReading` takes nothing out of it, as a peer that never reads
/// leaves the kernel's buffer full.
final class MemorySink: ClientSink, @unchecked Sendable {
    private let now: @Sendable () -> UInt64
    private let state: Mutex<State>

    private struct State {
        var backlog: Backlog
        /// What the client has been handed and not yet taken.
        var delivered: [UInt8] = []
        var reading = true
        var closed = false
    }

    init(bufferBytes: Int, now: @escaping @Sendable () -> UInt64) {
        self.now = now
        state = Mutex(State(backlog: Backlog(bufferBytes: bufferBytes)))
    }

    // MARK: The hub's side

    func append(_ line: [UInt8], isReply: Bool, generation: Int?) {
        state.withLock { state in
            guard !state.closed else { return }
            state.backlog.append(line, isReply: isReply, generation: generation, now: now)
        }
    }

    func flush() { state.withLock { Self.hand(&$0) } }

    func nextGeneration() { state.withLock { $0.backlog.generation += 1 } }

    var generation: Int { state.withLock { $0.backlog.generation } }

    func stuck(now: UInt64) -> UInt64? { state.withLock { $0.backlog.stuckSince.map { now &- $0 } } }

    /// As the socket's close: what the client had not taken from the backlog is lost.
    func close() {
        state.withLock { state in
            state.closed = true
            state.backlog.bytes = []
        }
    }

    /// The backlog goes to the client while it reads; once it is down to
    /// half its limit, streamed lines flow again.
    private static func hand(_ state: inout State) {
        guard state.reading else { return }
        state.delivered += state.backlog.bytes
        state.backlog.bytes.removeAll()
        _ = state.backlog.relieve()
    }

    // MARK: The client's side

    /// The hub ended the connection (the peer would read end of file once `delivered` is taken).
    var isClosed: Bool { state.withLock { $0.closed } }

    /// The client stops taking its lines: they pile up in the backlog.
    func stopReading() { state.withLock { $0.reading = false } }

    /// The client reads again: what waited is handed over at once.
    func readAgain() {
        state.withLock { state in
            state.reading = true
            Self.hand(&state)
        }
    }

    /// Every whole line handed over so far, taken.
    func takeLines() -> [[UInt8]] {
        state.withLock { state in
            guard let last = state.delivered.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            let whole = state.delivered[...last]
            state.delivered.removeSubrange(...last)
            return whole.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map(Array.init)
        }
    }
}
