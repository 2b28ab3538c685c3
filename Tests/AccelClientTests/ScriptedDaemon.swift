// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for acceld that plays one visit per connection, in order:
/// its hello, then (once the client's first request has arrived, so the
/// order is the same however fast either side runs) the rest of its
/// lines, then it closes the connection or holds it until the client
/// does. After the last visit it stops listening and removes its socket
/// file (a daemon gone), unless that visit holds. What each connection
/// sent is kept, a list of lines a connection.
final class ScriptedDaemon: Sendable {
    struct Visit: Sendable {
        var hello: String
        var lines: [String]
        var holds: Bool
    }

    let path: String
    private let listener: Int32
    private let requests = Mutex<[[String]]>([])

    /// What each connection sent so far, in the order they were accepted.
    var received: [[String]] { requests.withLock { $0 } }

    init(path: String, visits: [Visit]) throws {
        self.path = path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        Thread.detachNewThread { [self] in
            for (index, visit) in visits.enumerated() {
                var client: Int32 = -1
                repeat { client = accept(listener, nil, nil) } while client < 0 && errno == EINTR
                guard client >= 0 else { break }  // stop() shut it down
                requests.withLock { $0.append([]) }
                let last = index == visits.count - 1
                if last && !visit.holds { stop() }
                // A visit that holds has a thread of its own; the others are played in turn.
                if visit.holds {
                    let accepted = client
                    Thread.detachNewThread { self.play(visit, on: accepted, number: index) }
                } else {
                    play(visit, on: client, number: index)
                }
            }
        }
    }

    private func play(_ visit: Visit, on client: Int32, number: Int) {
        var pending: [UInt8] = []
        func write(_ lines: [String]) {
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        /// Reads until a whole line has arrived; false when the client closed.
        func readLine() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                if let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    requests.withLock { $0[number].append(line) }
                    return true
                }
                let n = recv(client, &chunk, chunk.count, 0)
                if n <= 0 { return false }
                pending += chunk[..<n]
            }
        }
        write([visit.hello])
        if readLine() {
            write(visit.lines)
            if visit.holds { while readLine() {} }
        }
        close(client)
    }

    /// Stops accepting and removes the socket file: connecting fails as
    /// with no daemon.
    func stop() {
        unlink(path)
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }
}
