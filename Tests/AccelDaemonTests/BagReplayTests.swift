// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol
import AccelReplay
import AccelROS2
import Foundation
import Testing
import TestSupport

/// `acceld replay` of a ROS 2 bag that `accelctl record --format mcap`
/// writes: the bag's /imu/data_raw read back as the trace it recorded,
/// played through the same path as a CSV trace.
@Suite("acceld replay of an MCAP bag")
struct BagReplayTests {
    /// A board tilting slowly, as acceld's frames, `rate` Hz for `seconds`
    /// from t = 1000 s on the monotonic clock.
    static func frames(rate: Double, seconds: Double, gyroscope: Bool) -> [FrameMessage] {
        (0..<Int(rate * seconds)).map { i in
            let t = 1_000 + Double(i) / rate, phase = 2 * Double.pi * 0.25 * Double(i) / rate
            return FrameMessage(seq: UInt64(i), t: t, acceleration: Vector3(0.3 * sin(phase), 0.3 * cos(phase) - 0.1, 0.9),
                                rotationRate: gyroscope ? Vector3(0.2 * cos(phase), -0.1, 0.05 * sin(phase)) : nil)
        }
    }

    /// A fixed mapping onto the system clock: the stamps do not depend on when the test runs.
    static let clock = ClockMapping(offset: 1_790_000_000_000_000_000, atMonotonic: 0)

    /// Records `frames` as accelctl record --format mcap does, from the
    /// device `chip` at `rate`, with the diagnostics of its last status.
    static func record(_ frames: [FrameMessage], chip: String, rate: Int, gyroscope: Bool, name: String) throws -> String {
        let path = try temporaryFile("", name: name)
        let device = DeviceInfo(chip: chip, location: "chip model (tilt)", range: 2, rate: rate, mode: "high-performance", resolution: 16,
                                gyroscope: gyroscope ? 2000 : nil)
        let recording = try ROS2Recording(path: path, conversion: ImuConversion(frameID: "imu_link", device: device), clock: clock,
                                          library: "accelctl test")
        for frame in frames { try recording.record(frame) }
        try recording.record(StatusReport(uptime: 3, clients: 1, counters: SamplerCounters(), device: device))
        try recording.finish()
        return path
    }

    @Test("a bag reads as the trace it recorded: g, rad/s, times from the first stamp, and the part it was recorded on")
    func bagAsTrace() throws {
        let frames = Self.frames(rate: 104, seconds: 2, gyroscope: true)
        let path = try Self.record(frames, chip: "LSM6DSO", rate: 104, gyroscope: true, name: "six.mcap")
        let trace = try Trace(mcap: try #require(readBinaryFile(path)), source: path)
        #expect(trace.count == frames.count)
        for (i, frame) in frames.enumerated() {
            #expect(abs(trace.times[i] - (frame.t - frames[0].t)) < 2e-9, "row \(i): \(trace.times[i])")
            #expect((trace.samples[i] - frame.acceleration!).maxComponent < 1e-12, "row \(i)")
        }
        #expect(trace.rotationRates == frames.map { $0.rotationRate! })
        #expect(trace.comments == ["source: accelctl test, /imu/data_raw", "device: LSM6DSO, ±2 g, 104 Hz"])
        #expect(trace.recordedPart?.name == "LSM6DSO")

        let three = try Self.record(Self.frames(rate: 100, seconds: 0.5, gyroscope: false), chip: "LIS3DH", rate: 100, gyroscope: false, name: "three.mcap")
        let accelerometer = try Trace(mcap: try #require(readBinaryFile(three)), source: three)
        #expect(accelerometer.rotationRates == nil && accelerometer.count == 50 && accelerometer.recordedPart?.name == "LIS3DH")
    }

    @Test("a bag without an IMU's raw topic is refused, listing the topics it has")
    func noRawTopic() throws {
        let path = try temporaryFile("", name: "camera.mcap")
        let writer = try MCAPWriter(path: path, profile: "ros2", library: "test")
        let image = try writer.addSchema(name: "sensor_msgs/msg/Image", encoding: "ros2msg", data: [])
        let imu = try writer.addSchema(name: ROS2MessageType.imu.name, encoding: "ros2msg", data: Array(ROS2MessageType.imu.definition.utf8))
        _ = try writer.addChannel(topic: "/camera/image", schema: image, encoding: "cdr", metadata: [])
        _ = try writer.addChannel(topic: "/imu/data", schema: imu, encoding: "cdr", metadata: [])
        try writer.finish()
        let bytes = try #require(readBinaryFile(path))
        let error = #expect(throws: BagError.self) { try Trace(mcap: bytes, source: path) }
        #expect(error?.reason == "no sensor_msgs/msg/Imu topic ending in imu/data_raw, which acceld replay plays; the topics are "
            + "/camera/image (sensor_msgs/msg/Image), /imu/data (sensor_msgs/msg/Imu): record one with accelctl record --format mcap, "
            + "or ros2 bag record /imu/data_raw")
    }

    /// A bag whose /robot/imu/data_raw holds `messages`, logged at 5, 6, ... ns.
    static func bag(_ messages: [[UInt8]], name: String) throws -> [UInt8] {
        let path = try temporaryFile("", name: name)
        let writer = try MCAPWriter(path: path, profile: "ros2", library: "test")
        let imu = try writer.addSchema(name: ROS2MessageType.imu.name, encoding: "ros2msg", data: Array(ROS2MessageType.imu.definition.utf8))
        let channel = try writer.addChannel(topic: "/robot/imu/data_raw", schema: imu, encoding: "cdr", metadata: [])
        for (index, message) in messages.enumerated() { try writer.write(channel: channel, logTime: 5 + UInt64(index), data: message) }
        try writer.finish()
        return try #require(readBinaryFile(path))
    }

    static func imu(_ acceleration: Vector3) throws -> [UInt8] {
        let frame = FrameMessage(seq: 0, t: 0, acceleration: acceleration)
        return try #require(ImuConversion(hasGyroscope: false).raw(frame, stamp: ROS2Time(unixNanoseconds: 5))).cdr
    }

    @Test("an IMU message cut short, or holding a NaN, is refused, naming it, its topic and what is wrong")
    func damagedMessages() throws {
        let whole = try Self.imu(Vector3(0, 0, 1))
        let short = try Self.bag([whole, Array(whole.prefix(100))], name: "short.mcap")
        let error = #expect(throws: BagError.self) { try Trace(mcap: short, source: "short.mcap") }
        #expect(error?.reason.hasPrefix("message 2 on /robot/imu/data_raw (log time 6 ns): the message is 100 bytes, too short for its "
            + "orientation_covariance[5]") == true, "\(error?.reason ?? "")")
        let nan = try Self.bag([try Self.imu(Vector3(.nan, 0, 1))], name: "nan.mcap")
        let notFinite = #expect(throws: BagError.self) { try Trace(mcap: nan, source: "nan.mcap") }
        #expect(notFinite?.description == "nan.mcap: message 1 on /robot/imu/data_raw (log time 5 ns): its linear_acceleration or "
            + "angular_velocity is not a finite number: the message is damaged; record it again")
    }

    @Test("acceld replay plays a bag as it plays the same samples in CSV, byte for byte, each frame the recorded acceleration within the part's digit")
    func endToEnd() throws {
        let frames = Self.frames(rate: 104, seconds: 2, gyroscope: true)
        let bag = try Self.record(frames, chip: "LSM6DSO", rate: 104, gyroscope: true, name: "tilt.mcap")
        // The same samples at full precision (a Double's description reads
        // back exactly), at the times of the bag's stamps, from the first.
        let stamps = frames.map { Self.clock.unixNanoseconds(ofMonotonic: $0.t) }
        let rows = zip(frames, stamps).map { f, stamp in
            "\(Double(stamp - stamps[0]) / 1e9),\(f.acceleration!.x),\(f.acceleration!.y),\(f.acceleration!.z),\(f.rotationRate!.x),\(f.rotationRate!.y),\(f.rotationRate!.z)"
        }
        let csv = try temporaryFile("# device: LSM6DSO\n\(Trace.rotationHeader)\n" + rows.joined(separator: "\n") + "\n", name: "tilt.csv")

        let played = try acceld(["replay", bag, "--streams", "frames"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains("playing the LSM6DSO, the part \(bag) was recorded on"), "\(played.stderr)")
        let asCSV = try acceld(["replay", csv, "--streams", "frames"])
        #expect(played.stdout == asCSV.stdout)

        // One digit of the range played, and the 4 decimals printed. (The
        // frames' rotationRate has the offset the fusion learnt removed, so
        // the rates are compared with the CSV's above, not with the bag's.)
        let digit = try #require(ChipProfile.lsm6dso.ranges.first { $0.fullScale == 2 }).gPerDigit + 0.5e-4
        var count = 0
        for line in played.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let t = try #require(object["t"] as? Double), acc = try #require(object["acc"] as? [Double])
            // The row the chip sampled: the sampler's t is within a quarter period of it.
            let row = try #require(frames.indices.first { abs(Double($0) / 104 - t) < 0.25 / 104 }, "t \(t)")
            let recorded = frames[row].acceleration!
            let worst = zip(acc, [recorded.x, recorded.y, recorded.z]).map { abs($0 - $1) }.max()!
            #expect(worst <= digit, "frame at \(t): \(acc) against \(recorded)")
            count += 1
        }
        // The part's first sample comes after its turn-on; one frame for each row from there.
        #expect(count >= frames.count - 4 && count < frames.count, "\(count) frames of \(frames.count) rows")
    }

    @Test("a bag that is damaged or not MCAP is refused with exit 65 and what to do; a missing one as any missing trace, 66")
    func refusedBags() throws {
        let frames = Self.frames(rate: 104, seconds: 0.5, gyroscope: true)
        let bag = try #require(readBinaryFile(try Self.record(frames, chip: "LSM6DSO", rate: 104, gyroscope: true, name: "whole.mcap")))
        let cut = try temporaryFile("", name: "cut.mcap")
        try Data(bag.prefix(bag.count / 2)).write(to: URL(fileURLWithPath: cut))
        let truncated = try acceld(["replay", cut])
        #expect(truncated.status == 65 && truncated.stdout.isEmpty)
        #expect(truncated.stderr.contains("acceld: \(cut): the Chunk record at byte"), "\(truncated.stderr)")
        #expect(truncated.stderr.contains("it is cut short or damaged; record it again, or keep what is whole with the mcap CLI's `mcap recover"))

        let csv = try temporaryFile("t,x,y,z\n0,0,0,1\n", name: "renamed.mcap")
        let notMCAP = try acceld(["replay", csv])
        #expect(notMCAP.status == 65 && notMCAP.stderr.contains("\(csv): not an MCAP file: it begins with 't,x,y,z\\n'"), "\(notMCAP.stderr)")

        let missing = try acceld(["replay", "/nonexistent/imu.mcap"])
        #expect(missing.status == 66 && missing.stderr.contains("'/nonexistent/imu.mcap' is neither a built-in motion"), "\(missing.stderr)")
    }
}
