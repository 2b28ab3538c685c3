// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// builtin_interfaces/msg/Time: an instant on the system clock (ROS time).
public struct ROS2Time: Sendable, Equatable {
    public var sec: Int32
    public var nanosec: UInt32

    /// From nanoseconds since the Unix epoch (before 2038, as Int32 seconds allow).
    public init(unixNanoseconds: Int64) {
        let (seconds, rest) = unixNanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let borrow = rest < 0 ? 1 : 0
        sec = Int32(truncatingIfNeeded: seconds - Int64(borrow))
        nanosec = UInt32(rest + Int64(borrow) * 1_000_000_000)
    }

    public var unixNanoseconds: Int64 { Int64(sec) * 1_000_000_000 + Int64(nanosec) }

    func encode(_ cdr: inout CDRWriter) {
        cdr.write(sec)
        cdr.write(nanosec)
    }
}

/// std_msgs/msg/Header.
public struct ROS2Header: Sendable, Equatable {
    public var stamp: ROS2Time
    public var frameID: String

    public init(stamp: ROS2Time, frameID: String) {
        self.stamp = stamp
        self.frameID = frameID
    }

    func encode(_ cdr: inout CDRWriter) {
        stamp.encode(&cdr)
        cdr.write(frameID)
    }
}

/// sensor_msgs/msg/Imu, REP-145's way: SI units, covariances row-major,
/// all zeros for "unknown", element 0 of a covariance −1 for "this
/// field is not estimated" (orientation on `imu/data_raw`).
public struct ImuMessage: Sendable, Equatable {
    public static let unknownCovariance = [Double](repeating: 0, count: 9)
    public static let notEstimated = [-1.0] + [Double](repeating: 0, count: 8)

    public var header: ROS2Header
    /// The attitude, or nil on `imu/data_raw` (sent as the identity with
    /// `orientationCovariance[0] = -1`).
    public var orientation: Quaternion?
    public var orientationCovariance: [Double]
    /// rad/s; zeros with `angularVelocityCovariance[0] = -1` without a gyroscope.
    public var angularVelocity: Vector3
    public var angularVelocityCovariance: [Double]
    /// Specific force, m/s² (+9.81 on the axis pointing up at rest).
    public var linearAcceleration: Vector3
    public var linearAccelerationCovariance: [Double]

    public init(header: ROS2Header, orientation: Quaternion?, orientationCovariance: [Double],
                angularVelocity: Vector3, angularVelocityCovariance: [Double],
                linearAcceleration: Vector3, linearAccelerationCovariance: [Double]) {
        self.header = header
        self.orientation = orientation
        self.orientationCovariance = orientationCovariance
        self.angularVelocity = angularVelocity
        self.angularVelocityCovariance = angularVelocityCovariance
        self.linearAcceleration = linearAcceleration
        self.linearAccelerationCovariance = linearAccelerationCovariance
    }

    public var cdr: [UInt8] {
        var cdr = CDRWriter()
        header.encode(&cdr)
        let q = orientation ?? Quaternion(w: 1, x: 0, y: 0, z: 0)
        for value in [q.x, q.y, q.z, q.w] { cdr.write(value) }  // geometry_msgs/Quaternion's order
        cdr.write(fixed: orientationCovariance)
        for value in [angularVelocity.x, angularVelocity.y, angularVelocity.z] { cdr.write(value) }
        cdr.write(fixed: angularVelocityCovariance)
        for value in [linearAcceleration.x, linearAcceleration.y, linearAcceleration.z] { cdr.write(value) }
        cdr.write(fixed: linearAccelerationCovariance)
        return cdr.bytes
    }
}

/// diagnostic_msgs/msg/DiagnosticArray with its DiagnosticStatus and KeyValue.
public struct DiagnosticArrayMessage: Sendable, Equatable {
    public enum Level: UInt8, Sendable {
        case ok = 0, warn = 1, error = 2, stale = 3
    }

    public struct Status: Sendable, Equatable {
        public var level: Level
        public var name: String
        public var message: String
        public var hardwareID: String
        public var values: [(key: String, value: String)]

        public init(level: Level, name: String, message: String, hardwareID: String, values: [(key: String, value: String)]) {
            self.level = level
            self.name = name
            self.message = message
            self.hardwareID = hardwareID
            self.values = values
        }

        public static func == (a: Status, b: Status) -> Bool {
            a.level == b.level && a.name == b.name && a.message == b.message && a.hardwareID == b.hardwareID
                && a.values.map(\.key) == b.values.map(\.key) && a.values.map(\.value) == b.values.map(\.value)
        }
    }

    public var header: ROS2Header
    public var status: [Status]

    public init(header: ROS2Header, status: [Status]) {
        self.header = header
        self.status = status
    }

    public var cdr: [UInt8] {
        var cdr = CDRWriter()
        header.encode(&cdr)
        cdr.write(sequence: status) { cdr, status in
            cdr.write(status.level.rawValue)
            cdr.write(status.name)
            cdr.write(status.message)
            cdr.write(status.hardwareID)
            cdr.write(sequence: status.values) { cdr, pair in
                cdr.write(pair.key)
                cdr.write(pair.value)
            }
        }
        return cdr.bytes
    }
}
