// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol

/// acceld's frames and status as a ROS 2 bag in MCAP: `/imu/data_raw`
/// always, `/imu/data` on parts with a gyroscope, `/diagnostics` once a
/// second; with the channel metadata rosbag2 writes (the publishers' QoS,
/// the REP-2011 type hash), so that `ros2 bag play` offers each topic
/// with the QoS it was recorded with.
public final class ROS2Recording {
    private let writer: MCAPWriter
    private let conversion: ImuConversion
    private let raw: UInt16, fused: UInt16?, diagnostics: UInt16
    private var clock: ClockMapping
    private var report = DiagnosticsReport()
    private var framesSinceReport = 0
    public private(set) var counts: [String: Int] = [:]

    public init(path: String, conversion: ImuConversion, clock: ClockMapping = ClockMapping(), library: String) throws(FileWriteError) {
        let writer = try MCAPWriter(path: path, profile: "ros2", library: library)
        func schema(_ type: ROS2MessageType) throws(FileWriteError) -> UInt16 {
            try writer.addSchema(name: type.name, encoding: "ros2msg", data: Array(type.definition.utf8))
        }
        let imu = try schema(.imu), diagnosticArray = try schema(.diagnosticArray)
        func channel(_ topic: String, _ schema: UInt16, _ type: ROS2MessageType, _ qos: ROS2QoS) throws(FileWriteError) -> UInt16 {
            try writer.addChannel(topic: topic, schema: schema, encoding: "cdr",
                                  metadata: [("offered_qos_profiles", qos.rosbag2YAML), ("topic_type_hash", type.typeHash)])
        }
        raw = try channel("/imu/data_raw", imu, .imu, .sensorData)
        fused = conversion.hasGyroscope ? try channel("/imu/data", imu, .imu, .sensorData) : nil
        diagnostics = try channel("/diagnostics", diagnosticArray, .diagnosticArray, .diagnostics)
        self.writer = writer
        self.conversion = conversion
        self.clock = clock
    }

    /// A frame: its instant on the system clock, then one message per IMU topic.
    public func record(_ frame: FrameMessage) throws(FileWriteError) {
        let nanoseconds = clock.unixNanoseconds(ofMonotonic: frame.t)
        let stamp = ROS2Time(unixNanoseconds: nanoseconds)
        guard let message = conversion.raw(frame, stamp: stamp) else { return }
        try write(message.cdr, on: raw, topic: "/imu/data_raw", at: nanoseconds)
        if let fused, let message = conversion.fused(frame, stamp: stamp) {
            try write(message.cdr, on: fused, topic: "/imu/data", at: nanoseconds)
        }
        framesSinceReport += 1
    }

    /// A `status` reply: the diagnostics, stamped now; the clock mapping
    /// follows the system clock at the same time.
    public func record(_ status: StatusReport) throws(FileWriteError) {
        clock.follow()
        let now = ClockMapping.measure()
        let nanoseconds = now.monotonic + clock.offset
        let header = ROS2Header(stamp: ROS2Time(unixNanoseconds: nanoseconds), frameID: "")
        let message = report.message(status: status, framesSinceLast: framesSinceReport, header: header)
        framesSinceReport = 0
        try write(message.cdr, on: diagnostics, topic: "/diagnostics", at: nanoseconds)
    }

    public func finish() throws(FileWriteError) { try writer.finish() }

    private func write(_ data: [UInt8], on channel: UInt16, topic: String, at nanoseconds: Int64) throws(FileWriteError) {
        try writer.write(channel: channel, logTime: UInt64(max(0, nanoseconds)), data: data)
        counts[topic, default: 0] += 1
    }
}

/// A publisher's QoS as rosbag2 records it in a channel's metadata.
public struct ROS2QoS: Sendable {
    public enum Reliability: Int, Sendable { case reliable = 1, bestEffort = 2 }
    public var reliability: Reliability
    public var depth: Int

    /// rclcpp's SensorDataQoS: best effort, keep last 5, volatile.
    public static let sensorData = ROS2QoS(reliability: .bestEffort, depth: 5)
    /// What diagnostic_updater publishes with: reliable, keep last 10.
    public static let diagnostics = ROS2QoS(reliability: .reliable, depth: 10)

    /// rosbag2's YAML: history 1 (keep last), durability 2 (volatile),
    /// liveliness 1 (automatic); zero durations mean "the default".
    public var rosbag2YAML: String {
        let zero = "\n    sec: 0\n    nsec: 0"
        return "- history: 1\n  depth: \(depth)\n  reliability: \(reliability.rawValue)\n  durability: 2\n"
            + "  deadline:\(zero)\n  lifespan:\(zero)\n  liveliness: 1\n  liveliness_lease_duration:\(zero)\n"
            + "  avoid_ros_namespace_conventions: false"
    }
}
