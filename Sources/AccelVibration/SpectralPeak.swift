// SPDX-License-Identifier: Apache-2.0

/// A line in a spectrum: its frequency and amplitude (g, peak), both
/// interpolated between the bins around it.
public struct SpectralPeak: Sendable, Equatable {
    public var frequency: Double
    public var amplitude: Double

    public init(frequency: Double, amplitude: Double) {
        self.frequency = frequency
        self.amplitude = amplitude
    }
}

extension Spectrum {
    /// The line at local maximum `k`, placed between bins by the ratio of
    /// its larger neighbour to it (Grandke's estimator for the Hann window,
    /// δ = (2α − 1)/(α + 1)), its amplitude corrected by the window's
    /// response at that offset. A line between two bins reads up to 15 %
    /// low in either bin; interpolated, well under 1 %.
    public func peak(at k: Int) -> SpectralPeak {
        let here = amplitude(bin: k)
        guard here > 0, k > 0, k + 1 < power.count else {
            return SpectralPeak(frequency: frequency(bin: k), amplitude: here)
        }
        let left = amplitude(bin: k - 1), right = amplitude(bin: k + 1)
        let side = right >= left ? 1.0 : -1.0
        let alpha = max(left, right) / here
        let offset = side * max(0, min(0.5, (2 * alpha - 1) / (alpha + 1)))
        return SpectralPeak(
            frequency: (Double(k) + offset) * binWidth,
            amplitude: here / HannWindow.response(offset: offset)
        )
    }

    /// The `count` strongest lines in `band`, strongest first: local maxima
    /// of the amplitude, interpolated.
    public func peaks(count: Int, in band: ClosedRange<Double>) -> [SpectralPeak] {
        guard count > 0, let bins = bins(in: band) else { return [] }
        var found: [SpectralPeak] = []
        for k in bins where isLocalMaximum(k) { found.append(peak(at: k)) }
        return Array(found.sorted { $0.amplitude > $1.amplitude }.prefix(count))
    }

    /// The strongest line within `tolerance` (a fraction) of `frequency`,
    /// and at least a bin and a half either side; nil when the window holds
    /// no local maximum there.
    public func line(near frequency: Double, tolerance: Double) -> SpectralPeak? {
        line(near: frequency, within: max(frequency * tolerance, 1.5 * binWidth))
    }

    /// The strongest line within `reach` Hz of `frequency`.
    public func line(near frequency: Double, within reach: Double) -> SpectralPeak? {
        guard let bins = bins(in: max(0, frequency - reach)...(frequency + reach)) else { return nil }
        return bins.filter(isLocalMaximum).map(peak(at:)).max { $0.amplitude < $1.amplitude }
    }

    private func isLocalMaximum(_ k: Int) -> Bool {
        k > 0 && k + 1 < power.count && power[k] > power[k - 1] && power[k] >= power[k + 1]
    }
}
