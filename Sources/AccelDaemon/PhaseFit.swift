// SPDX-License-Identifier: Apache-2.0
/// The chip's sample clock as seen from ours: a least-squares line through
/// the last few bracketed measurements of (sequence number, instant). Each
/// measurement is only good to about ±10 % of a period; the line averages
/// that away and gives the real period (the chip's clock may be ±10 % off)
/// and the phase, hence every sample's instant and the index of the newest
/// sample due at any time.
struct PhaseFit {
    private var points: [(seq: Double, t: Double)] = []
    private let capacity = 32
    /// Intercept and slope: t = intercept + slope × seq (ns).
    private(set) var intercept = 0.0
    private(set) var slope: Double
    /// For the line's standard error: the points' scatter about it (ns²),
    /// their mean sequence number and its sum of squares.
    private var residualVariance = 0.0
    private var meanSeq = 0.0
    private var sxx = 0.0

    /// The period the slope leans on until the points say better: the
    /// nominal one, or the one measured before the phase was lost.
    private(set) var expectedPeriod: Double

    init(nominalPeriod: Double) { (slope, expectedPeriod) = (nominalPeriod, nominalPeriod) }

    /// The expected period's weight, as Σ (seq − mean)² of the points: the
    /// points' error (a tenth of a period) over the spread of parts'
    /// clocks (5 %), squared.
    static let priorWeight = 4.0

    /// The line before a reset that kept it, still in use until two new
    /// points make their own.
    private var keptLine = false

    var isUsable: Bool { points.count >= 2 || keptLine }
    var count: Int { points.count }

    /// Forgets the points. `keepingLine`: the line goes on numbering and
    /// timing samples until new points replace it (its slope is then the
    /// expected period).
    mutating func reset(expectedPeriod: Double, keepingLine: Bool = false) {
        points.removeAll()
        keptLine = keepingLine
        self.expectedPeriod = expectedPeriod
        if !keepingLine { slope = expectedPeriod }
    }

    mutating func add(seq: UInt64, t: Double, nominalPeriod: Double) {
        points.append((Double(seq), t))
        if points.count > capacity { points.removeFirst() }
        guard let line = LeastSquaresLine(points, x: { $0.seq }, y: { $0.t }) else { return }
        keptLine = false
        let n = Double(points.count)
        // The slope leans on the expected period until the points span
        // enough periods to say better: each point is good to about a tenth
        // of a period, a part's clock to a few per cent, so two points one
        // period apart say nothing (extrapolated 30 periods, such a slope
        // numbered reads 10 samples behind the chip on a starved host).
        let fitted = (line.slope * line.sxx + expectedPeriod * Self.priorWeight) / (line.sxx + Self.priorWeight)
        slope = min(max(fitted, nominalPeriod * 0.85), nominalPeriod * 1.15)
        intercept = line.meanY - slope * line.meanX
        (meanSeq, sxx) = (line.meanX, line.sxx)
        let squares = points.reduce(0) { sum, p in
            let residual = p.t - (intercept + slope * p.seq)
            return sum + residual * residual
        }
        residualVariance = points.count > 2 ? squares / (n - 2) : 0
    }

    /// The standard error of the line's instant for sample `seq`: the
    /// points' scatter, growing with the distance from them (a long stall
    /// extrapolates the coarse batched measurements' slope error far).
    func standardError(at seq: Double) -> Double {
        guard points.count > 2, sxx > 0 else { return 0 }
        return (residualVariance * (1 / Double(points.count) + (seq - meanSeq) * (seq - meanSeq) / sxx)).squareRoot()
    }

    func instant(of seq: UInt64) -> Double { intercept + slope * Double(seq) }

    /// The sequence number of the newest sample made by `t`, counting one
    /// due within `lead` periods after it as made.
    func newest(at t: Double, lead: Double = 0.05) -> Int64 { Int64(((t - intercept) / slope + lead).rounded(.down)) }
}
