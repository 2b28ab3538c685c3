// SPDX-License-Identifier: Apache-2.0

/// The shaft's speed without a tachometer, window after window: each
/// candidate line in the range is scored by its family (1×, 2×, 3×: a
/// shaft's unbalance, misalignment and looseness ring at its harmonics, a
/// stray line seldom does), the speed followed where it drifts, and a jump
/// to another line taken only when that line wins `hold` windows running.
/// A lone strongest line in the range (a belt, a neighbour's motor) would
/// otherwise move every order with it for a window.
public struct ShaftTracker: Sendable {
    public let range: ClosedRange<Double>
    public let hold: Int
    public private(set) var speed: Double?
    private var challenger: Double?
    private var challenges = 0

    /// Candidates scored per window: the strongest lines in the range.
    static let candidates = 5
    /// How far (bins) the speed may move from one window to the next and
    /// still be the same shaft.
    static let followBins = 2.0
    /// A candidate's least amplitude, a fraction of the strongest's (−12 dB).
    static let weakest = 0.25

    public init(range: ClosedRange<Double>, hold: Int = 3) {
        self.range = range
        self.hold = max(1, hold)
    }

    /// The speed after `spectrum`'s window; nil while the range shows no line.
    public mutating func update(_ spectrum: Spectrum) -> Double? {
        let reach = Self.followBins * spectrum.binWidth
        var lines = spectrum.peaks(count: Self.candidates, in: range)
        // The current speed's own line, where it drifted to, competes too.
        if let speed, let followed = spectrum.line(near: speed, within: reach), range.contains(followed.frequency) {
            lines.append(followed)
        }
        // A candidate far weaker than the range's strongest line is a
        // sidelobe or noise, whose 2× may fall on the real shaft.
        let strongest = lines.map(\.amplitude).max() ?? 0
        lines.removeAll { $0.amplitude < Self.weakest * strongest }
        guard let best = lines.max(by: { score($0.frequency, spectrum) < score($1.frequency, spectrum) }) else { return speed }
        guard let current = speed, abs(best.frequency - current) > reach else {
            speed = best.frequency
            challenger = nil
            challenges = 0
            return speed
        }
        if let challenger, abs(challenger - best.frequency) <= reach { challenges += 1 } else { challenges = 1 }
        challenger = best.frequency
        if challenges >= hold {
            speed = best.frequency
            challenger = nil
            challenges = 0
        }
        return speed
    }

    /// A candidate's family in power: its line and those at 2× and 3×.
    func score(_ frequency: Double, _ spectrum: Spectrum) -> Double {
        (1...3).reduce(0) { sum, h in
            let line = spectrum.line(near: frequency * Double(h), within: 1.5 * Double(h) * spectrum.binWidth)
            return sum + (line.map { $0.amplitude * $0.amplitude } ?? 0)
        }
    }
}
