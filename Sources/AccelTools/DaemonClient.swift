// SPDX-License-Identifier: Apache-2.0
import AccelDriver
import AccelProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Talks to a running acceld over its Unix socket: newline-delimited JSON.
public final class DaemonClient {
    public static let defaultSocket = "/run/acceld/acceld.sock"

    public enum ClientError: Error, CustomStringConvertible {
        case noDaemon(String)
        case permission(String)
        case refused(String)
        case incompatible(String)
        case disconnected(String)
        case refusedRequest(code: String, message: String)

        public var description: String {
            switch self {
            case .noDaemon(let path):
                "acceld is not running: there is no socket at \(path). Start it (sudo systemctl start acceld.socket), pass --socket PATH, or use --direct to read the chip without the daemon"
            case .permission(let path):
                "permission denied on \(path): add yourself to the socket's group (sudo usermod -aG acceld $USER, then log in again)"
            case .refused(let path):
                "nothing listens on \(path) (a stale socket): start acceld (sudo systemctl start acceld.socket)"
            case .incompatible(let detail):
                "this accelctl speaks protocol \(protocolVersion) but \(detail): install matching versions of acceld and accelctl"
            case .disconnected(let why):
                "acceld closed the connection: \(why)"
            case .refusedRequest(let code, let message):
                "acceld refused (\(code)): \(message)"
            }
        }

        public var exitCode: Int32 {
            switch self {
            case .noDaemon, .refused: 69       // EX_UNAVAILABLE
            case .permission: 77               // EX_NOPERM
            case .incompatible: 76             // EX_PROTOCOL
            case .disconnected: 74             // EX_IOERR
            case .refusedRequest(let code, _): code == "not-permitted" ? 77 : 65
            }
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var hello: JSONObject = [:]

    public init(path: String = DaemonClient.defaultSocket) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            switch code {
            case ENOENT, ENOTDIR: throw ClientError.noDaemon(path)
            case EACCES, EPERM: throw ClientError.permission(path)
            default: throw ClientError.refused(path)
            }
        }
        guard let greeting = try readMessage(timeout: 5), greeting["class"]?.string == "hello" else {
            throw ClientError.incompatible("\(path) did not greet with hello: is it acceld?")
        }
        if let version = greeting["protocol"]?.int, version != protocolVersion {
            throw ClientError.incompatible("acceld \(greeting["version"] ?? "?") speaks protocol \(version)")
        }
        hello = greeting
    }

    deinit { close(fd) }

    public var device: JSONObject { hello["device"]?.object ?? [:] }

    public func send(_ json: String) {
        let bytes = Array((json + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// The next raw line; nil on timeout. Throws when the daemon hangs up.
    public func readLine(timeout: Double?) throws -> String? {
        let deadline = timeout.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            // Poll at least once, even with no time left, so a zero timeout
            // still collects what has arrived.
            let wait = deadline.map { Int32(($0 - min($0, MonotonicTime.now())) / 1_000_000) } ?? -1
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, wait)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                if let deadline, MonotonicTime.now() >= deadline { return nil }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { throw ClientError.disconnected(n == 0 ? "end of stream" : String(cString: strerror(errno))) }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    public func readMessage(timeout: Double?) throws -> JSONObject? {
        guard let line = try readLine(timeout: timeout) else { return nil }
        return (try? JSONValue(parsing: Array(line.utf8)))?.object ?? ["class": "unparsable", "line": .string(line)]
    }

    /// Sends a request and returns its reply (stream messages are skipped).
    /// An `error` reply is thrown.
    public func request(_ json: String, timeout: Double = 10) throws -> JSONObject {
        send(json)
        let streams: Set<String> = ["frame", "orientation", "shake", "freefall", "movement", "tap", "dropped", "status"]
        let deadline = MonotonicTime.now() + UInt64(timeout * 1e9)
        while let message = try readMessage(timeout: Double(deadline - min(deadline, MonotonicTime.now())) / 1e9) {
            let name = message["class"]?.string ?? ""
            if name == "error" {
                throw ClientError.refusedRequest(code: message["code"]?.string ?? "?", message: message["message"]?.string ?? "")
            }
            if name == "status" && json.contains("\"status\"") { return message }
            if !streams.contains(name) { return message }
        }
        throw ClientError.disconnected("no reply within \(Int(timeout)) s")
    }
}
