// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for an acceld of another version, or one whose socket the
/// test sets the mode of (acceld sets its own just after listening): to
/// each client it writes `lines`, then holds the connection until the
/// client closes it.
final class FakeDaemon: @unchecked Sendable {
    let path: String
    private let listener: Int32

    init(lines: [String]) throws {
        let directory = scratchDirectory()
        chmod(directory, 0o755)  // for a test that connects as nobody
        path = directory + "/acceld.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let greeting = Array(lines.map { $0 + "\n" }.joined().utf8)
        // Threads of its own, not the global queue's: each client holds
        // one in recv until it closes, and on two cores the global queue
        // has two, so other tests' fakes starved this one's accept and a
        // client's 2 s wait for hello ran out.
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    close(listener)  // stop() shut it down: closed here, once
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                Thread.detachNewThread {
                    _ = greeting.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    var sink = [UInt8](repeating: 0, count: 4096)
                    while recv(client, &sink, sink.count, 0) > 0 {}
                    close(client)
                }
            }
        }
    }

    /// Stops accepting (the socket file stays for the scratch folder).
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }
}
