// SPDX-License-Identifier: Apache-2.0
import AccelCore
import Foundation
import Testing
@testable import AccelVibration

@Suite("Waveform figures")
struct WaveformTests {
    @Test("a sine on gravity: RMS A/√2, peak A, crest √2, kurtosis 1.5, the mean is gravity")
    func sine() {
        let figures = WaveformFigures(signal([(50, 0.5)], rate: 5_000, count: 5_000, offset: 1))
        #expect(abs(figures.mean - 1) < 1e-6)
        #expect(abs(figures.rms - 0.5 / 2.0.squareRoot()) < 1e-4)
        #expect(abs(figures.peak - 0.5) < 1e-3)
        #expect(abs(figures.peakToPeak - 1) < 2e-3)
        #expect(abs(figures.crest - 2.0.squareRoot()) < 0.01)
        #expect(abs(figures.kurtosis - 1.5) < 0.01)
    }

    @Test("Gaussian noise has kurtosis near 3; rare impacts raise it far above")
    func kurtosis() {
        var random = SeededRandom(seed: 7)
        var noise = (0..<20_000).map { _ in random.gaussian() * 0.01 }
        #expect(abs(WaveformFigures(noise).kurtosis - 3) < 0.2)
        for i in stride(from: 0, to: noise.count, by: 500) { noise[i] += 0.2 }
        #expect(WaveformFigures(noise).kurtosis > 10)
    }

    @Test("the vector's RMS is the root of the axes' mean squares summed")
    func vector() {
        let x = signal([(40, 0.3)], rate: 2_000, count: 2_000), z = signal([(90, 0.4)], rate: 2_000, count: 2_000, offset: 1)
        let y = [Double](repeating: 0, count: 2_000)
        let figures = VectorFigures(x: x, y: y, z: z, means: (WaveformFigures(x).mean, 0, WaveformFigures(z).mean))
        #expect(abs(figures.rms - ((0.09 + 0.16) / 2).squareRoot()) < 1e-3)
        #expect(figures.peak <= 0.5 + 1e-6 && figures.peak > 0.45)  // both lines at their crest together
    }
}
