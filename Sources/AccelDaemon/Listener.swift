// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import NIOCore
import NIOPosix

/// Accepts clients on the listening socket, on the hub's queue, and gives
/// each connection two owners: the hub writes to it through a descriptor
/// of its own, SwiftNIO reads its requests through the accepted one.
/// (SwiftNIO never hands out a channel's descriptor, so acceld accepts the
/// connection itself and gives NIO the connected socket.) Confined to the
/// hub's queue.
final class Listener: @unchecked Sendable {
    private let descriptor: Int32
    private let hub: Hub
    private let group: EventLoopGroup
    private let logger = Logger(label: "acceld.server")
    private var source: DispatchSourceRead?
    private var pausedForDescriptors = false

    /// Takes ownership of a listening Unix stream socket.
    init(descriptor: Int32, hub: Hub, group: EventLoopGroup) {
        self.descriptor = descriptor
        self.hub = hub
        self.group = group
    }

    /// A new listening socket at `path` (its directory must exist), or the
    /// error in words.
    static func listen(path: String, backlog: Int32 = 256) throws -> Int32 {
        let longest = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
        guard path.utf8.count <= longest else { throw ListenError("the path is longer than a Unix socket's \(longest) bytes") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ListenError(String(cString: strerror(errno))) }
        let bound = withSocketAddress(path) { bind(fd, $0, $1) }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
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
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: hub.queue)
        source.setEventHandler { [unowned self] in acceptWaiting() }
        let descriptor = self.descriptor
        source.setCancelHandler { close(descriptor) }
        self.source = source
        source.resume()
    }

    /// Stops accepting and closes the listening socket. On the hub's queue.
    func stop() {
        if pausedForDescriptors { source?.resume() }
        pausedForDescriptors = false
        source?.cancel()
        source = nil
    }

    /// A few connections a wake, so that a storm of them leaves the
    /// sampler's reads their turn on the queue.
    private func acceptWaiting() {
        for _ in 0..<16 {
            // accept, not accept4 (Glibc's module hides it): NIO makes its
            // descriptor non-blocking, ClientSocket sends with MSG_DONTWAIT.
            let fd = accept(descriptor, nil, nil)
            guard fd >= 0 else {
                switch errno {
                case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return pauseForDescriptors()
                default:
                    logger.error("accepting a client failed: \(String(cString: strerror(errno)))")
                    return
                }
            }
            serve(fd)
        }
    }

    private func serve(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let own = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard own >= 0 else {
            close(fd)
            return pauseForDescriptors()
        }
        guard let session = hub.connect(own) else {
            close(fd)
            return
        }
        let hub = self.hub
        ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try ClientHandler.addHandlers(to: channel, hub: hub, session: session) }
            }
            .withConnectedSocket(fd)
            .whenComplete { [logger] result in
                switch result {
                case .success(let channel):
                    hub.queue.async { session.channel = channel }
                case .failure(let error):
                    logger.error("client \(session.id): could not read its requests (\(error)); disconnecting it")
                    hub.queue.async { hub.disconnect(session) }
                }
            }
    }

    /// Out of descriptors: the waiting connection stays queued in the
    /// kernel, and the source would fire at once, again and again; try again
    /// in a second instead (SwiftNIO's servers back off the same way).
    private func pauseForDescriptors() {
        guard !pausedForDescriptors, let source else { return }
        logger.error("accepting a client failed: \(String(cString: strerror(errno))); each client takes two descriptors: raise LimitNOFILE= in the unit or lower [socket] max-clients; trying again in 1 s")
        pausedForDescriptors = true
        source.suspend()
        hub.queue.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, pausedForDescriptors else { return }
            pausedForDescriptors = false
            self.source?.resume()
        }
    }
}
