// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Testing

@testable import AccelROS2

/// The messages read back from the CDR `CDRWriter` writes, and short or
/// foreign bytes refused with the field they lacked.
struct CDRReaderTests {
    private let imu = ImuMessage(
        header: ROS2Header(stamp: ROS2Time(unixNanoseconds: 1_795_000_000_123_456_789), frameID: "imu_link"),
        orientation: nil, orientationCovariance: ImuMessage.notEstimated,
        angularVelocity: Vector3(0.1, -0.2, 0.3), angularVelocityCovariance: [2.3e-7, 0, 0, 0, 2.3e-7, 0, 0, 0, 2.3e-7],
        linearAcceleration: Vector3(-0.5, 1e-9, 9.80665), linearAccelerationCovariance: ImuMessage.unknownCovariance)

    @Test("an IMU message reads back as it was written, with and without its orientation")
    func imuRoundTrip() throws {
        #expect(try ImuMessage(cdr: imu.cdr[...]) == imu)
        var fused = imu
        fused.orientation = Quaternion(axis: Vector3(0, 1, 1), angle: 0.7)
        fused.orientationCovariance = ImuMessage.unknownCovariance
        #expect(try ImuMessage(cdr: fused.cdr[...]) == fused)
    }

    @Test("a diagnostic array reads back as it was written")
    func diagnosticsRoundTrip() throws {
        let status = DiagnosticArrayMessage.Status(level: .warn, name: "acceld: imu", message: "3 samples lost", hardwareID: "LIS3DH at x",
                                                   values: [("chip", "LIS3DH"), ("lost", "3"), ("é", "")])
        let array = DiagnosticArrayMessage(header: ROS2Header(stamp: ROS2Time(unixNanoseconds: -1), frameID: ""), status: [status, status])
        #expect(try DiagnosticArrayMessage(cdr: array.cdr[...]) == array)
    }

    @Test("every message cut short is refused, naming the field it ends in")
    func everyShortMessage() throws {
        let bytes = imu.cdr
        for cut in 0..<bytes.count {
            let error = #expect(throws: CDRError.self) { try ImuMessage(cdr: bytes[0..<cut]) }
            #expect(error?.description.contains("too short for its") == true, "cut at \(cut)")
        }
        // "imu_link" and its NUL from byte 16: 4 of its 9 bytes are there.
        #expect(throws: CDRError.tooShort(field: "header.frame_id", offset: 16, needed: 9, length: 20)) { try ImuMessage(cdr: bytes[0..<20]) }
        let error = #expect(throws: CDRError.self) { try ImuMessage(cdr: bytes.dropLast(8)) }
        #expect(error == .tooShort(field: "linear_acceleration_covariance[8]", offset: bytes.count - 8, needed: 8, length: bytes.count - 8))
        #expect(error?.description == "the message is \(bytes.count - 8) bytes, too short for its linear_acceleration_covariance[8] "
            + "(8 bytes from byte \(bytes.count - 8)): it was cut short, or it is not the type its channel names; record it again")
    }

    @Test("a count or a string length past the message's end is refused, not allocated")
    func hugeCounts() {
        // Header, frame_id "", then 0xFFFFFFFF statuses.
        let statuses: [UInt8] = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: CDRError.self) { try DiagnosticArrayMessage(cdr: statuses[...]) }
        let name: [UInt8] = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0]
        #expect(throws: CDRError.tooShort(field: "header.frame_id", offset: 16, needed: 0xFFFF_FFFF, length: 17)) { try ImuMessage(cdr: name[...]) }
        let unterminated: [UInt8] = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x41]
        #expect(throws: CDRError.unterminatedString(field: "header.frame_id", offset: 12)) { try ImuMessage(cdr: unterminated[...]) }
    }

    @Test("big-endian CDR reads; another encapsulation is refused, naming it")
    func encapsulations() throws {
        var cdr = try CDRReader([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0x61, 0x62, 0][...])
        let header = try ROS2Header(&cdr)
        #expect(header.stamp.sec == 1 && header.stamp.nanosec == 2 && header.frameID == "ab")
        let xcdr2 = #expect(throws: CDRError.encapsulation(0x00, 0x07)) { try ImuMessage(cdr: [0, 7, 0, 0][...]) }
        #expect(xcdr2?.description.hasPrefix("its CDR encapsulation is 0x00 0x07, not plain CDR") == true)
    }
}
