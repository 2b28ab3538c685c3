// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: datagrams to $NOTIFY_SOCKET
/// ("READY=1", "STATUS=…", "WATCHDOG=1", "STOPPING=1"). Does nothing when
/// not run by systemd.
public struct SystemdNotifier: Sendable {
    private let path: String?
    /// Half of WatchdogSec, in nanoseconds, when systemd asked for pings.
    public let watchdogInterval: UInt64?

    public init(environment: [String: String]) {
        let socket = environment["NOTIFY_SOCKET"]
        path = (socket?.isEmpty ?? true) ? nil : socket
        if let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0,
           environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true {
            watchdogInterval = usec * 1000 / 2
        } else {
            watchdogInterval = nil
        }
    }

    public var isActive: Bool { path != nil }

    public func notify(_ state: String) {
        guard let path else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        var message = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                sendto(fd, &message, message.count, Int32(MSG_NOSIGNAL), sa, length)
            }
        }
    }
}

/// Sockets passed by systemd's socket activation (sd_listen_fds(3)):
/// LISTEN_PID must be us, LISTEN_FDS counts fds from 3.
public enum SocketActivation {
    public static func listeningDescriptors(environment: [String: String]) -> [Int32] {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap(Int32.init), count > 0 else { return [] }
        return (0..<count).map { 3 + $0 }
    }
}
