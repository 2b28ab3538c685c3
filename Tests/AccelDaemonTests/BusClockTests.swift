// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import Testing
@testable import AccelDaemon

@Suite("The bus's clock and the sampler")
struct BusClockTests {
    func sampler(_ profile: ChipProfile, rate: Int, mode: String? = nil, clock: Int?, range: Int = 16) -> (Sampler, ChipModel) {
        let time = VirtualTime()
        let model = ChipModel(profile: profile, time: time)
        model.clockFrequency = clock
        let sampler = Sampler(connect: { try Accelerometer(bus: model, time: time, part: profile) },
                              configuration: DeviceConfiguration(range: range, rate: rate, mode: mode), settings: MotionSettings(), time: time)
        return (sampler, model)
    }

    @Test("a rate the bus's clock cannot carry is refused at open, and nothing is configured")
    func refused() throws {
        let (sampler, _) = sampler(.lis3dh, rate: 5_376, mode: "low-power", clock: 100_000)
        let error = #expect(throws: DriverError.self) { try sampler.open() }
        #expect(error?.exitCode == 78 && "\(error!)".contains("400 kHz"))
        #expect(sampler.driver == nil)
    }

    @Test("at 5,376 Hz on a 400 kHz bus the FIFO batches 13 samples, though no client allows latency")
    func raisedWatermark() throws {
        let (sampler, _) = sampler(.lis3dh, rate: 5_376, mode: "low-power", clock: 400_000)
        try sampler.open()
        #expect(sampler.configuration.fifoWatermark == 13)
        #expect(try sampler.queue.sync { try sampler.allowLatency(milliseconds: nil) } == 13)
        // 32 samples are 6 ms at this rate: a latency cannot batch more,
        // the room for a late wake keeps it at the bus's floor.
        #expect(try sampler.queue.sync { try sampler.allowLatency(milliseconds: 20) } == 13)
    }

    @Test("at 100 Hz nothing changes: a sample at a time")
    func slowRate() throws {
        let (sampler, _) = sampler(.lis3dh, rate: 100, clock: 100_000)
        try sampler.open()
        #expect(sampler.configuration.fifoWatermark == 1)
    }

    @Test("a client's reconfiguration to a rate the bus cannot carry is refused, and the running rate stays")
    func reconfigurationRefused() throws {
        let (sampler, _) = sampler(.lis3dh, rate: 100, clock: 100_000)
        try sampler.open()
        #expect(throws: DriverError.self) { try sampler.queue.sync { try sampler.reconfigure(to: DeviceConfiguration(range: 16, rate: 5_376, mode: "low-power")) } }
        #expect(sampler.configuration.rate == 100)
    }

    @Test("kHz on a part without a FIFO is refused, at open and when a client asks, naming the parts that can", arguments: [
        (ChipProfile.lis331dlh, 1_000), (ChipProfile.h3lis331dl, 1_000),
    ])
    func kilohertzWithoutFIFO(profile: ChipProfile, rate: Int) throws {
        let range = profile.ranges[0].fullScale
        let (opening, _) = sampler(profile, rate: rate, clock: nil, range: range)
        let error = #expect(throws: DriverError.self) { try opening.open() }
        #expect(error?.exitCode == 78 && "\(error!)".contains("has no FIFO") && "\(error!)".contains("LIS3DH, LIS2DH12, LSM6DSO"), "\(error!)")
        let (running, _) = sampler(profile, rate: 100, clock: nil, range: range)
        try running.open()
        #expect(throws: DriverError.self) { try running.queue.sync { try running.reconfigure(to: DeviceConfiguration(range: range, rate: rate)) } }
        #expect(running.configuration.rate == 100)
    }
}
