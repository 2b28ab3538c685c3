// SPDX-License-Identifier: Apache-2.0
@testable import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import Foundation
import Testing

/// [power] wake-on-motion: the policy on its own, then the sampler on the
/// chip model and its pin (InterruptRig, a virtual clock).
@Suite("Wake-on-motion")
struct WakeOnMotionTests {
    @Test("the policy: still for the time asked and nobody watching frames; motion or a frames watcher keeps it awake")
    func policy() throws {
        var wake = WakeOnMotion(stillSeconds: 2, threshold: 0.1)
        wake.observe(user: 0.02, at: 1_000_000_000)
        #expect(!wake.shouldSleep(at: 2_900_000_000))
        #expect(wake.shouldSleep(at: 3_000_000_000))
        wake.observe(user: 0.3, at: 3_100_000_000)
        #expect(!wake.shouldSleep(at: 4_000_000_000), "motion starts the still time again")
        wake.observe(user: 0.0, at: 3_200_000_000)
        wake.framesWatched = true
        #expect(!wake.shouldSleep(at: 9_000_000_000), "a client watches frames")
        wake.framesWatched = false
        #expect(wake.shouldSleep(at: 9_000_000_000))
        wake.fellAsleep(at: 9_000_000_000, after: 8_990_000_000, period: 10_000_000)
        #expect(!wake.shouldSleep(at: 9_500_000_000) && wake.asleep)
        let stale = Edge(instant: 8_999_000_000, sequence: 1), motion = Edge(instant: 11_500_000_000, sequence: 2)
        #expect(wake.wakeUpEdges([stale, motion]).map(\.sequence) == [2], "an edge stamped before the arming is the arming's own")
        let numbering = try #require(wake.numbering(resumingAt: 12_085_000_000))
        #expect(numbering.skipped == 309 && numbering.last == 12_080_000_000, "309 periods slept after the last sample at 8.99 s: \(numbering)")
        let kept = try #require(wake.numbering(keeping: 32, readAt: 12_085_000_000))
        #expect(kept.skipped == 277 && abs(kept.last - 11_760_000_000) < 1, "a full FIFO of 32 read at 12.085 s holds samples 278 to 309: \(kept)")
        #expect(wake.numbering(keeping: 500, readAt: 12_085_000_000)?.skipped == 0, "never before the last sample")
        #expect(wake.wokeUp(at: 12_000_000_000) == 3_000_000_000)
        #expect(!wake.asleep && !wake.shouldSleep(at: 20_000_000_000), "still time from the samples after the sleep")
    }

    /// Flat for 6 s, shaken along X (±0.5 g at 3 Hz) for a second, flat.
    static func stillThenShaken() -> MotionScript {
        MotionScript(name: "still, then shaken", segments: [
            .hold(Vector3(0, 0, 1), seconds: 6),
            .shake(base: Vector3(0, 0, 1), axis: Vector3(1, 0, 0), amplitude: 0.5, hertz: 3, seconds: 1),
            .hold(Vector3(0, 0, 1), seconds: 60),
        ], loops: false)
    }

    @Test("still: asleep, nothing read; shaken: awake by the chip, and the frames number on across the sleep, none lost",
          arguments: ["LIS302DL", "LIS3DH", "LSM6DSO"])
    func sleepsAndWakes(part: String) throws {
        let profile = try #require(ChipProfile.named(part))
        let rate = profile.automaticRate()!
        let rig = try InterruptRig(part: profile, rate: rate, rateError: 0, motion: Self.stillThenShaken(),
                                   wakeOnMotion: WakeOnMotion(stillSeconds: 2, threshold: 0.1))
        try rig.run(seconds: 8)
        #expect(rig.deviceEvents.map(\.state) == [.asleep, .awake], "\(rig.deviceEvents)")
        #expect(rig.deviceEvents.last?.byChip == true)
        #expect(rig.sampler.counters.sleeps == 1 && rig.sampler.counters.wakeUps == 1 && rig.sampler.counters.lost == 0)
        let steps = zip(rig.frames, rig.frames.dropFirst()).map { (seq: $1.seq - $0.seq, t: $1.t - $0.t) }
        let sleep = try #require(steps.firstIndex { $0.t > 1 }, "a gap in the frames while asleep")
        #expect(steps.filter { $0.t > 1 }.count == 1)
        #expect(abs(Double(steps[sleep].seq) - steps[sleep].t * Double(rate)) <= 1.5, "seq counts the periods slept: \(steps[sleep])")
        // After it, every frame on the chip's own grid, numbered by it.
        let after = rig.frames[(sleep + 1)...]
        #expect(after.allSatisfy(rig.isOnTheChipsGrid))
        for (a, b) in zip(after, after.dropFirst()) where abs((b.t - a.t) * Double(rate) - Double(b.seq - a.seq)) > 0.01 {
            Issue.record("frames \(a.seq) and \(b.seq) are \(fixed((b.t - a.t) * 1e3, 3)) ms apart"); break
        }
        let motionStart = rig.motionEpoch + 6
        let firstAfter = rig.frames[sleep + 1].t
        if let fifo = profile.fifo, profile.wakeUp?.filter == .highPass {
            // Its FIFO sampled on: the frames after the sleep begin with what
            // it held, most of it from before the motion, each numbered and
            // stamped as the sample it is (the shake's value at its instant:
            // one period off would be up to 0.09 g off).
            let kept = after.prefix { $0.t < motionStart }.count
            #expect(kept > fifo.sampleDepth - 8 && kept < fifo.sampleDepth, "\(kept) frames from before the motion")
            for frame in after.prefix(fifo.sampleDepth + 16) {
                let expected = frame.t < motionStart ? 0 : 0.5 * sin(2 * .pi * 3 * (frame.t - motionStart))
                if abs(frame.acceleration.x - expected) > 0.03 {
                    Issue.record("frame \(frame.seq) at \(fixed(frame.t - motionStart, 4)) s reads x \(fixed(frame.acceleration.x, 3)) g, the motion \(fixed(expected, 3))"); break
                }
            }
            return
        }
        // The first frame after the sleep: the wake-up edge within two of
        // the slow rate's samples of the motion, then the part's turn-on.
        let allowed = 2.0 / Double(profile.wakeUpRate) + Double(profile.turnOnPeriods + 2) / Double(rate)
        #expect(firstAfter >= motionStart && firstAfter <= motionStart + allowed,
                "first frame \(fixed((firstAfter - motionStart) * 1e3, 1)) ms after the motion began (allowed \(fixed(allowed * 1e3, 1)))")
    }

    @Test("asleep, nothing is read, yet the thread comes by each second: the watchdog's last step stays recent")
    func asleepReadsNothing() throws {
        let rig = try InterruptRig(part: .lis3dh, rate: 100, rateError: 0, wakeOnMotion: WakeOnMotion(stillSeconds: 1, threshold: 0.1))
        try rig.run(seconds: 3)
        #expect(rig.deviceEvents.map(\.state) == [.asleep])
        let transactions = rig.model.counters.transactions, wakes = rig.sampler.counters.wakes
        try rig.run(seconds: 5)
        #expect(rig.model.counters.transactions == transactions, "no transfer while asleep")
        #expect(rig.sampler.counters.wakes == wakes, "no read counted")
        #expect(rig.time.nanoseconds - rig.sampler.lastStep <= 1_000_000_000, "a step at least once a second")
    }

    @Test("asleep, a client that starts watching frames wakes it at once")
    func framesWatcherWakes() throws {
        let rig = try InterruptRig(part: .lis3dh, rate: 100, rateError: 0, wakeOnMotion: WakeOnMotion(stillSeconds: 1, threshold: 0.1))
        try rig.run(seconds: 3)
        #expect(rig.deviceEvents.map(\.state) == [.asleep])
        let before = rig.frames.count
        _ = rig.sampler.queue.sync {
            rig.sampler.framesWatched(true)
            return rig.sampler.interruptStep(.success([]))  // the thread, woken by the line's wake()
        }
        #expect(rig.deviceEvents.map(\.state) == [.asleep, .awake] && rig.deviceEvents.last?.byChip == false)
        try rig.run(seconds: 5)
        #expect(rig.frames.count > before + 400, "frames at the full rate again, and no new sleep while watched")
        #expect(rig.deviceEvents.count == 2)
    }
}
