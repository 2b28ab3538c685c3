// SPDX-License-Identifier: Apache-2.0
import AccelParts
#if canImport(Glibc)
import Glibc
#endif

/// The error a failed call on the GPIO character device means.
extension GPIOError {
    static func from(errno code: Int32, path: String, line: String, operation: String) -> GPIOError {
        switch code {
        case ENOENT: .noChip(path, available: [])
        case EACCES, EPERM: .permissionDenied(path: path)
        case ENOTTY: .notAChip(path: path)
        case ENODEV: .gone(line: line)
        default: .failed(operation: operation, line: line, errno: code)
        }
    }
}
