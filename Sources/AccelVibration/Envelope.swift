// SPDX-License-Identifier: Apache-2.0

/// The envelope spectrum, the standard way to see a bearing's defects: each
/// rolling element that meets a defect strikes the structure and rings its
/// resonance, kHz up, too briefly to show in the plain spectrum. Band-pass
/// around the resonance, take the magnitude of the analytic signal (the
/// envelope of the ringing), and its spectrum has lines at the rate of the
/// strikes: BPFO, BPFI and the like.
public final class EnvelopeAnalyzer {
    public let count: Int
    public let rate: Double
    public let band: ClosedRange<Double>
    private let forward: RealFFT
    private let inverse: ComplexFFT
    private let window: HannWindow

    /// For windows of `count` samples at `rate`, band-passing `band` (Hz).
    public init(count: Int, rate: Double, band: ClosedRange<Double>) {
        self.count = count
        self.rate = rate
        self.band = band
        forward = RealFFT(count: count)
        inverse = ComplexFFT(count: count, inverse: true)
        window = HannWindow(count: count)
    }

    /// The envelope of `values` (`count` of them): the band's bins kept and
    /// doubled, the negative frequencies zeroed, transformed back; its
    /// magnitude. The band-pass is the transform's own, sharp at the
    /// band's edges; the window's ends wrap, which the envelope spectrum's
    /// Hann window then weighs down.
    public func envelope(_ values: some Collection<Double>) -> [Double] {
        let mean = values.reduce(0, +) / Double(values.count)
        let bins = forward.transform(values.lazy.map { $0 - mean })
        let width = rate / Double(count)
        var analytic = [Complex](repeating: Complex(0, 0), count: count)
        let first = max(1, Int((band.lowerBound / width).rounded(.up)))
        let last = min(count / 2 - 1, Int((band.upperBound / width).rounded(.down)))
        if first <= last {
            for k in first...last { analytic[k] = Complex(2 * bins[k].re, 2 * bins[k].im) }
        }
        let scale = 1 / Double(count)
        return inverse.transform(analytic).map { $0.magnitude * scale }
    }

    /// The spectrum of the envelope of `values`, its frequencies at
    /// `measured` where the samples' own clock says their rate.
    public func spectrum(_ values: some Collection<Double>, rate measured: Double? = nil) -> Spectrum {
        let envelope = envelope(values)
        return Spectrum(envelope, rate: measured ?? rate, window: window, fft: forward)
    }
}
