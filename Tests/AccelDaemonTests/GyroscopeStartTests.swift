// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
@testable import AccelDaemon
import AccelDriver
import AccelMotion
import AccelParts
import Testing

/// acceld's look at the gyroscope's offset when it starts on a six-axis part.
@Suite("acceld's gyroscope check at start")
struct GyroscopeStartTests {
    func sampler(_ profile: ChipProfile, offset: Vector3) throws -> Sampler {
        let time = VirtualTime()
        var imperfections = ChipModel.Imperfections()
        imperfections.gyroscopeOffset = offset
        imperfections.gyroscopeNoise = 0.03
        let model = ChipModel(profile: profile, time: time, imperfections: imperfections)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: profile) },
                              configuration: DeviceConfiguration(range: 2, rate: 104), settings: MotionSettings(), time: time)
        try sampler.open()
        return sampler
    }

    /// The check, on the sampler's queue, as the daemon runs it before the first read.
    func checked(_ profile: ChipProfile, offset: Vector3) throws -> GyroscopeRest? {
        let sampler = try sampler(profile, offset: offset)
        return sampler.queue.sync { sampler.checkGyroscopeAtRest() }
    }

    @Test("an offset within the bound passes quietly, one beyond it is found, in a quarter second of samples")
    func offsets() throws {
        let within = try #require(try checked(.lsm6dso, offset: Vector3(0.6, -0.4, 0.3)))
        #expect(within.within && !within.moved && within.samples == 26)
        let beyond = try #require(try checked(.lsm6dso, offset: Vector3(0.6, -0.4, 5)))
        #expect(!beyond.within && beyond.verdict.contains("beyond the datasheet's ±3 dps"), "\(beyond.verdict)")
    }

    @Test("a part without a gyroscope is not checked")
    func accelerometerOnly() throws {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis3dh, time: time)
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: .lis3dh) },
                              configuration: DeviceConfiguration(range: 2, rate: 100), settings: MotionSettings(), time: time)
        try sampler.open()
        #expect(sampler.queue.sync { sampler.checkGyroscopeAtRest() } == nil)
    }
}
