// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Testing
@testable import AccelVibration

/// One second at 1,000 Hz (1 Hz bins): a shaft at `shaft` Hz with its 2×
/// and 3×, a stray line without harmonics, a little noise.
private func window(shaft: Double?, stray: Double? = nil, seed: UInt64 = 1) -> Spectrum {
    var random = SeededRandom(seed: seed)
    var lines: [(Double, Double)] = []
    if let shaft { lines += [(shaft, 0.08), (2 * shaft, 0.06), (3 * shaft, 0.04)] }
    if let stray { lines.append((stray, 0.1)) }
    return spectrum(of: signal(lines, rate: 1_000, count: 1_000).map { $0 + 0.002 * random.gaussian() }, rate: 1_000)
}

@Suite("The shaft's speed, tracked")
struct ShaftTrackerTests {
    @Test("a stray line stronger than the shaft's 1× but without harmonics does not take the shaft: its family scores higher")
    func family() {
        var tracker = ShaftTracker(range: 25...35)
        let speed = tracker.update(window(shaft: 29.95, stray: 33))
        #expect(abs((speed ?? 0) - 29.95) < 0.1, "\(speed ?? 0)")
        #expect(window(shaft: 29.95, stray: 33).peaks(count: 1, in: 25...35).first.map { abs($0.frequency - 33) < 0.1 } == true,
                "the strongest line in the range is the stray one")
    }

    @Test("the speed is followed as it drifts; a jump is taken only after three windows of the new line")
    func follows() {
        var tracker = ShaftTracker(range: 25...35)
        #expect(abs((tracker.update(window(shaft: 29.95)) ?? 0) - 29.95) < 0.1)
        #expect(abs((tracker.update(window(shaft: 30.8, seed: 2)) ?? 0) - 30.8) < 0.1, "within two bins: followed at once")
        let jumped = (3...5).map { tracker.update(window(shaft: 33.5, seed: UInt64($0))) ?? 0 }
        #expect(abs(jumped[0] - 30.8) < 0.1 && abs(jumped[1] - 30.8) < 0.1, "held: \(jumped)")
        #expect(abs(jumped[2] - 33.5) < 0.1, "taken on the third: \(jumped)")
        #expect(abs((tracker.update(window(shaft: nil, seed: 9)) ?? 0) - 33.5) <= 2, "a silent window does not move it far")
    }
}
