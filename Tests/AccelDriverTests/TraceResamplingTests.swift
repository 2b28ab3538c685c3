// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import Foundation
import Testing

@Suite("A kHz trace played at a part's rate")
struct TraceResamplingTests {
    /// A trace at `rate` with `lines` (Hz, g) on x, 1 g on z.
    func trace(rate: Double, seconds: Double, lines: [(Double, Double)]) -> Trace {
        let times = (0..<Int(seconds * rate)).map { Double($0) / rate }
        let samples = times.map { t in Vector3(lines.reduce(0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t) }, 0, 1) }
        return Trace(times: times, samples: samples)
    }

    /// The amplitude of the line at `hertz` in `values` taken at `rate`: a
    /// projection through a Hann window, whose side lobes keep a strong
    /// line elsewhere (107.4 Hz, 0.3 g) from leaking into the one measured.
    func amplitude(_ values: [Double], rate: Double, hertz: Double) -> Double {
        var s = 0.0, c = 0.0, weights = 0.0
        for (i, value) in values.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * .pi * Double(i) / Double(values.count))
            s += value * w * sin(2 * .pi * hertz * Double(i) / rate)
            c += value * w * cos(2 * .pi * hertz * Double(i) / rate)
            weights += w
        }
        return 2 * (s * s + c * c).squareRoot() / weights
    }

    @Test("48 kHz to 6,660 Hz: a line in the band keeps its amplitude; a 20 kHz ringing does not fold to 20 Hz as taking rows would")
    func antiAliasing() {
        let fast = trace(rate: 48_000, seconds: 2, lines: [(107.4, 0.3), (20_000, 0.5)])
        let played = fast.resampled(to: 6_660)
        #expect(abs(played.typicalInterval * 6_660 - 1) < 1e-9 && played.times.first == 0)
        #expect(played.comments.last?.contains("from 48000 Hz to 6660 Hz") == true)
        // Away from the ends, where the filter has only half its reach.
        let x = Array(played.samples.map(\.x).dropFirst(100).dropLast(100))
        #expect(abs(amplitude(x, rate: 6_660, hertz: 107.4) / 0.3 - 1) < 0.001, "the band's line")
        // 20,000 Hz sampled at 6,660 Hz lands on 20 Hz: what the chip
        // model's interpolation between rows would show at 0.5 g.
        let folded = TraceMotion(fast)
        let interpolated = (0..<13_320).map { folded.specificForce(at: Double($0) / 6_660).x }
        #expect(amplitude(interpolated, rate: 6_660, hertz: 20) > 0.1, "interpolating rows folds the ringing")
        #expect(amplitude(x, rate: 6_660, hertz: 20) < 0.0005, "the low-pass leaves less than 0.1 % of it")
    }

    @Test("a trace no faster than the part's rate plays as it is, rotation rates and all")
    func slowerTraceUnchanged() {
        var slow = trace(rate: 100, seconds: 1, lines: [(3, 0.2)])
        slow.rotationRates = slow.samples.map { _ in Vector3(0.1, 0, 0) }
        #expect(slow.resampled(to: 400) == slow && slow.resampled(to: 100) == slow)
        let motion = DeviceSource.motion(TraceMotion(slow, name: "slow.csv"), sampledAt: 400)
        #expect((motion as? TraceMotion)?.trace == slow)
    }
}
