// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

/// What `acceld replay` plays, by name: a ROS 2 bag (a file ending in
/// `.mcap`) read as a trace, else a built-in motion or a CSV trace as
/// DeviceSource finds them. Here rather than in DeviceSource because the
/// driver does not link the ROS 2 module.
public enum ReplayMotion {
    public static func named(_ name: String, axis: Axis? = nil) throws -> any MotionSource {
        // A bag that cannot be read is refused as any missing trace is.
        guard isBag(name), let bytes = readBinaryFile(name) else { return try DeviceSource.motion(named: name, axis: axis) }
        return TraceMotion(try Trace(mcap: bytes, source: name), name: name)
    }

    /// Whether `name` is a bag by its name, as rosbag2 names them.
    public static func isBag(_ name: String) -> Bool {
        name.lowercased().hasSuffix(".mcap")
    }
}
