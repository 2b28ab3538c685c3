// SPDX-License-Identifier: Apache-2.0

/// The frequencies a machine's configuration names: its shaft's, and the
/// bearing's defects at that shaft's speed.
public struct MachineOrders: Sendable, Equatable {
    /// The shaft's turning frequency, Hz.
    public var shaft: Double
    public var bearing: BearingFactors?
    /// Harmonics looked at for each: 1× up to this.
    public var harmonics: Int

    public init(shaft: Double, bearing: BearingFactors? = nil, harmonics: Int = 3) {
        self.shaft = shaft
        self.bearing = bearing
        self.harmonics = harmonics
    }

    /// Every named frequency, 1×: "shaft" first, then the bearing's.
    public var frequencies: [(name: String, frequency: Double)] {
        [("shaft", shaft)] + (bearing?.named.map { ($0.name, $0.order * shaft) } ?? [])
    }
}

/// What a spectrum shows at one named frequency and its harmonics.
public struct OrderReading: Sendable, Equatable {
    public var name: String
    /// The configured frequency, Hz (1×).
    public var frequency: Double
    /// The line found near each harmonic (1×, 2×, ...), nil where the
    /// spectrum has none (a harmonic above the Nyquist frequency, or no
    /// local maximum within the tolerance).
    public var harmonics: [SpectralPeak?]

    /// The 1× line's amplitude, 0 when there is none.
    public var amplitude: Double { harmonics.first.flatMap { $0?.amplitude } ?? 0 }
}

extension MachineOrders {
    /// The lines in `spectrum` at each named frequency's harmonics, within
    /// `tolerance` (a fraction: the shaft's speed is never exactly the
    /// nameplate's, and a motor slips 1 to 5 %).
    public func readings(in spectrum: Spectrum, tolerance: Double) -> [OrderReading] {
        frequencies.map { name, frequency in
            let lines = (1...max(1, harmonics)).map { h -> SpectralPeak? in
                let target = frequency * Double(h)
                guard target < spectrum.nyquist else { return nil }
                return spectrum.line(near: target, tolerance: tolerance)
            }
            return OrderReading(name: name, frequency: frequency, harmonics: lines)
        }
    }
}
