// SPDX-License-Identifier: Apache-2.0

/// The envelope's band found from the signal, not guessed: the band where
/// the window is most impulsive, by spectral kurtosis (Antoni's kurtogram,
/// the standard way to find where a bearing's strikes ring). Each candidate
/// band's complex envelope is the inverse transform of that band's bins
/// alone (decimated: as many points as bins, so the whole kurtogram costs
/// a few transforms of the window); its kurtosis m4/m2² − 2 is 0 for
/// Gaussian noise, below 0 for steady lines, large for strikes. The bands
/// are ½ and ¼ of the part's pass band (40 % of the rate) wide, each
/// level's stepped by half a band: 10 bands, 666 Hz and wider at 6,660 Hz;
/// narrower ones would cut off a defect's 3× line in the envelope.
/// The kurtosis is summed window by window, and started again with the
/// envelope spectra's average, so that the band settles rather than hops.
public final class Kurtogram {
    /// Candidate bands, as bins of the window's transform.
    public let bands: [ClosedRange<Int>]
    private var sums: [Double]
    /// The inverse transforms, one per band width.
    private let plans: [Int: ComplexFFT]

    /// For windows of `count` samples.
    public init(count: Int) {
        // The part's pass band: above 40 % of the rate its anti-aliasing
        // filter leaves only leaked strikes over the digits' own noise,
        // which is as impulsive as a defect and far weaker.
        let top = count * 2 / 5
        var bands: [ClosedRange<Int>] = []
        for level in 1...2 {
            let width = top >> level
            guard width >= 8 else { continue }
            for start in stride(from: 0, through: top - width, by: width / 2) {
                bands.append(max(1, start)...(start + width - 1))
            }
        }
        self.bands = bands
        sums = Array(repeating: 0, count: bands.count)
        let sizes = Set(bands.map { VibrationSettings.fastTransformSize(atLeast: $0.count) })
        plans = Dictionary(uniqueKeysWithValues: sizes.map { ($0, ComplexFFT(count: $0, inverse: true)) })
    }

    /// Adds a window's transforms (one per axis, mean removed); the band
    /// whose kurtosis, summed over the axes and the windows so far, is the
    /// highest.
    public func add(_ transforms: [[Complex]]) -> ClosedRange<Int>? {
        guard !bands.isEmpty else { return nil }
        for (index, band) in bands.enumerated() {
            sums[index] += transforms.reduce(0) { $0 + kurtosis(of: band, in: $1) }
        }
        return bands[sums.indices.max { sums[$0] < sums[$1] }!]
    }

    /// Forgets the windows (after a gap, with the envelope's average).
    public func reset() {
        for i in sums.indices { sums[i] = 0 }
    }

    /// The spectral kurtosis of `band`'s complex envelope.
    func kurtosis(of band: ClosedRange<Int>, in transform: [Complex]) -> Double {
        let size = VibrationSettings.fastTransformSize(atLeast: band.count)
        var bins = [Complex](repeating: Complex(0, 0), count: size)
        for (i, k) in band.enumerated() where k < transform.count { bins[i] = transform[k] }
        let envelope = plans[size]!.transform(bins)
        var m2 = 0.0, m4 = 0.0
        for z in envelope {
            let power = z.magnitudeSquared
            m2 += power
            m4 += power * power
        }
        let n = Double(envelope.count)
        m2 /= n
        m4 /= n
        return m2 > 0 ? m4 / (m2 * m2) - 2 : 0
    }
}
