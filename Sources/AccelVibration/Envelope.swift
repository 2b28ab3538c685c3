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
    /// The configured band, Hz; nil: the kurtogram's.
    public let configured: ClosedRange<Double>?
    /// Where the kurtogram finds no band (windows too short): 7.5 % to 45 %
    /// of the rate.
    public let fallback: ClosedRange<Double>
    private let kurtogram: Kurtogram?
    private let forward: RealFFT
    private let inverse: ComplexFFT
    private let window: HannWindow

    /// For windows of `count` samples at `rate`, band-passing `band` (Hz),
    /// or where the kurtogram says when `band` is nil.
    public init(count: Int, rate: Double, band: ClosedRange<Double>?) {
        self.count = count
        self.rate = rate
        configured = band
        fallback = (0.075 * rate)...(0.45 * rate)
        kurtogram = band == nil ? Kurtogram(count: count) : nil
        forward = RealFFT(count: count)
        inverse = ComplexFFT(count: count, inverse: true)
        window = HannWindow(count: count)
    }

    /// The transform of `values` (`count` of them), the mean removed.
    public func transform(_ values: some Collection<Double>) -> [Complex] {
        let mean = values.reduce(0, +) / Double(values.count)
        return forward.transform(values.lazy.map { $0 - mean })
    }

    /// The band for a window whose axes transformed to `transforms`: the
    /// configured one, or the kurtogram's.
    public func band(for transforms: [[Complex]]) -> ClosedRange<Double> {
        if let configured { return configured }
        guard let bins = kurtogram?.add(transforms) else { return fallback }
        let width = rate / Double(count)
        return Double(bins.lowerBound) * width...Double(bins.upperBound) * width
    }

    /// Starts the kurtogram's sums again (after a gap).
    public func reset() { kurtogram?.reset() }

    /// The envelope of the signal whose transform is `bins`: the band's
    /// bins kept and doubled, the negative frequencies zeroed, transformed
    /// back; its magnitude. The band-pass is the transform's own, sharp at
    /// the band's edges; the window's ends wrap, which the envelope
    /// spectrum's Hann window then weighs down.
    public func envelope(transform bins: [Complex], band: ClosedRange<Double>) -> [Double] {
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

    /// The spectrum of the envelope in `band` of the signal whose transform
    /// is `bins`, its frequencies at `measured` where the samples' own
    /// clock says their rate.
    public func spectrum(transform bins: [Complex], band: ClosedRange<Double>, rate measured: Double? = nil) -> Spectrum {
        Spectrum(envelope(transform: bins, band: band), rate: measured ?? rate, window: window, fft: forward)
    }

    /// The envelope spectrum of `values` in the configured band (or the
    /// fallback), for a single signal.
    public func spectrum(_ values: some Collection<Double>) -> Spectrum {
        spectrum(transform: transform(values), band: configured ?? fallback)
    }
}
