// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelDriver
import AccelMotion
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The sampler's core on a virtual clock: each step's returned delay is
/// slept on the same clock the chip model runs on, so minutes of sampling
/// take milliseconds and every run is identical.
final class SamplerRig {
    let time = VirtualTime()
    let model: ChipModel
    let sampler: Sampler
    var frames: [Frame] = []
    var deviceEvents: [DeviceEvent] = []

    init(rate: Int = 100, rateError: Double = 0, motion: any MotionSource = MotionScript.rest()) throws {
        var imperfections = ChipModel.Imperfections()
        imperfections.rateError = rateError
        let model = ChipModel(motion: motion, time: time, imperfections: imperfections)
        let time = self.time
        self.model = model
        sampler = Sampler(connect: { try Accelerometer(bus: model, time: time) },
                          configuration: DeviceConfiguration(range: 2, rate: rate), settings: MotionSettings(), time: time)
        sampler.output = { [unowned self] output in
            switch output {
            case .frame(let frame, _): frames.append(frame)
            case .batch(let deliveries): frames += deliveries.map(\.frame)
            case .device(let event): deviceEvents.append(event)
            }
        }
        try sampler.open()
    }

    /// Steps until the clock has advanced `seconds`, doing `at` once at `after` seconds.
    func run(seconds: Double, at after: Double? = nil, _ action: (() -> Void)? = nil) {
        let end = time.nanoseconds + UInt64(seconds * 1e9)
        var pending = after.map { time.nanoseconds + UInt64($0 * 1e9) }
        while time.nanoseconds < end {
            if let when = pending, time.nanoseconds >= when {
                action?()
                pending = nil
            }
            time.sleep(nanoseconds: max(sampler.step(), 1000))
        }
    }

    var gaps: Int { zip(frames.dropFirst(), frames).map { Int($0.seq - $1.seq) - 1 }.reduce(0, +) }
}

@Suite("Sampler")
struct SamplerTests {
    @Test("phase-locks to a chip whose clock is off by up to ±8 %: no sample lost, at most 1.05 reads per sample",
          arguments: [-0.08, -0.02, 0, 0.01, 0.05, 0.08], [100, 400])
    func phaseLock(rateError: Double, rate: Int) throws {
        let rig = try SamplerRig(rate: rate, rateError: rateError)
        rig.run(seconds: 30)
        let produced = rig.model.counters.samplesProduced
        #expect(rig.model.counters.samplesLost <= 3, "only while acquiring the phase")
        #expect(rig.sampler.counters.published >= produced - 3)
        let readsPerSample = Double(rig.model.counters.transactions) / Double(rig.sampler.counters.published)
        #expect(readsPerSample <= 1.05, "\(readsPerSample) reads per sample")
        #expect(rig.frames.map(\.seq).last! + 1 == UInt64(rig.frames.count) + UInt64(rig.gaps))
    }

    @Test("timestamps are the sampling instants to within a fraction of a period", arguments: [-0.05, 0.03])
    func timestamps(rateError: Double) throws {
        let rig = try SamplerRig(rate: 100, rateError: rateError)
        rig.run(seconds: 20)
        // The model powered up at t = 0 and makes sample k at k real periods;
        // the first valid one is k = 3, which became seq 0.
        let real = Double(rig.model.periodNanoseconds) / 1e9
        var worst = 0.0
        for frame in rig.frames.dropFirst(50) {
            worst = max(worst, abs(frame.t - Double(frame.seq + 3) * real))
        }
        #expect(worst < 0.25 * real, "worst timestamp error \(worst * 1000) ms")
    }

    @Test("overruns skip the sequence by exactly the samples the chip overwrote")
    func overrunsSkip() throws {
        let rig = try SamplerRig(rate: 100)
        rig.run(seconds: 2)
        // Stall the reader for 55 ms: five samples are made, four overwritten.
        rig.time.sleep(nanoseconds: 55_000_000)
        rig.run(seconds: 1)
        #expect(rig.sampler.counters.overruns == 1)
        #expect(rig.gaps == rig.model.counters.samplesLost)
        #expect(rig.sampler.counters.lost == rig.model.counters.samplesLost)
    }

    @Test("a burst of bus errors: device lost, then back, and the sequence gap matches what the chip overwrote",
          arguments: [0.01, 0.2, 5.0], [0.0, 0.04])
    func busErrors(seconds: Double, rateError: Double) throws {
        // Faults strike a sampler in steady state: the phase fit then spans
        // about 10 s of samples and extrapolates across the outage exactly.
        let rig = try SamplerRig(rate: 100, rateError: rateError)
        rig.run(seconds: 15 + seconds, at: 12) { rig.model.fail(forSeconds: seconds, errno: EIO) }
        #expect(rig.sampler.counters.busErrors >= 1)
        let states = rig.deviceEvents.map(\.state)
        if seconds >= 0.2 {
            #expect(states == [.lost, .back])
            #expect(rig.sampler.counters.recoveries == 1)
        }
        // The gap covers the fault and the retry back-off (at most 250 ms).
        let faultPeriods = Int(seconds * 100 * (1 + rateError))
        #expect(rig.gaps >= faultPeriods - 1 && rig.gaps <= faultPeriods + 26, "gap \(rig.gaps) for \(seconds) s")
        #expect(rig.gaps == rig.model.counters.samplesLost, "the sequence skips exactly what the chip overwrote (\(rig.model.counters.samplesLost))")
    }

    @Test("a chip that vanishes (NACK) and returns is reported lost and back")
    func chipGone() throws {
        let rig = try SamplerRig(rate: 100)
        rig.run(seconds: 4, at: 1) { rig.model.present = false }
        #expect(rig.deviceEvents.map(\.state) == [.lost])
        rig.model.present = true
        rig.run(seconds: 2)
        #expect(rig.deviceEvents.map(\.state) == [.lost, .back])
        #expect(rig.deviceEvents[0].message.contains("nothing answers"))
    }

    @Test("a chip reset to power-down mid-stream is configured again, and the gap is counted")
    func chipReset() throws {
        let rig = try SamplerRig(rate: 100)
        rig.run(seconds: 3, at: 1) { rig.model.resetToPowerDown() }
        #expect(rig.sampler.counters.reconfigurations == 1)
        #expect(rig.deviceEvents.map(\.state) == [.reconfigured])
        #expect(rig.model.peek(0x20) == 0x47)
        #expect(rig.gaps >= 3 && rig.gaps <= 10, "the reset cost a few periods: \(rig.gaps)")
        #expect(rig.frames.last!.t > 2.9)
    }

    @Test("a stuck converter (ZYXDA never sets) is reported as stalled once, and sampling resumes after")
    func stuck() throws {
        let rig = try SamplerRig(rate: 100)
        rig.run(seconds: 3, at: 1) { rig.model.dataReadyStuck = true }
        #expect(rig.deviceEvents.map(\.state) == [.stalled])
        let before = rig.frames.count
        rig.model.dataReadyStuck = false
        rig.run(seconds: 1)
        #expect(rig.frames.count > before + 90)
    }

    @Test("stopping powers the chip down (PD cleared) unless told not to", arguments: [true, false])
    func stopPowersDown(powerDown: Bool) throws {
        let rig = try SamplerRig(rate: 100)
        rig.run(seconds: 0.5)
        rig.sampler.stop(powerDown: powerDown)
        #expect(rig.model.peek(0x20) & 0x40 == (powerDown ? 0 : 0x40))
    }

    @Test("a client's configure changes the chip's range and rate")
    func reconfigure() throws {
        let rig = try SamplerRig(rate: 100)
        rig.run(seconds: 1)
        try rig.sampler.reconfigure(to: DeviceConfiguration(range: 8, rate: 400))
        #expect(rig.model.peek(0x20) == 0xE7)
        let before = rig.frames.count
        rig.run(seconds: 1)
        #expect(abs(rig.frames.count - before - 400) <= 3)
        #expect(rig.deviceEvents.map(\.state) == [.configured])
    }
}
