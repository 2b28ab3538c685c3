// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import AccelCore
import AccelProtocol
import Dispatch
import Synchronization

/// One client's connected socket, and its only owner. Two threads use it:
/// the control queue reads the client's requests and writes replies, the
/// sampler's thread writes frames where it made them (no hop to another
/// thread per frame: docs/PERFORMANCE.md). Both append whole lines to one
/// outbox under a lock, so replies and frames keep their order; whichever
/// thread finds nobody sending takes the outbox and sends it with the lock
/// released. The lock is never held across a system call.
///
/// What the kernel does not take waits in the outbox (a `Backlog`) and goes
/// out when the client reads again (a write source on the control queue).
/// Past the buffer's size, streamed lines are dropped and counted (the
/// Backlog's policy, shared with the tests' in-memory sink), and the
/// client's requests are not read (it cannot ask faster than it reads),
/// until the backlog drains to half.
///
/// The descriptor is closed once nothing can use it any more: both sources
/// cancelled and no send in flight, so its number is never reused while a
/// thread still writes to it. (Unchecked: the dispatch sources are not
/// marked Sendable; they are resumed, suspended and cancelled under the lock.)
final class ClientConnection: ClientSink, @unchecked Sendable {
    let descriptor: Int32
    private let control: DispatchQueue
    private let high: Int
    /// The hub's clock, for when a client started dropping lines.
    private let now: @Sendable () -> UInt64
    private let state: Mutex<State>
    private let readSource: DispatchSourceRead
    private let writeSource: DispatchSourceWrite
    /// The reading side's, on the control queue.
    private var received: ([UInt8]) -> Void = { _ in }
    private var hungUp: () -> Void = {}
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    private struct State {
        var outbox: Backlog
        /// The buffer a sender used last, kept so that a flush allocates nothing.
        var spare: [UInt8] = []
        var sending = false
        /// The kernel's buffer is full: the write source drains the outbox.
        var waitingForRoom = false
        /// The peer is gone or we closed: nothing more is sent.
        var finished = false
        var closed = false
        /// Reading started and the client has not hung up.
        var reading = false
        /// A source that is inactive or suspended must be resumed before
        /// it is released (libdispatch traps otherwise).
        var readSuspended = true
        var writeSuspended = true
        /// What may still use the descriptor: the two sources, the owner
        /// until `close`, and a send in flight. The last one closes it.
        var holds = 3
    }

    /// Takes ownership of `descriptor`, a connected stream socket.
    init(descriptor: Int32, control: DispatchQueue, bufferBytes: Int, now: @escaping @Sendable () -> UInt64 = MonotonicTime.now) {
        self.descriptor = descriptor
        self.control = control
        high = bufferBytes
        self.now = now
        state = Mutex(State(outbox: Backlog(bufferBytes: bufferBytes)))
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        readSource = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: control)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: control)
        // The handlers keep the connection alive until the sources are cancelled.
        readSource.setCancelHandler { [self] in state.withLock { release(&$0) } }
        writeSource.setCancelHandler { [self] in state.withLock { release(&$0) } }
        writeSource.setEventHandler { [self] in drain() }
    }

    // MARK: Writing, from either thread

    /// Appends a line (without its newline). A streamed line is dropped and
    /// counted instead while the client is over its buffer, or when it was
    /// made for an older `generation` of the client's subscription. The
    /// next line delivered is preceded by a `dropped` notice.
    func append(_ line: [UInt8], isReply: Bool, generation: Int? = nil) {
        state.withLock { state in
            guard !state.finished else { return }
            state.outbox.append(line, isReply: isReply, generation: generation, now: now)
        }
    }

    /// A new subscription: lines tagged with an older generation are
    /// dropped from now on.
    func nextGeneration() {
        state.withLock { $0.outbox.generation += 1 }
    }

    /// The subscription lines are made for now (`append`'s `generation`).
    var generation: Int { state.withLock { $0.outbox.generation } }

    /// Sends what the outbox holds, unless another thread is sending or the
    /// kernel's buffer is full (the write source then takes over).
    func flush() {
        var batch: [UInt8]? = state.withLock { state in
            guard !state.sending, !state.waitingForRoom, !state.finished, !state.outbox.bytes.isEmpty else { return nil }
            state.sending = true
            state.holds += 1
            return take(&state)
        }
        var readAgain = false
        defer {
            // Reading resumes on the control queue, whichever thread sent.
            if readAgain { control.async { [self] in resumeReading() } }
        }
        while var bytes = batch {
            let sent = bytes.withUnsafeBytes { send($0) }
            batch = state.withLock { state -> [UInt8]? in
                defer { readAgain = relieve(&state) || readAgain }
                if sent < 0 {
                    finish(&state)
                } else if !state.finished {
                    if sent < bytes.count {
                        // The kernel's buffer is full: what is left goes first.
                        bytes.removeFirst(sent)
                        bytes.append(contentsOf: state.outbox.bytes)
                        state.outbox.bytes = bytes
                        state.outbox.noteSize()
                        state.waitingForRoom = true
                        setWriteSuspended(false, &state)
                    } else {
                        bytes.removeAll(keepingCapacity: bytes.capacity <= 2 * high)
                        state.spare = bytes
                        // Lines another thread appended meanwhile go next.
                        if !state.outbox.bytes.isEmpty { return take(&state) }
                    }
                }
                state.sending = false
                release(&state)
                return nil
            }
        }
    }

    /// The outbox's bytes, leaving the spare buffer in their place.
    private func take(_ state: inout State) -> [UInt8] {
        swap(&state.outbox.bytes, &state.spare)
        let bytes = state.spare
        state.spare = []
        return bytes
    }

    /// Sends without blocking: bytes taken, 0 when the kernel's buffer is
    /// full, -1 when the peer is gone.
    private func send(_ buffer: UnsafeRawBufferPointer) -> Int {
        while true {
            let n = Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: return -1  // EPIPE, ECONNRESET: the read side sees the hang-up
            }
        }
    }

    /// The write source's handler, on the control queue: the client reads again.
    private func drain() {
        let pending: [UInt8]? = state.withLock { state in
            guard state.waitingForRoom, !state.finished else { return nil }
            state.holds += 1
            let bytes = state.outbox.bytes
            state.outbox.bytes = []
            return bytes
        }
        guard var bytes = pending else { return }
        let sent = bytes.withUnsafeBytes { send($0) }
        let readAgain = state.withLock { state -> Bool in
            defer { release(&state) }
            guard sent >= 0 else {
                finish(&state)
                return false
            }
            guard !state.finished else { return false }
            bytes.removeFirst(sent)
            bytes.append(contentsOf: state.outbox.bytes)
            state.outbox.bytes = bytes
            if state.outbox.bytes.isEmpty {
                state.waitingForRoom = false
                setWriteSuspended(true, &state)
            }
            return relieve(&state)
        }
        if readAgain { resumeReading() }
    }

    /// The backlog is down to half: streamed lines flow again and the
    /// client's requests may be read. True when reading was paused.
    private func relieve(_ state: inout State) -> Bool {
        guard !state.finished, state.outbox.relieve() else { return false }
        return state.reading && state.readSuspended
    }

    /// On the control queue, once the backlog has drained.
    private func resumeReading() {
        let resumed = state.withLock { state -> Bool in
            guard state.reading, state.readSuspended, !state.outbox.overHigh else { return false }
            setReadSuspended(false, &state)
            return true
        }
        // What the client sent while paused raises no new event.
        if resumed { readAvailable() }
    }

    // MARK: Reading, on the control queue

    /// Reads the client's bytes on the control queue: `received` gets each
    /// chunk, `hungUp` the end of the connection (once).
    func startReading(received: @escaping ([UInt8]) -> Void, hungUp: @escaping () -> Void) {
        self.received = received
        self.hungUp = hungUp
        readSource.setEventHandler { [unowned self] in readAvailable() }
        state.withLock { state in
            state.reading = true
            setReadSuspended(false, &state)
        }
    }

    /// Reads until the kernel has nothing more (a read source fires once
    /// for what arrived, not again for what is left), a few chunks at a
    /// time so that one client's flood leaves the others their turn.
    private func readAvailable() {
        for _ in 0..<16 {
            // Requests wait in the kernel while the client does not take its replies.
            let paused = state.withLock { state in
                if state.outbox.overHigh && !state.finished { setReadSuspended(true, &state) }
                return state.readSuspended || state.closed || !state.reading
            }
            if paused { return }
            let n = readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                received(Array(readBuffer[..<n]))
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            if n < 0 && errno == EINTR { continue }
            state.withLock { $0.reading = false }
            readSource.cancel()
            return hungUp()
        }
        control.async { [self] in readAvailable() }
    }

    private func setReadSuspended(_ suspended: Bool, _ state: inout State) {
        guard suspended != state.readSuspended, !state.closed else { return }
        state.readSuspended = suspended
        if suspended { readSource.suspend() } else { readSource.resume() }
    }

    private func setWriteSuspended(_ suspended: Bool, _ state: inout State) {
        guard suspended != state.writeSuspended, !state.closed else { return }
        state.writeSuspended = suspended
        if suspended { writeSource.suspend() } else { writeSource.resume() }
    }

    // MARK: The client's health, and the end

    /// Nanoseconds the client has been over its buffer (nil: it keeps up).
    func stuck(now: UInt64) -> UInt64? {
        state.withLock { $0.outbox.stuckSince.map { now &- $0 } }
    }

    /// Ends the connection: the peer reads what was already sent, then end
    /// of file. On the control queue; idempotent.
    func close() {
        guard state.withLock({ !$0.closed }) else { return }
        // The reading side's closures hold the session, which holds this
        // connection: let go of them, or neither is ever freed.
        received = { _ in }
        hungUp = {}
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        state.withLock { state in
            guard !state.closed else { return }
            finish(&state)
            state.closed = true
            readSource.cancel()
            writeSource.cancel()
            // Cancel handlers run only once resumed.
            if state.readSuspended { readSource.resume() }
            if state.writeSuspended { writeSource.resume() }
            release(&state)
        }
    }

    private func finish(_ state: inout State) {
        state.finished = true
        state.outbox.bytes = []
        state.spare = []
        if state.waitingForRoom {
            state.waitingForRoom = false
            setWriteSuspended(true, &state)
        }
    }

    private func release(_ state: inout State) {
        state.holds -= 1
        if state.holds == 0 { Glibc.close(descriptor) }
    }
}
