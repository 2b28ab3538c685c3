// SPDX-License-Identifier: Apache-2.0
import AccelCore
@testable import AccelDaemon
@testable import AccelDriver
import AccelMotion
import AccelParts
import Foundation
import Synchronization
import TestSupport
import Testing

/// A six-axis chip whose driver shows it as two IIO devices, as st_lsm6dsx
/// does (`lsm6dso_accel`, `lsm6dso_gyro`, one I2C client, no trigger: the
/// chip's FIFO fills both buffers). The kernel stage runs the same code on
/// the real st_lsm6dsx (docs/TESTING.md).
@Suite("IIO gyroscope")
struct IIOGyroscopeTests {
    static let frequencies = "12.500000 26.000000 52.000000 104.000000 208.000000 416.000000"

    /// The two devices of an LSM6DSO at 0x6a, at the kernel's default scales.
    static func lsm6dso() throws -> (accel: FakeIIO, gyro: FakeIIO) {
        let accel = FakeIIO(name: "lsm6dso_accel", number: 1, scale: "0.000598", type: "le:s16/16>>0",
                            ownTrigger: false, frequencies: frequencies, client: "1-006a")
        let gyro = FakeIIO(name: "lsm6dso_gyro", number: 0, scale: "0.000153", type: "le:s16/16>>0",
                           ownTrigger: false, frequencies: frequencies, root: accel.root, sensor: "anglvel", client: "1-006a")
        for fake in [accel, gyro] { try FileManager.default.removeItem(atPath: "\(fake.folder)/trigger") }
        return (accel, gyro)
    }

    @Test("the gyroscope beside the accelerometer is found by its I2C client and started at the rate; each frame carries the rate stamped with its own sample (3 µs apart); one without a partner keeps the last rate", .daemons)
    func companion() async throws {
        let (accel, gyro) = try Self.lsm6dso()
        let paths = accel.paths
        #expect(try IIODevice.find("lsm6dso_accel", paths: paths).gyroscopeCompanion()?.name == "lsm6dso_gyro")
        let sampler = IIOSampler(connect: { rate in try IIOBuffer(device: try IIODevice.find("lsm6dso_accel", paths: paths), rate: rate) },
                                 configuration: DeviceConfiguration(range: 2, rate: 104), settings: MotionSettings(), time: MonotonicTime())
        let frames = Mutex<[Frame]>([])
        sampler.output = { output in
            frames.withLock { list in
                switch output {
                case .frame(let frame, _): list.append(frame)
                case .batch(let deliveries): list += deliveries.map(\.frame)
                case .device, .configuration: break
                }
            }
        }
        try sampler.queue.sync { try sampler.open() }
        #expect(gyro.attribute("buffer/enable") == "1" && gyro.attribute("sampling_frequency") == "104")
        #expect(gyro.attribute("scan_elements/in_anglvel_x_en") == "1" && gyro.attribute("scan_elements/in_timestamp_en") == "1")
        // 8.75 mdps a digit, rounded by the kernel to 153 nrad: ±287 dps in full.
        #expect(sampler.gyroscopeRange == 287)
        sampler.queue.async { sampler.start() }
        // Stopped however the test ends (the #require below, stop is
        // idempotent): a sampler left running would read through an
        // unowned reference once the test has let go of it.
        defer { sampler.queue.sync { sampler.stop(powerDown: true) } }

        let period: Int64 = 9_615_385, start: Int64 = 2_000_000_000
        let turning = (x: 1143, y: -2286, z: 3429)   // 10, -20, 30 dps
        gyro.send((0..<3).map { (turning.x, turning.y, turning.z, start + Int64($0) * period + 3000) }, shift: 0)
        accel.send((0..<4).map { (0, 0, 16393, start + Int64($0) * period) }, shift: 0)
        for _ in 0..<600 where frames.withLock({ $0.count }) < 4 { try await Task.sleep(nanoseconds: 50_000_000) }
        let got = frames.withLock { $0 }
        try #require(got.count == 4)
        let expected = Vector3(Double(turning.x), Double(turning.y), Double(turning.z)) * 0.000153
        for frame in got {
            let rate = try #require(frame.rotationRate)
            #expect((rate - expected).magnitude < 0.002, "\(rate) against \(expected)")
            #expect(frame.quaternion != nil)
        }
        sampler.queue.sync { sampler.stop(powerDown: true) }
        #expect(accel.attribute("buffer/enable") == "0" && gyro.attribute("buffer/enable") == "0")
    }

    @Test("an accelerometer with no gyroscope beside it: frames as before, no rate, no range in hello", .daemons)
    func alone() throws {
        let fake = FakeIIO()
        let paths = fake.paths
        // Its last use is its paths: kept until the sampler is done, or its deinit could remove the tree first.
        try withExtendedLifetime(fake) {
            #expect(try IIODevice.find("lis3dh", paths: paths).gyroscopeCompanion() == nil)
            let sampler = IIOSampler(connect: { rate in try IIOBuffer(device: try IIODevice.find("lis3dh", paths: paths), rate: rate) },
                                     configuration: DeviceConfiguration(range: 2, rate: 100), settings: MotionSettings(), time: MonotonicTime())
            try sampler.queue.sync { try sampler.open() }
            #expect(sampler.gyroscopeRange == nil)
            sampler.queue.sync { sampler.stop(powerDown: true) }
        }
    }
}
