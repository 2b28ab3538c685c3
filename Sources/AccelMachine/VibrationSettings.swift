// SPDX-License-Identifier: Apache-2.0

/// How the shaft's frequency is known: configured, or estimated in each
/// window as the strongest line within a range.
public enum ShaftSpeed: Sendable, Equatable {
    case fixed(Double)
    case estimated(ClosedRange<Double>)
}

/// What one analysis does: its windows, its bands, what it looks for.
public struct VibrationSettings: Sendable, Equatable {
    /// Window length, seconds.
    public var window: Double = 1
    /// Fraction of a window shared with the next (0.5: a report every half
    /// window).
    public var overlap: Double = 0.5
    /// Strongest lines reported from the spectrum and the envelope's.
    public var peaks: Int = 5
    /// The band of the velocity RMS, Hz; cut at the Nyquist frequency when
    /// the rate is lower than twice its top (the report says which band).
    public var velocityBand: ClosedRange<Double> = Self.isoVelocityBand
    /// The envelope's band-pass, Hz; nil: found in each window by the
    /// kurtogram (the band where the signal is most impulsive, where a
    /// bearing's strikes ring).
    public var envelopeBand: ClosedRange<Double>?
    /// The class whose ISO zones the velocity is judged against; nil: no zone.
    public var machineClass: MachineClass?
    public var shaft: ShaftSpeed?
    public var bearing: BearingFactors?
    public var harmonics: Int = 3
    /// How far (a fraction) a line may sit from a configured frequency in
    /// one window's spectrum.
    public var tolerance: Double = 0.03
    /// The span the envelope spectra are averaged over, s (at least one
    /// window): a bearing's lines stand out of the averaged floor.
    public var average: Double = 10
    /// How far (bins of the averaged envelope spectrum) a family's 1× line
    /// may sit from its order; its harmonics are looked for at multiples
    /// of the line found, as far.
    public var orderBins: Double = 1.5
    public var condition = BearingConditionSettings()
    /// The part's range, g: a window with a sample at its end is flagged
    /// clipped. nil: never flagged.
    public var fullScale: Double?
    public var state = MachineStateSettings()

    /// ISO 10816 / 20816's band for velocity RMS, Hz.
    public static let isoVelocityBand: ClosedRange<Double> = 10...1_000

    public init() {}

    /// The velocity's band at `rate`.
    public func velocityBand(rate: Double) -> ClosedRange<Double> {
        velocityBand.lowerBound...min(velocityBand.upperBound, rate / 2)
    }

    /// The most envelope spectra an average keeps.
    public static let maximumAveraged = 120

    /// Hop between windows, s.
    public var hopDuration: Double { window * (1 - overlap) }

    /// Windows averaged: those whose hops fit in the span after the first.
    public var averagedWindows: Int { max(1, Int(((average - window) / hopDuration + 1e-9).rounded(.down)) + 1) }

    /// Samples in a window at `rate`: the fewest at or above `window`'s
    /// worth whose prime factors are all 7 or less, and even, as the real
    /// transform needs. kissfft has butterflies for 2, 3, 4 and 5 and a
    /// generic one whose cost grows with the square of the factor: a real
    /// transform of 6,660 (a second at 6,660 Hz, 2²·3²·5·37) took 396 µs
    /// and of 6,720 (2⁶·3·5·7) 162 µs; 1,660 took 196 µs and 1,680 27 µs
    /// (docs/PERFORMANCE.md). The window is then a percent or two longer
    /// than asked, and each message says its `duration`.
    public func samplesPerWindow(rate: Double) -> Int {
        Self.fastTransformSize(atLeast: Int((window * rate).rounded(.down)), even: true)
    }

    /// The least length from `count` up whose prime factors are all 7 or less.
    public static func fastTransformSize(atLeast count: Int, even: Bool = false) -> Int {
        func isSmooth(_ number: Int) -> Bool {
            var rest = number
            for factor in [2, 3, 5, 7] { while rest % factor == 0 { rest /= factor } }
            return rest == 1
        }
        var size = max(2, count)
        if even { size += size % 2 }
        while !isSmooth(size) { size += even ? 2 : 1 }
        return size
    }

    /// Checks the settings against `rate`; each error names the limit.
    public func validate(rate: Double) throws(VibrationSettingsError) {
        let nyquist = rate / 2
        let lowest = velocityBand.lowerBound
        guard window * lowest >= 3 else {
            throw .windowTooShort(window: window, lowest: lowest, needed: 3 / lowest)
        }
        guard samplesPerWindow(rate: rate) >= 16 else { throw .windowTooShort(window: window, lowest: lowest, needed: 16 / rate) }
        guard (0...0.9).contains(overlap) else { throw .overlap(overlap) }
        guard lowest < nyquist else { throw .bandAboveNyquist(name: "velocity band", band: velocityBand, nyquist: nyquist) }
        if let band = envelopeBand, band.upperBound > nyquist || band.lowerBound <= 0 {
            throw .bandAboveNyquist(name: "envelope band", band: band, nyquist: nyquist)
        }
        if bearing != nil && shaft == nil { throw .ordersWithoutShaft }
        if case .fixed(let hertz) = shaft, !(hertz > 0 && hertz < nyquist) {
            throw .bandAboveNyquist(name: "shaft", band: hertz...hertz, nyquist: nyquist)
        }
        guard (1...10).contains(harmonics) else { throw .harmonics(harmonics) }
        guard (0.001...0.2).contains(tolerance) else { throw .tolerance(tolerance) }
        guard state.running > state.idle else { throw .stateThresholds(idle: state.idle, running: state.running) }
        guard averagedWindows <= Self.maximumAveraged else {
            throw .averageTooLong(average: average, most: window + Double(Self.maximumAveraged - 1) * hopDuration)
        }
        guard (0.5...20).contains(orderBins) else { throw .orderBins(orderBins) }
        guard condition.alarm > condition.watch, condition.hysteresis >= 0, condition.hysteresis < condition.watch else {
            throw .conditionThresholds(watch: condition.watch, alarm: condition.alarm, hysteresis: condition.hysteresis)
        }
    }
}

/// What is wrong with an analysis's settings, and what to do.
public enum VibrationSettingsError: Error, Equatable, CustomStringConvertible {
    case windowTooShort(window: Double, lowest: Double, needed: Double)
    case overlap(Double)
    case bandAboveNyquist(name: String, band: ClosedRange<Double>, nyquist: Double)
    case ordersWithoutShaft
    case harmonics(Int)
    case tolerance(Double)
    case stateThresholds(idle: Double, running: Double)
    case averageTooLong(average: Double, most: Double)
    case orderBins(Double)
    case conditionThresholds(watch: Double, alarm: Double, hysteresis: Double)

    public var description: String {
        switch self {
        case .windowTooShort(let window, let lowest, let needed):
            return "a \(window) s window holds fewer than 3 periods of \(lowest) Hz, the band's lowest: use a window of at least \(needed) s"
        case .overlap(let overlap):
            return "overlap \(overlap) is outside 0 to 0.9: it is the fraction of a window shared with the next"
        case .bandAboveNyquist(let name, let band, let nyquist):
            return "the \(name) (\(band.lowerBound) to \(band.upperBound) Hz) reaches above \(nyquist) Hz, half the rate: lower it or raise the rate"
        case .ordersWithoutShaft:
            return "bearing orders need the shaft's frequency: set shaft = HZ, or shaft = auto LOW-HIGH to estimate it"
        case .harmonics(let count):
            return "harmonics \(count) is outside 1 to 10"
        case .tolerance(let tolerance):
            return "order tolerance \(tolerance) is outside 0.001 to 0.2 (a fraction of the frequency)"
        case .stateThresholds(let idle, let running):
            return "the running threshold (\(running) g) must be above the idle threshold (\(idle) g)"
        case .averageTooLong(let average, let most):
            return "an average over \(average) s keeps more than \(VibrationSettings.maximumAveraged) of these windows: average over at most \(most) s, or use longer windows"
        case .orderBins(let bins):
            return "order bins \(bins) is outside 0.5 to 20 (bins of the averaged envelope spectrum)"
        case .conditionThresholds(let watch, let alarm, let hysteresis):
            return "the alarm threshold (\(alarm) dB) must be above the watch threshold (\(watch) dB), and the hysteresis (\(hysteresis) dB) from 0 to below the watch threshold"
        }
    }
}
