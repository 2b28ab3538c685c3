// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// The write side of one client's connection, used on the hub's queue: the
/// thread that made a frame writes it to the kernel itself, with no hop to
/// an event loop per frame (docs/PERFORMANCE.md, "Frames written where they
/// are made"). SwiftNIO reads the requests through its own descriptor; this
/// one is a dup, so a descriptor number NIO closes and the kernel hands to
/// a newcomer can never receive another client's frames.
///
/// What the kernel does not take waits in `pending` and goes out when the
/// client reads again (a write source on the same queue). Past `high`
/// bytes waiting the client is not writable (the fan-out drops and counts
/// its streamed lines, and its requests are not read) until it drains to
/// `low`: NIO's write-buffer watermarks.
final class ClientSocket {
    private let descriptor: Int32
    private let queue: DispatchQueue
    private let high: Int
    private let low: Int
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var writeSource: DispatchSourceWrite?
    private var waitingForRoom = false
    private(set) var isWritable = true {
        didSet { if isWritable != oldValue { writabilityChanged?(isWritable) } }
    }
    /// Called on the queue when `isWritable` changes.
    var writabilityChanged: ((Bool) -> Void)?
    /// The peer is gone or we closed: further writes are ignored.
    private(set) var isFinished = false
    private var isClosed = false

    /// Takes ownership of `descriptor` (a connected stream socket).
    init(descriptor: Int32, queue: DispatchQueue, bufferBytes: Int) {
        self.descriptor = descriptor
        self.queue = queue
        self.high = bufferBytes
        self.low = bufferBytes / 2
    }

    private var pendingBytes: Int { pending.count - pendingStart }

    /// Writes `bytes` in order after whatever is still waiting.
    func write(_ bytes: [UInt8]) {
        guard !isFinished, !bytes.isEmpty else { return }
        if pendingBytes > 0 {
            pending.append(contentsOf: bytes)
        } else {
            let sent = bytes.withUnsafeBytes { send($0) }
            guard sent >= 0, sent < bytes.count else { return }
            pending.append(contentsOf: bytes[sent...])
            waitForRoom()
        }
        if pendingBytes >= high { isWritable = false }
    }

    /// Sends what it can without blocking: bytes taken, 0 when the buffer is
    /// full; -1 (and finished) when the peer is gone.
    private func send(_ buffer: UnsafeRawBufferPointer) -> Int {
        while true {
            let n = Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if n >= 0 { return n }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default:
                // EPIPE, ECONNRESET: NIO sees the hang-up on its side and
                // the hub removes the session; until then nothing to do.
                finish()
                return -1
            }
        }
    }

    private func waitForRoom() {
        guard !waitingForRoom, !isFinished else { return }
        waitingForRoom = true
        if let writeSource {
            writeSource.resume()
            return
        }
        let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [unowned self] in drain() }
        writeSource = source
        source.resume()
    }

    private func drain() {
        guard !isFinished else { return }
        let sent = pending.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[pendingStart...])) }
        guard sent >= 0 else { return }
        pendingStart += sent
        if pendingBytes == 0 {
            pending.removeAll(keepingCapacity: pending.capacity <= high)
            pendingStart = 0
            waitingForRoom = false
            writeSource?.suspend()
        } else if pendingStart > pending.count / 2 {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        if pendingBytes <= low { isWritable = true }
    }

    /// Ends the connection for both sides: the peer reads what was sent,
    /// then end of file, and NIO's reading side closes too.
    func shutDown() {
        guard !isClosed else { return }
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        finish()
    }

    private func finish() {
        isFinished = true
        isWritable = false
        pending = []
        pendingStart = 0
        if waitingForRoom {
            waitingForRoom = false
            writeSource?.suspend()
        }
    }

    /// Closes this descriptor (NIO closes its own). Once.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        finish()
        guard let writeSource else {
            Glibc.close(descriptor)
            return
        }
        // A source's descriptor may be closed only after its cancel handler
        // ran; the source is suspended (`finish`), and runs it once resumed.
        let descriptor = self.descriptor
        writeSource.setCancelHandler { Glibc.close(descriptor) }
        writeSource.cancel()
        writeSource.resume()
        self.writeSource = nil
    }
}
