// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Testing
@testable import AccelVibration

/// Noise of RMS `noise` with `lines` on it, 1 Hz bins at 1,000 Hz.
private func noisySpectrum(_ lines: [(Double, Double)], noise: Double = 0.01, seed: UInt64 = 7) -> Spectrum {
    var random = SeededRandom(seed: seed)
    let clean = signal(lines, rate: 1_000, count: 1_000)
    return spectrum(of: clean.map { $0 + noise * random.gaussian() }, rate: 1_000)
}

private let bearing = BearingFactors(bpfo: 3.2, bpfi: 4.8, bsf: 2.1, ftf: 0.4)

@Suite("Order families and the bearing's condition")
struct OrderFamilyTests {
    @Test("a defect's family: 1×, 2×, 3× found where the 1× line is (the shaft 0.8 % slow), sidebands at ± the shaft, high over the floor; an absent order near 0 dB")
    func family() throws {
        // The shaft turns at 24.8 Hz, configured as 25: BPFI rings at 119.0 Hz, its 3× 2.9 Hz from 3 × the configured order.
        let bpfi = 4.8 * 24.8
        let spectrum = noisySpectrum([(bpfi, 0.2), (2 * bpfi, 0.1), (3 * bpfi, 0.05), (bpfi - 24.8, 0.05), (bpfi + 24.8, 0.05)])
        let families = spectrum.families(of: MachineOrders(shaft: 25, bearing: bearing), bins: 1.5, below: 500)
        let inner = try #require(families.first { $0.name == "bpfi" })
        #expect(inner.harmonics.map { ($0?.frequency ?? 0).rounded() } == [119, 238, 357])
        #expect(inner.sidebands.map { ($0?.frequency ?? 0).rounded() } == [94, 144])
        #expect(inner.indicator > 20, "\(inner.indicator) dB")
        let outer = try #require(families.first { $0.name == "bpfo" })
        #expect(abs(outer.indicator) < 8 && outer.sidebands.isEmpty, "noise alone: \(outer.indicator) dB")
    }

    @Test("the floor is the median of the bins around a line, the line's own left out")
    func floor() {
        let spectrum = noisySpectrum([(200, 1)], noise: 0)
        #expect(spectrum.floor(around: 200) < 0.001)
        let noisy = noisySpectrum([(200, 1)], noise: 0.01)
        let expected = 0.01 * (2.0 / 1_000).squareRoot()  // a bin's share of the noise's power, as amplitude
        #expect(noisy.floor(around: 200) > expected / 3 && noisy.floor(around: 200) < expected * 3, "\(noisy.floor(around: 200))")
    }

    @Test("a line a stronger family explains no longer counts for a weaker one: a ball's 3× on the inner race's 3rd sideband")
    func attribution() throws {
        let shaft = 25.0, bpfi = 4.8 * shaft
        let bsf3 = bpfi + 3 * shaft  // 195 Hz; a ball spinning at 65 Hz would ring 3× there
        let spectrum = noisySpectrum([(bpfi, 0.2), (2 * bpfi, 0.1), (3 * bpfi, 0.05), (bsf3, 0.05)])
        let ball = BearingFactors(bpfo: 3.2, bpfi: 4.8, bsf: bsf3 / 3 / shaft, ftf: 0.4)
        let orders = MachineOrders(shaft: shaft, bearing: ball)
        let raw = spectrum.families(of: orders, bins: 1.5, below: 500)
        let seen = try #require(raw.first { $0.name == "bsf" })
        #expect(seen.harmonics[2] != nil, "the raw family takes the line")
        let attributed = OrderFamily.attributed(raw, present: 16, bins: 1.5, binWidth: spectrum.binWidth, modulators: orders.modulators)
        let ballFamily = try #require(attributed.first { $0.name == "bsf" })
        #expect(ballFamily.harmonics[2] == nil && ballFamily.indicator < seen.indicator, "\(seen.indicator) → \(ballFamily.indicator) dB")
        #expect(attributed.first { $0.name == "bpfi" } == raw.first { $0.name == "bpfi" }, "the strongest keeps its own")
    }

    @Test("a condition rises at its threshold after the hold, and falls only below it less the hysteresis, after the hold")
    func condition() {
        var tracker = BearingConditionTracker(settings: BearingConditionSettings(watch: 16, alarm: 20, hysteresis: 3, hold: 3))
        #expect([25, 25].map { tracker.update(indicator: $0) } == [.ok, .ok])
        #expect(tracker.update(indicator: 25) == .alarm)
        #expect([18, 18, 18, 18].map { tracker.update(indicator: $0) } == [.alarm, .alarm, .alarm, .alarm], "within the hysteresis: held")
        #expect([16, 16, 16].map { tracker.update(indicator: $0) } == [.alarm, .alarm, .watch])
        #expect([30, 5, 30, 5].map { tracker.update(indicator: $0) } == [.watch, .watch, .watch, .watch], "one loud report moves nothing")
    }

    @Test("the average keeps the newest spectra; a reset starts it again")
    func average() {
        var average = EnvelopeAverage(capacity: 2)
        func flat(_ value: Double) -> Spectrum { Spectrum(rate: 100, count: 4, power: [value, value, value]) }
        #expect(average.add(flat(1)).power == [1, 1, 1])
        #expect(average.add(flat(3)).power == [2, 2, 2])
        let third = average.add(flat(5))
        #expect(third.power == [4, 4, 4] && third.averaged == 2, "the oldest left")
        average.reset()
        #expect(average.add(flat(7)).averaged == 1)
    }

    @Test("an average longer than the windows kept, order bins and thresholds out of range: each refused with its limit")
    func refused() {
        var long = VibrationSettings()
        long.average = 3_600
        #expect(throws: VibrationSettingsError.averageTooLong(average: 3_600, most: 60.5)) { try long.validate(rate: 1_344) }
        #expect("\(VibrationSettingsError.averageTooLong(average: 3_600, most: 60.5))".contains("at most 60.5 s"))
        var bins = VibrationSettings()
        bins.orderBins = 0.1
        #expect(throws: VibrationSettingsError.orderBins(0.1)) { try bins.validate(rate: 1_344) }
        var thresholds = VibrationSettings()
        thresholds.condition.alarm = 10
        #expect(throws: VibrationSettingsError.conditionThresholds(watch: 14, alarm: 10, hysteresis: 3)) { try thresholds.validate(rate: 1_344) }
        #expect(VibrationSettings().averagedWindows == 19, "10 s of 1 s windows every 0.5 s")
    }
}
