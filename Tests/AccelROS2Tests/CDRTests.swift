// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import Testing

@testable import AccelROS2

/// The byte layout of ROS 2's messages in CDR, field by field, as REP-145
/// fills them. (That Python's rosbags and mcap-ros2-support decode them is
/// clients/ros2's test: an independent implementation.)
struct CDRTests {
    private func double(_ bytes: [UInt8], at offset: Int) -> Double {
        Double(bitPattern: bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    private func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    @Test func imuLayout() {
        let message = ImuMessage(
            header: ROS2Header(stamp: ROS2Time(unixNanoseconds: 1_795_000_000_123_456_789), frameID: "imu_link"),
            orientation: nil, orientationCovariance: ImuMessage.notEstimated,
            angularVelocity: Vector3(0.1, -0.2, 0.3), angularVelocityCovariance: ImuMessage.unknownCovariance,
            linearAcceleration: Vector3(0, 0, 9.80665), linearAccelerationCovariance: ImuMessage.unknownCovariance)
        let bytes = message.cdr
        #expect(Array(bytes[0..<4]) == [0, 1, 0, 0])  // CDR, little-endian
        #expect(uint32(bytes, at: 4) == 1_795_000_000)
        #expect(uint32(bytes, at: 8) == 123_456_789)
        #expect(uint32(bytes, at: 12) == 9)  // "imu_link" and its NUL
        #expect(String(decoding: bytes[16..<24], as: UTF8.self) == "imu_link" && bytes[24] == 0)
        // The quaternion's doubles align to 8 from the end of the 4-byte header: byte 28.
        #expect([28, 36, 44, 52].map { double(bytes, at: $0) } == [0, 0, 0, 1])
        #expect(double(bytes, at: 60) == -1)  // orientation not estimated
        #expect([132, 140, 148].map { double(bytes, at: $0) } == [0.1, -0.2, 0.3])
        #expect([228, 236, 244].map { double(bytes, at: $0) } == [0, 0, 9.80665])
        #expect(double(bytes, at: 252) == 0)  // linear acceleration's covariance: unknown
        #expect(bytes.count == 4 + 24 + 32 + 72 + 24 + 72 + 24 + 72)
    }

    @Test func diagnosticsLayout() {
        let status = DiagnosticArrayMessage.Status(level: .warn, name: "n", message: "m", hardwareID: "h", values: [("lost", "3")])
        let bytes = DiagnosticArrayMessage(header: ROS2Header(stamp: ROS2Time(unixNanoseconds: 0), frameID: ""), status: [status]).cdr
        let expected: [UInt8] = [0, 1, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0,  // stamp
                                 1, 0, 0, 0, 0,  // frame_id "", its NUL
                                 0, 0, 0, 1, 0, 0, 0,  // padding to 4, one status
                                 1,  // level WARN: a byte, unaligned
                                 0, 0, 0, 2, 0, 0, 0, 0x6E, 0,  // name "n" after padding to 4
                                 0, 0, 2, 0, 0, 0, 0x6D, 0,  // message "m"
                                 0, 0, 2, 0, 0, 0, 0x68, 0,  // hardware_id "h"
                                 0, 0, 1, 0, 0, 0,  // one value
                                 5, 0, 0, 0] + Array("lost".utf8) + [0, 0, 0, 0, 2, 0, 0, 0, 0x33, 0]
        #expect(bytes == expected)
    }

    @Test(arguments: [(Int64(0), Int32(0), UInt32(0)), (1_500_000_000, 1, 500_000_000), (-1, -1, 999_999_999),
                      (-1_500_000_000, -2, 500_000_000)])
    func timeSplitsIntoSecondsAndNanoseconds(nanoseconds: Int64, sec: Int32, nanosec: UInt32) {
        let time = ROS2Time(unixNanoseconds: nanoseconds)
        #expect(time.sec == sec && time.nanosec == nanosec)
        #expect(time.unixNanoseconds == nanoseconds)
    }

    @Test func typeNamesOnDDS() {
        #expect(ROS2MessageType.imu.ddsName == "sensor_msgs::msg::dds_::Imu_")
        #expect(ROS2MessageType.diagnosticArray.ddsName == "diagnostic_msgs::msg::dds_::DiagnosticArray_")
    }
}

/// REP-145's covariances from the table of parts.
struct CovarianceTests {
    @Test func aGyroscopesVarianceFromItsDatasheet() throws {
        let device = DeviceInfo(chip: "LSM6DSO", location: "x", range: 2, rate: 104, mode: "high-performance", resolution: 16, gyroscope: 2000)
        let conversion = ImuConversion(frameID: "imu_link", device: device)
        // DS12140: 3.8 mdps/√Hz; over 52 Hz: 0.0274 dps, 4.78e-4 rad/s.
        let sigma = 0.0038 * 52.0.squareRoot() * Double.pi / 180
        let variance = try #require(conversion.angularVelocityVariance)
        #expect(abs(variance - sigma * sigma) < 1e-15)
        let frame = FrameMessage(seq: 0, t: 1, acceleration: Vector3(0, 0, 1), rotationRate: Vector3(0, 0, 0))
        let message = try #require(conversion.raw(frame, stamp: ROS2Time(unixNanoseconds: 0)))
        #expect(message.angularVelocityCovariance == [variance, 0, 0, 0, variance, 0, 0, 0, variance])
    }

    @Test func anAccelerometersVarianceFromItsDatasheet() throws {
        // DS12140: 70 µg/√Hz at ±2 g; over 52 Hz: 505 µg, 4.95e-3 m/s².
        let device = DeviceInfo(chip: "LSM6DSO", location: "x", range: 2, rate: 104, mode: "high-performance", resolution: 16, gyroscope: 2000)
        let sigma = 70e-6 * 52.0.squareRoot() * 9.80665
        let conversion = ImuConversion(frameID: "imu_link", device: device)
        let message = try #require(conversion.raw(FrameMessage(seq: 0, t: 1, acceleration: Vector3(0, 0, 1)), stamp: ROS2Time(unixNanoseconds: 0)))
        let variance = message.linearAccelerationCovariance[0]
        #expect(abs(variance - sigma * sigma) < 1e-15)
        #expect(message.linearAccelerationCovariance == [variance, 0, 0, 0, variance, 0, 0, 0, variance])
    }

    @Test func withoutAGyroscopeTheRateIsNotProvided() throws {
        let device = DeviceInfo(chip: "LIS3DH", location: "x", range: 2, rate: 100, mode: "normal", resolution: 10)
        let conversion = ImuConversion(frameID: "imu_link", device: device)
        #expect(conversion.angularVelocityVariance == nil && !conversion.hasGyroscope)
        let message = try #require(conversion.raw(FrameMessage(seq: 0, t: 1, acceleration: Vector3(0, 0, 1)), stamp: ROS2Time(unixNanoseconds: 0)))
        #expect(message.angularVelocityCovariance == ImuMessage.notEstimated)
        // The LIS3DH's datasheet gives no noise density: "unknown".
        #expect(message.linearAccelerationCovariance == ImuMessage.unknownCovariance)
    }
}
