// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import TestSupport
import Testing

@Suite("A kHz trace played at a part's rate")
struct TraceResamplingTests {
    @Test("48 kHz to 6,660 Hz: a line in the band keeps its amplitude; a 20 kHz ringing does not fold to 20 Hz as taking rows would")
    func antiAliasing() {
        let fast = sineTrace(rate: 48_000, seconds: 2, lines: [(107.4, 0.3), (20_000, 0.5)])
        let played = DeviceSource.motion(TraceMotion(fast), sampledAt: 6_660)
        // Away from the ends, where the filter has only half its reach.
        let x = (100..<13_220).map { played.specificForce(at: Double($0) / 6_660).x }
        #expect(abs(lineAmplitude(x, rate: 6_660, hertz: 107.4) / 0.3 - 1) < 0.001, "the band's line")
        // 20,000 Hz sampled at 6,660 Hz lands on 20 Hz: what the chip
        // model's interpolation between rows would show at 0.5 g.
        let folded = TraceMotion(fast)
        let interpolated = (0..<13_320).map { folded.specificForce(at: Double($0) / 6_660).x }
        #expect(lineAmplitude(interpolated, rate: 6_660, hertz: 20) > 0.1, "interpolating rows folds the ringing")
        #expect(lineAmplitude(x, rate: 6_660, hertz: 20) < 0.0005, "the low-pass leaves less than 0.1 % of it")
    }

    @Test("a trace no faster than the part's rate plays as it is, rotation rates and all")
    func slowerTraceUnchanged() {
        var slow = sineTrace(rate: 100, seconds: 1, lines: [(3, 0.2)])
        slow.rotationRates = slow.samples.map { _ in Vector3(0.1, 0, 0) }
        let motion = DeviceSource.motion(TraceMotion(slow, name: "slow.csv"), sampledAt: 400)
        #expect((motion as? TraceMotion)?.trace == slow)
        #expect(motion.specificForce(at: 0.0125).x == TraceMotion(slow).specificForce(at: 0.0125).x, "read between its rows as before")
    }

    @Test("a 2 kHz line in a 12 kHz trace, read by a part at 6,660 Hz on a clock up to 1 % off at any phase: within 1 % in amplitude, nothing within 200 Hz above -60 dB",
          arguments: [(0, 0.3), (0.01, 0), (0.01, 0.5), (-0.01, 0.3)])
    func faithfulAtTheChipsClock(rateError: Double, phase: Double) {
        let fast = sineTrace(rate: 12_000, seconds: 1, lines: [(2_000, 0.5)])
        let played = DeviceSource.motion(TraceMotion(fast), sampledAt: 6_660)
        let rate = 6_660 * (1 + rateError)
        // Half a second away from the ends, at the chip's own instants.
        let x = (0..<Int(rate / 2)).map { played.specificForce(at: 0.25 + (Double($0) + phase) / rate).x }
        let (amplitude, nearby) = lineAndNeighbours(x, rate: rate, hertz: 2_000)
        #expect(abs(amplitude / 0.5 - 1) < 0.01, "amplitude \(amplitude) g")
        #expect(nearby < -60, "a line \(nearby) dB below it within 200 Hz")
    }
}
