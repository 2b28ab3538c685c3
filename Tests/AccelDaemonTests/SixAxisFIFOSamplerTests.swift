// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelDriver
import AccelMotion
import AccelParts
import Testing

/// The sampler on the six-axis parts' FIFOs, both sensors batched: the
/// LSM6DSO's tagged one (256 samples), the LSM6DSL's pattern (341 and a
/// part): batched or at once, stalls shorter or longer than the FIFO.
/// Each sample's count is in its force and in its rate, so a frame that
/// carries another sample's rate, or another sample's number, shows.
@Suite("Sampler with the six-axis FIFOs")
struct SixAxisFIFOSamplerTests {
    static let parts = [ChipProfile.lsm6dso, .lsm6dsl]

    func rig(_ part: ChipProfile, rateError: Double, latency: Double?) throws -> (SamplerRig, CountingMotion) {
        let motion = CountingMotion(period: 1 / (416 * (1 + rateError)))
        let rig = try SamplerRig(rate: 416, rateError: rateError, motion: motion, part: part)
        _ = try rig.sampler.queue.sync { try rig.sampler.allowLatency(milliseconds: latency) }
        rig.lostBeforeStart = rig.lost
        return (rig, motion)
    }

    func expectLabelled(_ rig: SamplerRig, _ motion: CountingMotion) {
        let offsets = Set(rig.frames.map { (motion.index(of: $0) - Int($0.seq) % 64 + 64) % 64 })
        #expect(offsets.count == 1, "frames labelled with another sample's number: offsets \(offsets.sorted())")
        let unpaired = rig.frames.filter { motion.rotationIndex(of: $0) != motion.index(of: $0) }
        #expect(unpaired.isEmpty, "\(unpaired.count) frames carry another sample's rate, first \(unpaired.first.map { "\($0.seq)" } ?? "")")
        #expect(Set(rig.frames.map(\.seq)).count == rig.frames.count, "no sample twice")
    }

    @Test("batched with a clock 4 % off: every sample once, in order, each with its own rate, about one wake per watermark",
          arguments: parts, [0.04, -0.04])
    func batched(part: ChipProfile, rateError: Double) throws {
        let (rig, motion) = try rig(part, rateError: rateError, latency: 50)
        rig.run(seconds: 10)
        let watermark = rig.sampler.configuration.fifoWatermark
        #expect(watermark == 19, "49 ms of 2.4 ms periods, less one")
        #expect(rig.gaps == 0 && rig.lost == 0)
        #expect(zip(rig.frames.dropFirst(), rig.frames).allSatisfy { $0.seq == $1.seq + 1 })
        #expect(rig.frames.count >= rig.model.counters.samplesProduced - 2 * watermark, "at most a watermark's worth not read yet")
        #expect(Double(rig.steps) / Double(rig.frames.count) < 1.3 / Double(watermark), "\(rig.steps) wakes for \(rig.frames.count) samples")
        expectLabelled(rig, motion)
    }

    @Test("stalls longer than the FIFO, ending anywhere within a period, batched or at once: every frame carries its own sample and rate, the gap is what the chip overwrote",
          arguments: parts, [(0.03, 50), (0.01, 50), (-0.03, 50), (0.03, nil), (-0.02, nil)] as [(Double, Double?)])
    func overflow(part: ChipProfile, stallCase: (rateError: Double, latency: Double?)) throws {
        let (rig, motion) = try rig(part, rateError: stallCase.rateError, latency: stallCase.latency)
        rig.run(seconds: 2)
        let period = Double(rig.model.periodNanoseconds), depth = Double(part.fifo!.sampleDepth)
        for k in 0..<20 {
            rig.time.sleep(nanoseconds: UInt64(period * (depth + 8 + Double(k) / 20)))
            rig.run(seconds: 0.25)
        }
        #expect(rig.sampler.counters.overruns >= 20)
        #expect(rig.gaps == rig.lost && rig.sampler.counters.lost == rig.lost, "gaps \(rig.gaps), the chip lost \(rig.lost), the daemon counted \(rig.sampler.counters.lost)")
        expectLabelled(rig, motion)
    }

    @Test("at once (no latency): stalls of up to 250 periods, shorter than the FIFO, lose nothing", arguments: parts)
    func atOnceSurvivesStalls(part: ChipProfile) throws {
        let (rig, motion) = try rig(part, rateError: 0.02, latency: nil)
        #expect(rig.sampler.configuration.fifoWatermark == 1)
        rig.run(seconds: 2)
        let period = Double(rig.model.periodNanoseconds)
        for k in 0..<20 {
            rig.time.sleep(nanoseconds: UInt64(period * (2 + Double(k * 13 % 248) + Double(k) / 20)))
            rig.run(seconds: 0.2)
        }
        #expect(rig.lost == 0 && rig.gaps == 0, "the chip overwrote \(rig.lost), gaps \(rig.gaps)")
        #expect(zip(rig.frames.dropFirst(), rig.frames).allSatisfy { $0.seq == $1.seq + 1 }, "every sample once, in order")
        #expect(rig.frames.count >= rig.model.counters.samplesProduced - 2, "every sample made was read")
        expectLabelled(rig, motion)
    }
}
