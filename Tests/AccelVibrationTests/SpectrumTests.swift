// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import AccelVibration

/// `count` samples at `rate` of the sum of `lines` (frequency Hz, amplitude g).
func signal(_ lines: [(Double, Double)], rate: Double, count: Int, offset: Double = 0) -> [Double] {
    (0..<count).map { i in
        let t = Double(i) / rate
        return offset + lines.reduce(0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t + 0.3) }
    }
}

func spectrum(of values: [Double], rate: Double) -> Spectrum {
    Spectrum(values, rate: rate, window: HannWindow(count: values.count), fft: RealFFT(count: values.count))
}

@Suite("Spectrum")
struct SpectrumTests {
    @Test("a line between bins: its frequency within a tenth of a bin, its amplitude within 1 %", arguments: [0.0, 0.25, 0.5, 0.77])
    func interpolatedLine(offset: Double) {
        let rate = 3_330.0, count = 3_330  // 1 Hz bins
        let frequency = 123 + offset
        let found = spectrum(of: signal([(frequency, 0.2)], rate: rate, count: count, offset: 1), rate: rate)
            .peaks(count: 1, in: 10...1_600)
        #expect(found.count == 1)
        #expect(abs(found[0].frequency - frequency) < 0.1)
        #expect(abs(found[0].amplitude / 0.2 - 1) < 0.01)
    }

    @Test("the bins' power sums to the signal's mean square (Parseval, through the window)")
    func parseval() {
        let values = signal([(50, 0.3), (217.4, 0.1), (1_001, 0.05)], rate: 6_660, count: 6_660)
        let meanSquare = (0.3 * 0.3 + 0.1 * 0.1 + 0.05 * 0.05) / 2
        let total = spectrum(of: values, rate: 6_660).power.reduce(0, +)
        #expect(abs(total / meanSquare - 1) < 0.01)
    }

    @Test("the strongest lines, strongest first, and a reduced spectrum keeps each line's height")
    func peaksAndReduction() {
        let s = spectrum(of: signal([(60, 0.05), (300, 0.4), (1_200, 0.1)], rate: 4_000, count: 4_000), rate: 4_000)
        let peaks = s.peaks(count: 3, in: 10...2_000)
        #expect(peaks.map { $0.frequency.rounded() } == [300, 1_200, 60])
        let reduced = s.reduced(to: 64)
        #expect(reduced.count == 64)
        #expect(abs((reduced.max() ?? 0) - 0.4) < 0.01)
    }

    @Test("Welch: two halves averaged equal the mean of their power")
    func welch() {
        var a = spectrum(of: signal([(100, 0.2)], rate: 1_000, count: 1_000), rate: 1_000)
        let b = spectrum(of: signal([(100, 0.4)], rate: 1_000, count: 1_000), rate: 1_000)
        let k = 100
        let expected = (a.power[k] + b.power[k]) / 2
        a.average(with: b)
        #expect(a.averaged == 2)
        #expect(abs(a.power[k] - expected) < 1e-12)
        // Windows measured on a chip's clock differ a little in rate: their mean.
        a.average(with: spectrum(of: signal([(100, 0.2)], rate: 1_030, count: 1_000), rate: 1_030))
        #expect(abs(a.rate - 1_010) < 1e-9 && a.averaged == 3)
    }
}
