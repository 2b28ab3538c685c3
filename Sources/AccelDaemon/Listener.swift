// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging

/// Accepts clients on the listening socket, on the control queue, and
/// hands each connection to the hub, whose ClientConnection is then its
/// one owner. Confined to the control queue.
final class Listener: @unchecked Sendable {
    private let descriptor: Int32
    private let hub: Hub
    private let logger = Logger(label: "acceld.server")
    private var source: DispatchSourceRead?
    private var pausedForDescriptors = false

    /// Takes ownership of a listening Unix stream socket.
    init(descriptor: Int32, hub: Hub) {
        self.descriptor = descriptor
        self.hub = hub
    }

    /// A new listening socket at `path` (its directory must exist), or the
    /// error in words. `beforeListening` runs once the file exists and
    /// before it listens: until then a client's connect is refused, so
    /// the mode and group it gives the file are the ones any client meets.
    static func listen(path: String, backlog: Int32 = 256, beforeListening: (String) throws -> Void = { _ in }) throws -> Int32 {
        let longest = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
        guard path.utf8.count <= longest else { throw ListenError("the path is longer than a Unix socket's \(longest) bytes") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ListenError(String(cString: strerror(errno))) }
        guard withSocketAddress(path, { bind(fd, $0, $1) }) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ListenError(reason)
        }
        do { try beforeListening(path) } catch {
            close(fd)
            unlink(path)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw ListenError(reason)
        }
        return fd
    }

    /// Calls `body` with the address of the Unix socket at `path` (cut to
    /// what fits) and its length: for bind and connect.
    static func withSocketAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    struct ListenError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func start() {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: hub.control)
        source.setEventHandler { [unowned self] in acceptWaiting() }
        let descriptor = self.descriptor
        source.setCancelHandler { close(descriptor) }
        self.source = source
        source.resume()
    }

    /// Stops accepting and closes the listening socket. On the control queue.
    func stop() {
        if pausedForDescriptors { source?.resume() }
        pausedForDescriptors = false
        source?.cancel()
        source = nil
    }

    /// Accepts until none waits (the read source fires once for what
    /// arrived, not again for what is left), 16 at a time so that a storm
    /// of them leaves the clients' requests their turn on the queue.
    private func acceptWaiting() {
        for _ in 0..<16 {
            // accept, not accept4 (Glibc's module hides it): ClientConnection
            // makes the descriptor non-blocking, `serve` close-on-exec.
            let fd = accept(descriptor, nil, nil)
            guard fd >= 0 else {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return pauseForDescriptors()
                default:
                    logger.error("accepting a client failed: \(String(cString: strerror(errno)))")
                    return
                }
            }
            serve(fd)
        }
        hub.control.async { [weak self] in
            guard let self, source != nil, !pausedForDescriptors else { return }
            acceptWaiting()
        }
    }

    private func serve(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        hub.connect(fd)
    }

    /// Out of descriptors: the waiting connections stay queued in the
    /// kernel, and no new arrival may come to fire the source again; try
    /// again in a second (SwiftNIO's servers back off the same way).
    private func pauseForDescriptors() {
        guard !pausedForDescriptors, let source else { return }
        logger.error("accepting a client failed: \(String(cString: strerror(errno))); each client takes a descriptor: raise LimitNOFILE= in the unit or lower [socket] max-clients; trying again in 1 s")
        pausedForDescriptors = true
        source.suspend()
        hub.control.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, pausedForDescriptors else { return }
            pausedForDescriptors = false
            self.source?.resume()
            acceptWaiting()
        }
    }
}
