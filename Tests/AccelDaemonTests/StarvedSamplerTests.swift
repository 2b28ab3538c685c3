// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelParts
import Testing
import TestSupport

/// A starved host can take the sampler's thread away anywhere in a read:
/// after it noted the time and before the transaction, or after the
/// transaction and before it noted the time again. The chip's clock runs
/// on meanwhile. A bus that, now and then from the second second on (the
/// phase locked), lets the clock run on around the sampling burst as such
/// a preemption would.
final class PreemptingBus: ChipModelInFront {
    let inner: ChipModel
    /// Set once the rig exists.
    var time: VirtualTime?
    /// A fixed pseudo-random sequence, so that every run is the same.
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    private(set) var preemptions = 0

    init(_ inner: ChipModel) { self.inner = inner }

    func readBlock(from subAddress: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        guard let time, time.nanoseconds > 1_000_000_000 else { return try inner.readBlock(from: subAddress, into: buffer) }
        let (before, after) = nextPreemption()
        time.sleep(nanoseconds: before)
        try inner.readBlock(from: subAddress, into: buffer)
        time.sleep(nanoseconds: after)
    }

    /// One read in 200 is preempted, for 0.1 to 12 periods, before its
    /// transaction (2 in 5), after it (2 in 5) or on both sides.
    private func nextPreemption() -> (UInt64, UInt64) {
        guard random() % 200 == 0 else { return (0, 0) }
        preemptions += 1
        let side = random() % 5
        let length = UInt64(Double(inner.periodNanoseconds) * (0.1 + Double(random() % 1000) / 1000 * 11.9))
        switch side {
        case 0: return (length / 2, length / 2)
        case 1, 2: return (length, 0)
        default: return (0, length)
        }
    }

    private func random() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}

@Suite("Sampler reads preempted")
struct PreemptedReadTests {
    @Test("reads preempted before or after the transaction: every sample the chip made is published or counted lost, the stamps span what the numbers do, and a frame carries another sample's number only where the sampler says it guessed, within its gap",
          arguments: [-0.03, 0.01, 0.05], [100, 400])
    func preemptedReads(rateError: Double, rate: Int) throws {
        let motion = CountingMotion(period: 1 / (Double(rate) * (1 + rateError)))
        var bus: PreemptingBus?
        let rig = try SamplerRig(rate: rate, rateError: rateError, motion: motion) { model in
            bus = PreemptingBus(model)
            return bus!
        }
        bus!.time = rig.time
        rig.run(seconds: 30)
        #expect(bus!.preemptions > 10)
        #expect(rig.gaps == rig.lost, "gaps \(rig.gaps), the chip lost \(rig.lost)")
        let period = Double(rig.model.periodNanoseconds) / 1e9
        let frames = rig.frames
        let span = (frames.last!.t - frames.first!.t) / period, numbered = Double(frames.last!.seq - frames.first!.seq)
        #expect(abs(span - numbered) < 0.5, "the stamps span \(span) periods, the numbers \(numbered)")

        // The chip's own count, by the motion: the offset every frame
        // shares with its number, and the frames that do not share it.
        let offsets = frames.map { (motion.index(of: $0) - Int($0.seq % 64) + 64) % 64 }
        var tally: [Int: Int] = [:]
        for offset in offsets { tally[offset, default: 0] += 1 }
        let shared = tally.max { $0.value < $1.value }!.key
        var misplaced = 0
        for i in frames.indices where offsets[i] != shared {
            misplaced += 1
            var shift = offsets[i] - shared
            if shift > 32 { shift -= 64 } else if shift < -32 { shift += 64 }
            let truth = Int(frames[i].seq) + shift
            let within = i > 0 && i < frames.count - 1 && Int(frames[i - 1].seq) < truth && truth < Int(frames[i + 1].seq)
            #expect(within, "frame \(frames[i].seq) holds sample \(truth), outside its gap")
        }
        #expect(misplaced <= rig.sampler.counters.guessedNumbers,
                "\(misplaced) frames carry another sample's number; the sampler guessed \(rig.sampler.counters.guessedNumbers)")
    }
}

@Suite("Sampler starved for a while")
struct StarvedSamplerTests {
    /// Every wake 1 to 2.2 periods late from `from` to 1 s: every read
    /// overruns, none comes up empty, so the phase cannot be measured.
    func starve(rate: Int, rateError: Double, from: Double) throws -> (gaps: Int, lost: Int, drift: Double) {
        let rig = try SamplerRig(rate: rate, rateError: rateError)
        var wakes = 0
        let period = 1e9 / Double(rate)
        rig.lateness = {
            wakes += 1
            let starved = rig.time.nanoseconds >= UInt64(from * 1e9) && rig.time.nanoseconds < 1_000_000_000
            return starved ? UInt64(period * (1 + Double(wakes % 7) * 0.2)) : 0
        }
        rig.run(seconds: 3)
        // The stamps from the first frame after the phase was acquired
        // (the very first may be stamped when it was read).
        let frames = rig.frames.drop { $0.t < 0.25 }, chipPeriod = Double(rig.model.periodNanoseconds) / 1e9
        let span = (frames.last!.t - frames.first!.t) / chipPeriod
        return (rig.gaps, rig.lost, span - Double(frames.last!.seq - frames.first!.seq))
    }

    @Test("starved after the phase is locked: the chip's period as measured numbers the reads, and every sample is published or counted lost",
          arguments: [-0.05, -0.03, 0.01, 0.05], [100, 400])
    func afterLock(rateError: Double, rate: Int) throws {
        let result = try starve(rate: rate, rateError: rateError, from: 0.3)
        #expect(abs(result.gaps - result.lost) <= 1, "gaps \(result.gaps), the chip lost \(result.lost)")
        #expect(abs(result.drift) < 1.5, "the stamps run \(result.drift) periods from the numbers")
    }

    @Test("starved from the start, before any period is measured: the numbers stray from the chip's count no more than its clock's error over the time starved",
          arguments: [-0.05, 0.01, 0.05], [100, 400])
    func fromStart(rateError: Double, rate: Int) throws {
        let result = try starve(rate: rate, rateError: rateError, from: 0)
        let bound = abs(rateError) * Double(rate) + 2
        #expect(Double(abs(result.gaps - result.lost)) <= bound, "gaps \(result.gaps), the chip lost \(result.lost)")
        #expect(abs(result.drift) <= bound, "the stamps run \(result.drift) periods from the numbers")
    }
}
