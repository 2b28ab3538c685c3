// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelDaemon
import AccelCore
import AccelDriver
import AccelMotion
import Testing
import TestSupport

/// The pipeline on real recordings, through the chip model, at both rates.
@Suite("Replay of the shared recordings")
struct ReplayTests {
    static let rates = [100, 400]

    static let orientationFiles: [(String, DeviceOrientation)] = [
        ("orientation/microstrain_xplus.csv", .landscapeLeft), ("orientation/microstrain_xminus.csv", .landscapeRight),
        ("orientation/microstrain_yplus.csv", .portrait), ("orientation/microstrain_yminus.csv", .portraitUpsideDown),
        ("orientation/microstrain_zplus.csv", .faceUp), ("orientation/microstrain_zminus.csv", .faceDown),
    ]

    @Test("each orientation file settles on its face, and moving along the axis changes nothing",
          arguments: orientationFiles, rates)
    func orientation(file: (String, DeviceOrientation), rate: Int) throws {
        let (_, events) = try replayEvents(file.0, rate: rate)
        #expect(events.compactMap(\.orientation) == [file.1])
    }

    @Test("the shake recording gives shakes in both bursts and none outside them", arguments: rates)
    func shakes(rate: Int) throws {
        let (_, events) = try replayEvents("shake/physilog_two_shakes.csv", rate: rate)
        let starts = events.compactMap(\.shakeStart)
        let bursts: [ClosedRange<Double>] = [13.8...16.3, 29.4...34.3]
        #expect(starts.allSatisfy { start in bursts.contains { $0.contains(start) } }, "\(starts)")
        for burst in bursts { #expect(starts.contains { burst.contains($0) }, "no shake in \(burst): \(starts)") }
    }

    static let drops = [
        "freefall/fall_1.csv", "freefall/fall_2.csv", "freefall/fall_3.csv", "freefall/fall_4.csv",
        "freefall/fall_5.csv", "freefall/fall_6.csv", "freefall/fall_7.csv", "freefall/fall_8.csv",
        "freefall/up_and_down_2.csv", "freefall/up_and_down_3.csv", "freefall/up_and_down_4.csv",
        "freefall/up_and_down_5.csv", "freefall/up_and_down_6.csv",
    ]

    /// What the recording itself shows: its longest run of rows with |a| < 0.5 g.
    func recordedFallDuration(_ file: String) throws -> Double {
        let trace = try Trace(contentsOf: sharedData + "/" + file)
        var longest = 0.0
        var start: Double?
        for (t, g) in zip(trace.times, trace.samples) {
            if g.magnitude < 0.5 { start = start ?? t } else if let s = start {
                longest = max(longest, t - s)
                start = nil
            }
        }
        return longest
    }

    @Test("every drop and toss is exactly one free fall of the recorded duration (±0.1 s), and no shake",
          arguments: drops, rates)
    func freeFall(file: String, rate: Int) throws {
        let (_, events) = try replayEvents(file, rate: rate)
        #expect(events.filter(\.fallStarted).count == 1)
        let durations = events.compactMap(\.fallDuration)
        try #require(durations.count == 1)
        let recorded = try recordedFallDuration(file)
        #expect(abs(durations[0] - recorded) <= 0.1, "detected \(durations[0]) s, recorded \(recorded) s")
        #expect(events.filter(\.isShake).isEmpty)
    }

    @Test("the 17 g impact clips at the range's full scale, as on the chip", arguments: [(2, 0.018), (8, 0.072)])
    func clipping(range: Int, gPerDigit: Double) throws {
        let (frames, _) = try replayEvents("freefall/fall_1.csv", rate: 400, range: range)
        let peak = frames.map { max(abs($0.acceleration.x), abs($0.acceleration.y), abs($0.acceleration.z)) }.max()!
        // +127 or -128 digits, whichever way the impact pointed.
        #expect(abs(peak - 127 * gPerDigit) < 1e-9 || abs(peak - 128 * gPerDigit) < 1e-9, "\(peak)")
    }

    @Test("one frame per chip sample, with contiguous sequence numbers, each stamped within a quarter period of the chip's instant", arguments: rates)
    func frames(rate: Int) throws {
        let (frames, _) = try replayEvents("orientation/microstrain_xplus.csv", rate: rate)
        let trace = try Trace(contentsOf: sharedData + "/orientation/microstrain_xplus.csv")
        // The first sample comes 3/ODR after power-up, then one per period.
        let expected = (trace.duration - 3 / Double(rate)) * Double(rate) + 1
        #expect(abs(Double(frames.count) - expected) <= 1)
        #expect(frames.map(\.seq) == (0..<UInt64(frames.count)).map { $0 })
        // The sampler's own estimate, as a client of the daemon gets it:
        // the first read's instant, then the fitted chip clock's, which
        // docs/DRIVER.md promises within a quarter period.
        let period = 1 / Double(rate), first = 3 * period
        let worst = frames.map { abs($0.t - (first + Double($0.seq) * period)) }.max() ?? 0
        #expect(worst < period / 4, "\(worst * 1e6) µs off at worst")
    }
}
