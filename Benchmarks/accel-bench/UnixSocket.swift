// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

// The benchmarks' clients of acceld's socket, and systemd's side of sd_notify.

/// A Unix socket of `type` connected to `path` (nil, and errno, if it could not be).
func unixSocket(_ type: __socket_type, connectedTo path: String) -> Int32? {
    unixSocket(type, at: path, connect)
}

/// A Unix socket of `type` bound to `path` (nil, and errno, if it could not be).
func unixSocket(_ type: __socket_type, boundTo path: String) -> Int32? {
    unixSocket(type, at: path, bind)
}

private func unixSocket(_ type: __socket_type, at path: String,
                        _ attach: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32? {
    let fd = socket(AF_UNIX, Int32(type.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b } }
    let attached = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { attach(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard attached == 0 else {
        let error = errno
        close(fd)
        errno = error
        return nil
    }
    return fd
}
