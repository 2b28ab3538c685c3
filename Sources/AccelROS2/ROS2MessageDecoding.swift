// SPDX-License-Identifier: Apache-2.0
import AccelCore

// The messages of ROS2Messages.swift read back from CDR, field for field
// as they are written, for `acceld replay` of a bag.

extension ROS2Time {
    init(_ cdr: inout CDRReader, _ field: String) throws(CDRError) {
        self.init(unixNanoseconds: 0)
        sec = try cdr.int32("\(field).sec")
        nanosec = try cdr.uint32("\(field).nanosec")
    }
}

extension ROS2Header {
    init(_ cdr: inout CDRReader) throws(CDRError) {
        self.init(stamp: try ROS2Time(&cdr, "header.stamp"), frameID: try cdr.string("header.frame_id"))
    }
}

extension ImuMessage {
    /// Decodes a sensor_msgs/msg/Imu. Where the orientation's covariance
    /// says "not estimated" (element 0 = −1) the orientation is nil, as
    /// REP-145 says to ignore it, and as `cdr` writes nil.
    public init(cdr bytes: ArraySlice<UInt8>) throws(CDRError) {
        var cdr = try CDRReader(bytes)
        let header = try ROS2Header(&cdr)
        let q = try cdr.doubles(4, "orientation")  // x, y, z, w: geometry_msgs/Quaternion's order
        let orientationCovariance = try cdr.doubles(9, "orientation_covariance")
        let rate = try cdr.doubles(3, "angular_velocity")
        let rateCovariance = try cdr.doubles(9, "angular_velocity_covariance")
        let acceleration = try cdr.doubles(3, "linear_acceleration")
        let accelerationCovariance = try cdr.doubles(9, "linear_acceleration_covariance")
        self.init(header: header,
                  orientation: orientationCovariance[0] == -1 ? nil : Quaternion(w: q[3], x: q[0], y: q[1], z: q[2]),
                  orientationCovariance: orientationCovariance,
                  angularVelocity: Vector3(rate[0], rate[1], rate[2]), angularVelocityCovariance: rateCovariance,
                  linearAcceleration: Vector3(acceleration[0], acceleration[1], acceleration[2]),
                  linearAccelerationCovariance: accelerationCovariance)
    }
}

extension DiagnosticArrayMessage {
    /// Decodes a diagnostic_msgs/msg/DiagnosticArray.
    public init(cdr bytes: ArraySlice<UInt8>) throws(CDRError) {
        var cdr = try CDRReader(bytes)
        let header = try ROS2Header(&cdr)
        // The least a status can hold: a level byte and four counts.
        let count = try cdr.count("status", minimumSize: 17)
        var status: [Status] = []
        for index in 0..<count {
            let field = "status[\(index)]"
            let byte = try cdr.uint8("\(field).level")
            let name = try cdr.string("\(field).name")
            let message = try cdr.string("\(field).message")
            let hardwareID = try cdr.string("\(field).hardware_id")
            let pairs = try cdr.count("\(field).values", minimumSize: 8)
            var values: [(key: String, value: String)] = []
            for pair in 0..<pairs {
                values.append((try cdr.string("\(field).values[\(pair)].key"), try cdr.string("\(field).values[\(pair)].value")))
            }
            // A level beyond STALE is not diagnostic_msgs': read as ERROR.
            status.append(Status(level: Level(rawValue: byte) ?? .error, name: name, message: message, hardwareID: hardwareID, values: values))
        }
        self.init(header: header, status: status)
    }
}
