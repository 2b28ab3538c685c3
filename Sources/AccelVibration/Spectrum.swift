// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The periodic Hann window of one length and the two sums that scale a
/// spectrum taken through it: Σw for a line's amplitude, Σw² for power.
public struct HannWindow: Sendable {
    public let weights: [Double]
    public let sum: Double
    public let sumOfSquares: Double

    public init(count: Int) {
        weights = (0..<count).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(count)) }
        sum = weights.reduce(0, +)
        sumOfSquares = weights.reduce(0) { $0 + $1 * $1 }
    }

    /// How much a line `offset` bins from a bin's centre reads in that bin,
    /// relative to a line on the centre (|W(δ)| = sinc δ / (1 − δ²)).
    public static func response(offset: Double) -> Double {
        let d = abs(offset)
        if d < 1e-9 { return 1 }
        if abs(d - 1) < 1e-9 { return 0.5 }
        return sin(.pi * d) / (.pi * d) / (1 - d * d)
    }
}

/// A single-sided power spectrum: each bin's share of the signal's mean
/// square (g², so the bins between two frequencies sum to the band's RMS²),
/// from one Hann-windowed transform or the average of several (Welch).
public struct Spectrum: Sendable, Equatable {
    /// Samples per second of the signal (averaged with the spectra it
    /// averages: windows measured on a chip's clock differ a little).
    public private(set) var rate: Double
    /// Length of the transform, samples.
    public let count: Int
    /// Mean square per bin, bins 0 ... count/2.
    public var power: [Double]
    /// How many transforms were averaged.
    public var averaged: Int

    public var binWidth: Double { rate / Double(count) }
    public var nyquist: Double { rate / 2 }

    public init(rate: Double, count: Int, power: [Double], averaged: Int = 1) {
        self.rate = rate
        self.count = count
        self.power = power
        self.averaged = averaged
    }

    /// The spectrum of `values` (mean removed) through `window`.
    public init(_ values: some Collection<Double>, rate: Double, window: HannWindow, fft: RealFFT) {
        let mean = values.reduce(0, +) / Double(values.count)
        let bins = fft.transform(values.lazy.map { $0 - mean }, window: window.weights)
        let scale = 1 / (Double(fft.count) * window.sumOfSquares)
        let last = bins.count - 1
        let power = bins.enumerated().map { k, bin in
            bin.magnitudeSquared * scale * (k == 0 || k == last ? 1 : 2)
        }
        self.init(rate: rate, count: fft.count, power: power)
    }

    /// A sine's amplitude (g, peak) in bin `k` when the line sits on its
    /// centre: a Hann window spreads a line's A²/2 over 1.5 bins' worth,
    /// A²/3 in the centre bin.
    public func amplitude(bin k: Int) -> Double { (3 * power[k]).squareRoot() }

    /// The frequency of bin `k`.
    public func frequency(bin k: Int) -> Double { Double(k) * binWidth }

    /// The bins whose centres lie in `band`.
    public func bins(in band: ClosedRange<Double>) -> ClosedRange<Int>? {
        let first = max(1, Int((band.lowerBound / binWidth).rounded(.up)))
        let last = min(power.count - 1, Int((band.upperBound / binWidth).rounded(.down)))
        return first <= last ? first...last : nil
    }

    /// The RMS of the bins in `band`, each weighted by `weight(frequency)`.
    public func rms(in band: ClosedRange<Double>, weight: (Double) -> Double = { _ in 1 }) -> Double {
        guard let bins = bins(in: band) else { return 0 }
        var sum = 0.0
        for k in bins { let w = weight(frequency(bin: k)); sum += power[k] * w * w }
        return sum.squareRoot()
    }

    /// This spectrum and `other` (the same length) averaged, each weighted
    /// by how many transforms it holds.
    public mutating func average(with other: Spectrum) {
        precondition(other.count == count, "spectra of different lengths")
        let total = Double(averaged + other.averaged)
        let a = Double(averaged) / total, b = Double(other.averaged) / total
        for k in power.indices { power[k] = power[k] * a + other.power[k] * b }
        rate = rate * a + other.rate * b
        averaged += other.averaged
    }

    /// The sum of several spectra's power bin by bin: the vector's spectrum
    /// from its axes'.
    public static func sum(_ spectra: [Spectrum]) -> Spectrum {
        var result = spectra[0]
        for other in spectra.dropFirst() {
            for k in result.power.indices { result.power[k] += other.power[k] }
        }
        return result
    }

    /// The spectrum with `bins` bins (the client's choice): each the
    /// strongest amplitude among the bins it covers, so no line is lost.
    public func reduced(to bins: Int) -> [Double] {
        let n = power.count
        guard bins > 0, bins < n else { return power.indices.map { amplitude(bin: $0) } }
        return (0..<bins).map { i in
            let lo = i * n / bins, hi = max(lo + 1, (i + 1) * n / bins)
            return (lo..<hi).map { amplitude(bin: $0) }.max() ?? 0
        }
    }
}
