// SPDX-License-Identifier: Apache-2.0

/// Vibration severity as ISO 10816 and ISO 20816 judge it: the RMS of the
/// vibration's velocity over 10 to 1,000 Hz, in mm/s, against the zone
/// boundaries of a machine's class.
public enum VelocitySeverity {
    /// The standards' band, Hz.
    public static let band = VibrationSettings.isoVelocityBand

    /// Standard gravity, mm/s² per g.
    static let millimetresPerSecondSquared = 9_806.65

    /// Velocity RMS (mm/s) over `band` from an acceleration spectrum (g):
    /// each bin divided by 2πf, integration done in the frequency domain,
    /// so no drift and no integrator to settle. Bins above the spectrum's
    /// Nyquist frequency do not exist: `coversBand` says when it falls short.
    public static func rms(_ spectrum: Spectrum, band: ClosedRange<Double> = band) -> Double {
        spectrum.rms(in: band) { millimetresPerSecondSquared / (2 * .pi * $0) }
    }

    /// Whether a spectrum at `rate` reaches the band's top.
    public static func coversBand(rate: Double, band: ClosedRange<Double> = band) -> Bool {
        rate / 2 >= band.upperBound
    }
}
