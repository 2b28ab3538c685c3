// SPDX-License-Identifier: Apache-2.0

/// The waveform's figures over one window of one axis, its mean (gravity
/// and offset) removed: what a vibration meter shows beside the spectrum.
public struct WaveformFigures: Sendable, Equatable {
    /// Mean of the window, g: gravity's share on this axis, not vibration.
    public var mean: Double
    /// Root mean square about the mean, g.
    public var rms: Double
    /// Largest distance from the mean, g.
    public var peak: Double
    /// Highest minus lowest, g.
    public var peakToPeak: Double
    /// peak / rms: √2 for a sine, 3 to 4 for noise, higher for impacts.
    public var crest: Double
    /// m4 / m2²: 1.5 for a sine, 3 for Gaussian noise, far above 3 when
    /// impacts (a damaged bearing's) stand out of the noise.
    public var kurtosis: Double

    public init(_ values: some Collection<Double>) {
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        var m2 = 0.0, m4 = 0.0, low = Double.infinity, high = -Double.infinity
        for value in values {
            let d = value - mean
            let d2 = d * d
            m2 += d2
            m4 += d2 * d2
            low = min(low, value)
            high = max(high, value)
        }
        m2 /= n
        m4 /= n
        self.mean = mean
        rms = m2.squareRoot()
        peak = max(high - mean, mean - low)
        peakToPeak = high - low
        crest = rms > 0 ? peak / rms : 0
        kurtosis = m2 > 0 ? m4 / (m2 * m2) : 0
    }
}

/// The three axes' vibration as one vector, means removed: its RMS (the
/// root of the axes' mean squares summed) and its largest length.
public struct VectorFigures: Sendable, Equatable {
    public var rms: Double
    public var peak: Double
    public var crest: Double { rms > 0 ? peak / rms : 0 }

    public init(x: [Double], y: [Double], z: [Double], means: (Double, Double, Double)) {
        var sum = 0.0, largest = 0.0
        for i in x.indices {
            let dx = x[i] - means.0, dy = y[i] - means.1, dz = z[i] - means.2
            let squared = dx * dx + dy * dy + dz * dz
            sum += squared
            largest = max(largest, squared)
        }
        rms = (sum / Double(max(1, x.count))).squareRoot()
        peak = largest.squareRoot()
    }
}
