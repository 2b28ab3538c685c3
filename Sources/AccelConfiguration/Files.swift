// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func systemError() -> String { String(cString: strerror(errno)) }

/// Buffered writes to a file descriptor: replay prints hundreds of
/// thousands of lines a second, one write(2) each would dominate.
public final class LineWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let limit: Int

    public init(fd: Int32 = 1, bufferSize: Int = 1 << 16) {
        self.fd = fd
        limit = bufferSize
        buffer.reserveCapacity(bufferSize + 512)
    }

    deinit { flush() }

    public func write(line: String) { write(bytes: Array(line.utf8)) }

    public func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(0x0A)
        if buffer.count >= limit { flush() }
    }

    public func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
