// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

public struct FileWriteError: Error, CustomStringConvertible {
    public let path: String
    public let step: String
    public let code: Int32
    public var description: String { "cannot write \(path) (\(step)): \(String(cString: strerror(code)))" }
}

/// A file written in pieces that readers see only whole: the bytes go to a
/// temporary file beside `path`, and `commit` syncs it and renames it into
/// place. Dropped before `commit`, the temporary file is removed.
public final class AtomicFile {
    public let path: String
    private let temporary: String
    private var fd: Int32
    /// Bytes written so far: the next write's offset in the file.
    public private(set) var offset: UInt64 = 0

    public init(path: String) throws(FileWriteError) {
        self.path = path
        temporary = path + ".tmp.\(getpid())"
        fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileWriteError(path: temporary, step: "create", code: errno) }
    }

    deinit {
        if fd >= 0 {
            close(fd)
            unlink(temporary)
        }
    }

    public func write(_ bytes: [UInt8]) throws(FileWriteError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw FileWriteError(path: temporary, step: "write", code: errno) }
            written += n
        }
        offset += UInt64(bytes.count)
    }

    /// Syncs the file, renames it to `path` and syncs the directory.
    public func commit() throws(FileWriteError) {
        guard fsync(fd) == 0 else { throw FileWriteError(path: temporary, step: "fsync", code: errno) }
        close(fd)
        fd = -1
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileWriteError(path: path, step: "rename", code: code)
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }
}

/// Replaces `path` with `text` so that readers see the old or the new
/// content, whatever happens in between.
public func writeAtomically(_ text: String, to path: String) throws(FileWriteError) {
    let file = try AtomicFile(path: path)
    try file.write(Array(text.utf8))
    try file.commit()
}
