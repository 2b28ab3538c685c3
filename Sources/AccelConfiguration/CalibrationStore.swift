// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The calibration on disk, as one small JSON object. Written atomically:
/// a temporary file in the same directory, fsync, rename over the old one,
/// fsync the directory. A crash at any point leaves the old file or the new
/// one, never a torn one.
public struct CalibrationStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public struct LoadError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "calibration file \(path): \(reason); fix or delete it, or recalibrate" }
    }

    /// The saved calibration; nil if there is none yet.
    public func load() throws -> Calibration? {
        guard access(path, F_OK) == 0 else { return nil }
        guard let text = readTextFile(path) else { throw LoadError(path: path, reason: "cannot be read") }
        guard let object = (try? JSONValue(parsing: Array(text.utf8)))?.object,
              let offset = object["offset"]?.numbers(count: 3),
              let scale = object["scale"]?.numbers(count: 3)
        else { throw LoadError(path: path, reason: "is not a calibration (expected {\"offset\":[x,y,z],\"scale\":[x,y,z]})") }
        // "gyroscope-offset" (dps) came later: a file without it has none.
        var gyroscopeOffset: Vector3?
        if let value = object["gyroscope-offset"] {
            guard let rates = value.numbers(count: 3) else {
                throw LoadError(path: path, reason: "has a \"gyroscope-offset\" that is not [x,y,z] in dps")
            }
            gyroscopeOffset = Vector3(rates[0], rates[1], rates[2])
        }
        return Calibration(offset: Vector3(offset[0], offset[1], offset[2]), scale: Vector3(scale[0], scale[1], scale[2]),
                           gyroscopeOffset: gyroscopeOffset)
    }

    public func save(_ calibration: Calibration) throws {
        var line = JSONLine()
        line.add("offset", calibration.offset, decimals: 6)
        line.add("scale", calibration.scale, decimals: 6)
        if let gyroscopeOffset = calibration.gyroscopeOffset { line.add("gyroscope-offset", gyroscopeOffset, decimals: 4) }
        try writeAtomically(line.line + "\n", to: path)
    }
}

