// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file read with POSIX calls (Foundation-free so the driver and the
/// configuration stay small), or nil with errno saying why.
public func readTextFile(_ path: String) -> String? {
    readBinaryFile(path).map { String(decoding: $0, as: UTF8.self) }
}

/// The file's bytes as they are (an MCAP bag), or nil with errno saying why.
public func readBinaryFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
        if n < chunk.count { break }
    }
    if ferror(file) != 0 { return nil }
    return bytes
}
