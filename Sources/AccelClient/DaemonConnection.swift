// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Why talking to acceld failed, in words that say what to do, with the
/// exit code a command-line tool should use (sysexits.h).
public enum ClientError: Error, CustomStringConvertible, Equatable, Sendable {
    case noDaemon(String)
    case permission(String)
    case refused(String)
    /// The path is something else than a socket (a regular file, a folder).
    case notASocket(String)
    case incompatible(String)
    case disconnected(String)
    case refusedRequest(code: String, message: String)
    /// Gyroscope updates asked of a part without one (MotionManager).
    case noGyroscope(String)

    public var description: String {
        switch self {
        case .noDaemon(let path):
            "acceld is not running: there is no socket at \(path). Start it (sudo systemctl start acceld.socket), or point the client at the socket acceld was started with: --socket PATH (accelctl) or ACCELD_SOCKET=PATH (any client)"
        case .permission(let path):
            "permission denied on \(path): add yourself to the socket's group (sudo usermod -aG acceld $USER, then log in again)"
        case .refused(let path):
            "nothing listens on \(path) (a stale socket): start acceld (sudo systemctl start acceld.socket)"
        case .notASocket(let path):
            "\(path) is not a socket, so it cannot be acceld's: point the client at the socket acceld listens on (/run/acceld/acceld.sock unless it was started with another): --socket PATH (accelctl) or ACCELD_SOCKET=PATH (any client)"
        case .incompatible(let detail):
            "this client speaks protocol \(protocolVersion) but \(detail): install matching versions of acceld and its clients"
        case .disconnected(let why):
            "acceld closed the connection: \(why)"
        case .refusedRequest(let code, let message):
            "acceld refused (\(code)): \(message)"
        case .noGyroscope(let chip):
            "the \(chip) acceld serves has no gyroscope: rotation rates need a six-axis part such as the LSM6DSO (isGyroAvailable says whether there is one)"
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .noDaemon, .refused, .notASocket: 69  // EX_UNAVAILABLE
        case .permission: 77               // EX_NOPERM
        case .incompatible: 76             // EX_PROTOCOL
        case .disconnected: 74             // EX_IOERR
        case .refusedRequest(let code, _):
            // Not now (the machine runs, another learn is under way): EX_TEMPFAIL.
            code == "not-permitted" ? 77 : ["machine-running", "busy"].contains(code) ? 75 : 65
        case .noGyroscope: 69              // EX_UNAVAILABLE
        }
    }
}

/// One connection to acceld's socket, blocking, in typed messages: what
/// accelctl uses, and what MotionManager's reader runs on. Not thread-safe
/// for reading; `send` may be called from another thread.
/// (Unchecked: the read buffer belongs to the one reading thread; `send`
/// touches only the descriptor, and the kernel orders whole writes.)
public final class DaemonConnection: @unchecked Sendable {
    /// acceld's socket under systemd; `ACCELD_SOCKET` overrides it.
    public static var defaultSocket: String {
        getenv("ACCELD_SOCKET").map { String(cString: $0) } ?? "/run/acceld/acceld.sock"
    }

    public let path: String
    public let hello: Hello
    private let fd: Int32
    private var buffer: LineBuffer  // the one the hello was read into

    /// Connects and reads `hello`. The first client of a socket-activated
    /// acceld waits while systemd starts it and it opens the chip: 15 s,
    /// since a slow board (or a starved VM: the boot test once took over 5)
    /// may need more than a few.
    public init(path: String = DaemonConnection.defaultSocket, timeout: Double = 15) throws(ClientError) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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
            case ENOENT, ENOTDIR: throw .noDaemon(path)
            case EACCES, EPERM: throw .permission(path)
            default:
                var info = stat()
                if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK { throw .notASocket(path) }
                throw .refused(path)
            }
        }
        var greeting: Hello?
        var buffer = LineBuffer()
        do {
            if case .hello(let hello)? = try DaemonConnection.readMessage(fd: fd, buffer: &buffer, timeout: timeout) { greeting = hello }
        } catch {
            close(fd)
            throw error
        }
        guard let greeting else {
            close(fd)
            throw .incompatible("\(path) did not greet with hello: is it acceld?")
        }
        // A newer protocol only adds fields, classes and requests
        // (docs/PROTOCOL.md, "Versions"): what this client knows still means
        // the same, and what it does not know is skipped; said once.
        hello = greeting
        self.fd = fd
        self.buffer = buffer
        if let note = newerProtocolNote, DaemonConnection.newerSaid.exchange(true, ordering: .relaxed) == false {
            DaemonConnection.sayNewer(note)
        }
    }

    /// What this client cannot see of a daemon newer than it; nil when
    /// the daemon's protocol is this client's or older.
    public var newerProtocolNote: String? {
        guard hello.protocolVersion > protocolVersion else { return nil }
        return "acceld \(hello.version) speaks protocol \(hello.protocolVersion), this client \(protocolVersion): it reads what it knows, and what was added since (fields, messages, requests) is skipped; update the client to use it"
    }

    /// Where the note on a newer daemon goes, once per process: standard
    /// error unless the program says otherwise (set it before connecting).
    nonisolated(unsafe) public static var sayNewer: @Sendable (String) -> Void = { note in
        let line = Array("note: \(note)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static let newerSaid = Atomic<Bool>(false)

    deinit { close(fd) }

    public var device: DeviceInfo { hello.device }

    /// Sends a request. A daemon that went away shows on the next read.
    public func send(_ request: Request) {
        let bytes = Array((request.json + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// The next line exactly as sent (for `--json` output, which need not
    /// decode it); nil on timeout. Throws when the daemon hangs up.
    public func nextLine(timeout: Double?) throws(ClientError) -> [UInt8]? {
        try DaemonConnection.readLine(fd: fd, buffer: &buffer, timeout: timeout)
    }

    /// Every whole line that has arrived, at most `limit`, newlines
    /// included, as one run of bytes (reading the socket only when none
    /// has): for passing lines on unread, a write per read however many a
    /// batch brought. Nil on timeout. Throws when the daemon hangs up.
    public func nextLines(limit: Int? = nil, timeout: Double?) throws(ClientError) -> (bytes: ArraySlice<UInt8>, count: Int)? {
        let deadline = timeout.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while true {
            if let lines = buffer.wholeLines(limit: limit ?? .max) { return lines }
            guard try DaemonConnection.receive(fd: fd, into: &buffer, until: deadline) else { return nil }
        }
    }

    /// The next message that this version can read; nil on timeout.
    public func next(timeout: Double?) throws(ClientError) -> Message? {
        try DaemonConnection.readMessage(fd: fd, buffer: &buffer, timeout: timeout)
    }

    /// Sends a request and returns its reply, skipping the streams' messages
    /// that arrive meanwhile. An `error` reply is thrown.
    public func request(_ request: Request, timeout: Double = 10) throws(ClientError) -> Message {
        send(request)
        let deadline = MonotonicTime.now() + UInt64(timeout * 1e9)
        while let message = try next(timeout: Double(deadline - min(deadline, MonotonicTime.now())) / 1e9) {
            if case .error(let error) = message { throw .refusedRequest(code: error.code, message: error.message) }
            if request.isAnswered(by: message) { return message }
        }
        throw .disconnected("no reply to \(request.className) within \(Int(timeout)) s")
    }

    private static func readMessage(fd: Int32, buffer: inout LineBuffer, timeout: Double?) throws(ClientError) -> Message? {
        let deadline = timeout.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while true {
            let left = deadline.map { Double($0 - min($0, MonotonicTime.now())) / 1e9 }
            guard let line = try readLine(fd: fd, buffer: &buffer, timeout: left) else { return nil }
            // A line this version cannot read (a newer daemon's) is skipped.
            if let message = try? Message(parsing: line) { return message }
        }
    }

    private static func readLine(fd: Int32, buffer: inout LineBuffer, timeout: Double?) throws(ClientError) -> [UInt8]? {
        let deadline = timeout.map { MonotonicTime.now() + UInt64($0 * 1e9) }
        while true {
            if let line = buffer.nextLine() { return line }
            guard try receive(fd: fd, into: &buffer, until: deadline) else { return nil }
        }
    }

    /// Reads what has arrived into `buffer`; false if the deadline passed
    /// first. Without a deadline it blocks in `recv` alone: one system
    /// call a wake, not a `poll` as well (a full-rate client wakes for
    /// every frame).
    private static func receive(fd: Int32, into buffer: inout LineBuffer, until deadline: UInt64?) throws(ClientError) -> Bool {
        if let deadline {
            // Poll at least once, even with no time left, so a zero timeout
            // still collects what has arrived.
            let wait = Int32((deadline - min(deadline, MonotonicTime.now())) / 1_000_000)
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, wait)
            if ready < 0 && errno == EINTR { return true }
            guard ready > 0 else { return MonotonicTime.now() < deadline }
        }
        let n = buffer.receive(from: fd)
        if n < 0 && errno == EINTR { return true }
        if n <= 0 { throw .disconnected(n == 0 ? "end of stream" : String(cString: strerror(errno))) }
        return true
    }
}

/// Received bytes, handed out a line at a time or as runs of whole lines.
/// One buffer, received into in place: its bytes are set once, when it
/// grows, not for every read (zeroing a fresh 64 KB array a read was four
/// fifths of a full-rate client's instructions), and lines are taken from
/// the front by moving an index (a 64 KB read holds hundreds of frames).
struct LineBuffer {
    private var bytes = [UInt8](repeating: 0, count: 65536)
    private var start = 0
    private var end = 0

    mutating func nextLine() -> [UInt8]? {
        guard let newline = bytes[start..<end].firstIndex(of: 0x0A) else { return nil }
        let line = Array(bytes[start..<newline])
        start = newline + 1
        return line
    }

    /// Up to `limit` whole lines with their newlines, or nil if not one has
    /// arrived whole.
    mutating func wholeLines(limit: Int) -> (bytes: ArraySlice<UInt8>, count: Int)? {
        var count = 0, cut = start
        while count < limit, let newline = bytes[cut..<end].firstIndex(of: 0x0A) {
            count += 1
            cut = newline + 1
        }
        guard count > 0 else { return nil }
        defer { start = cut }
        return (bytes[start..<cut], count)
    }

    /// One `recv` into the free space after what is held: when little is
    /// left, what is held moves to the front first, and a line that fills
    /// the whole buffer doubles it. Returns recv's result.
    mutating func receive(from fd: Int32) -> Int {
        if start == end {
            start = 0
            end = 0
        } else if start > 0 && bytes.count - end < bytes.count / 4 {
            bytes.withUnsafeMutableBufferPointer { raw in _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start) }
            end -= start
            start = 0
        }
        if end == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
        let n = bytes.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress! + end, raw.count - end, 0) }
        if n > 0 { end += n }
        return n
    }
}

extension Request {
    /// Whether `message` is this request's reply (rather than a message of
    /// a watched stream that arrived before it).
    func isAnswered(by message: Message) -> Bool {
        switch (self, message) {
        case (.watch, .watch), (.unwatch, .watch), (.poll, .poll), (.status, .status), (.zero, .zero),
             (.selftest, .selftest), (.calibrateFlat, .calibration), (.calibrateSet, .calibration),
             (.calibrateReset, .calibration), (.configure, .configured), (.learn, .learned):
            true
        case (.device, .device(let device)): device.event == nil
        case (.configure, .device(let device)): device.event == "configured"
        default: false
        }
    }
}
