// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelROS2
import CROS2Types

#if canImport(Glibc)
import Glibc
#endif

/// sensor_msgs/Imu on DDS, from the same `ImuMessage` the bags hold.
public final class ImuPublisher {
    private let writer: DDSWriter
    /// The frame id as C keeps it, made once (every message carries it).
    private let frameID: UnsafeMutablePointer<CChar>

    public init(participant: DDSParticipant, name: String, frameID: String, qos: DDSWriter.QoS,
                log: @escaping @Sendable (String) -> Void) throws(DDSError) {
        writer = try DDSWriter(participant: participant, name: name, type: .imu, descriptor: ros2_imu_descriptor(),
                               qos: qos, log: log)
        self.frameID = strdup(frameID)
    }

    deinit { free(frameID) }

    public func publish(_ message: ImuMessage) throws(DDSError) {
        let q = message.orientation ?? Quaternion(w: 1, x: 0, y: 0, z: 0)
        var sample = sensor_msgs_msg_dds__Imu_(
            header: header(message.header.stamp),
            orientation: geometry_msgs_msg_dds__Quaternion_(x: q.x, y: q.y, z: q.z, w: q.w),
            orientation_covariance: nine(message.orientationCovariance),
            angular_velocity: vector(message.angularVelocity),
            angular_velocity_covariance: nine(message.angularVelocityCovariance),
            linear_acceleration: vector(message.linearAcceleration),
            linear_acceleration_covariance: nine(message.linearAccelerationCovariance))
        try writer.write(&sample, stamp: message.header.stamp)
    }

    private func header(_ stamp: ROS2Time) -> std_msgs_msg_dds__Header_ {
        std_msgs_msg_dds__Header_(stamp: builtin_interfaces_msg_dds__Time_(sec: stamp.sec, nanosec: stamp.nanosec), frame_id: frameID)
    }
}

private func vector(_ v: Vector3) -> geometry_msgs_msg_dds__Vector3_ {
    geometry_msgs_msg_dds__Vector3_(x: v.x, y: v.y, z: v.z)
}

private func nine(_ c: [Double]) -> (Double, Double, Double, Double, Double, Double, Double, Double, Double) {
    (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
}

/// diagnostic_msgs/DiagnosticArray on DDS. The C message points at its
/// strings and sequences; they are made for the write and freed after it.
public final class DiagnosticsPublisher {
    private let writer: DDSWriter

    public init(participant: DDSParticipant, name: String, log: @escaping @Sendable (String) -> Void) throws(DDSError) {
        writer = try DDSWriter(participant: participant, name: name, type: .diagnosticArray,
                               descriptor: ros2_diagnostic_array_descriptor(),
                               qos: DDSWriter.QoS(reliable: true, depth: 10), log: log)
    }

    public func publish(_ message: DiagnosticArrayMessage) throws(DDSError) {
        var strings: [UnsafeMutablePointer<CChar>] = []
        func c(_ text: String) -> UnsafeMutablePointer<CChar> {
            strings.append(strdup(text))
            return strings.last!
        }
        let statuses = UnsafeMutableBufferPointer<diagnostic_msgs_msg_dds__DiagnosticStatus_>.allocate(capacity: message.status.count)
        var valueBuffers: [UnsafeMutableBufferPointer<diagnostic_msgs_msg_dds__KeyValue_>] = []
        defer {
            strings.forEach { free($0) }
            valueBuffers.forEach { $0.deallocate() }
            statuses.deallocate()
        }
        for (n, status) in message.status.enumerated() {
            let values = UnsafeMutableBufferPointer<diagnostic_msgs_msg_dds__KeyValue_>.allocate(capacity: status.values.count)
            valueBuffers.append(values)
            for (m, pair) in status.values.enumerated() {
                values[m] = diagnostic_msgs_msg_dds__KeyValue_(key: c(pair.key), value: c(pair.value))
            }
            statuses[n] = diagnostic_msgs_msg_dds__DiagnosticStatus_(
                level: status.level.rawValue, name: c(status.name), message: c(status.message), hardware_id: c(status.hardwareID),
                values: dds_sequence_diagnostic_msgs_msg_dds__KeyValue_(
                    _maximum: UInt32(status.values.count), _length: UInt32(status.values.count), _buffer: values.baseAddress, _release: false))
        }
        let stamp = message.header.stamp
        var sample = diagnostic_msgs_msg_dds__DiagnosticArray_(
            header: std_msgs_msg_dds__Header_(stamp: builtin_interfaces_msg_dds__Time_(sec: stamp.sec, nanosec: stamp.nanosec),
                                              frame_id: c(message.header.frameID)),
            status: dds_sequence_diagnostic_msgs_msg_dds__DiagnosticStatus_(
                _maximum: UInt32(message.status.count), _length: UInt32(message.status.count), _buffer: statuses.baseAddress, _release: false))
        try writer.write(&sample, stamp: stamp)
    }
}
