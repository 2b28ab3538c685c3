// SPDX-License-Identifier: Apache-2.0

/// The chip's sample clock as its INT pin tells it: every rising edge is
/// a sample's instant (the kernel stamps it in its interrupt handler), so
/// the instants between and after edges lie on a grid of the chip's own
/// period, measured from the edges rather than assumed from the datasheet
/// (the family's clocks run up to 10 % off nominal).
///
/// A read that starts at `t` holds the newest sample made by `t`: the one
/// at the last edge when the read was prompt, a later one when the read
/// came a period or more after it (a latched data-ready pin then makes no
/// edge for the samples it missed, and an overrun says they were lost).
/// Near a sample's instant that extrapolation cannot tell which (the
/// transfer takes time, the stamps jitter): the sampler then waits for the
/// next edge, which comes a period after the sample the read held.
struct EdgeClock {
    /// The measured period, ns.
    private(set) var period: Double
    /// The grid instant of the last edge's sample, ns.
    private(set) var anchor: Double?
    /// The last edge's own stamp, ns.
    private(set) var lastEdge: UInt64?
    /// Edges that came sooner than the chip can make samples (a line
    /// shared with another chip, or ringing): not taken as instants.
    private(set) var impossibleEdges = 0
    private let nominal: Double
    /// The stamps' median lateness behind the grid, ns.
    private var lateness = 0.0
    /// The last edges: which sample each told of (counted from the first
    /// edge) and its stamp. The grid is fitted through them.
    private var points: [(sample: Double, stamp: Double)] = []
    private var next = 0
    private static let window = 64

    /// - Parameter rate: the chip's nominal output data rate, Hz.
    init(rate: Int) {
        nominal = 1e9 / Double(rate)
        period = nominal
    }

    /// Takes an edge stamped `instant` (ns) whose sample is not known from
    /// the data (the first after a read that found samples overwritten);
    /// returns the grid instant of the sample it tells of, or nil for an
    /// edge the chip cannot have made (within 90 % of a period of the last).
    ///
    /// A stamp is never early, only late: the kernel takes it when the
    /// interrupt is handled (microseconds on a board, up to a period in an
    /// emulated guest whose timer fires late). So the sample is the grid
    /// instant nearest the stamp less the typical lateness, and the grid is the line through the
    /// earlier half of the last 64 stamps (a least-squares fit, then again
    /// through the points at or below it): the period is its slope.
    /// `firstSample` numbers the edge when the clock has none yet.
    @discardableResult
    mutating func edge(at instant: UInt64, firstSample: UInt64 = 0) -> Double? {
        let stamp = Double(instant)
        guard let anchor, !points.isEmpty else {
            self.anchor = stamp
            lastEdge = instant
            add(sample: Double(firstSample), stamp: stamp)
            return stamp
        }
        // Which sample: the last grid instant before the stamp less the
        // typical lateness (a tenth of a period's slack for a stamp earlier
        // than typical).
        let steps = ((stamp - lateness - anchor) / period + 0.1).rounded(.down)
        guard steps >= 1 else {
            impossibleEdges += 1
            return nil
        }
        lastEdge = instant
        guard steps <= 4 else {
            // Too far to count by time for sure: the grid starts again from
            // this edge, with the period it has.
            let sample = latest.sample + steps
            points = [(sample, stamp)]
            next = 1 % Self.window
            self.anchor = stamp
            return stamp
        }
        add(sample: latest.sample + steps, stamp: stamp)
        // The grid's own prediction, until a fit says better.
        self.anchor = min(anchor + steps * period, stamp)
        fit()
        return self.anchor
    }

    /// Takes an edge stamped `instant` that told of sample number `sample`,
    /// known from the data (a FIFO's watermark edge: the sample that filled
    /// it to the watermark), and returns that sample's grid instant. Where
    /// edges are many samples apart, counting beats guessing from time: at
    /// a watermark of 18, a clock 10 % off nominal is off by two samples.
    @discardableResult
    mutating func edge(at instant: UInt64, sample: UInt64) -> Double? {
        let stamp = Double(instant)
        if let last = points.isEmpty ? nil : latest, Double(sample) <= last.sample {
            impossibleEdges += 1
            return nil
        }
        add(sample: Double(sample), stamp: stamp)
        anchor = anchor.map { min($0 + (Double(sample) - (points.count > 1 ? previous.sample : Double(sample))) * period, stamp) } ?? stamp
        fit()
        lastEdge = instant
        return anchor
    }

    /// Sample `sample`'s grid instant, where the edges numbered by their
    /// samples (`edge(at:sample:)`) put it; nil before the first.
    func instant(ofSample sample: UInt64) -> Double? {
        guard let anchor, !points.isEmpty else { return nil }
        return anchor + (Double(sample) - latest.sample) * period
    }

    /// The instant of the newest sample made by `readStart` (ns), on the
    /// grid; nil before the first edge.
    func newest(at readStart: UInt64) -> Double? {
        guard let anchor else { return nil }
        let periods = max(0, ((Double(readStart) - anchor) / period).rounded(.down))
        return anchor + periods * period
    }

    private var latest: (sample: Double, stamp: Double) { points[(next + points.count - 1) % points.count] }
    private var previous: (sample: Double, stamp: Double) { points[(next + points.count - 2) % points.count] }

    private mutating func add(sample: Double, stamp: Double) {
        if points.count < Self.window { points.append((sample, stamp)) } else { points[next] = (sample, stamp) }
        next = (next + 1) % Self.window
    }

    /// The line through the earlier half of the points; its value at the
    /// latest point's sample is the anchor.
    private mutating func fit() {
        guard var line = Self.line(through: points) else { return }
        let residuals = points.map { $0.stamp - line.value(at: $0.sample) }.sorted()
        let median = residuals[residuals.count / 2]
        let early = points.filter { $0.stamp - line.value(at: $0.sample) <= median }
        if let refined = Self.line(through: early) { line = refined }
        guard abs(line.slope / nominal - 1) < 0.15 else { return }
        period = line.slope
        anchor = line.value(at: latest.sample)
        lateness = max(0, points.map { $0.stamp - line.value(at: $0.sample) }.sorted()[points.count / 2])
    }

    private static func line(through points: [(sample: Double, stamp: Double)]) -> LeastSquaresLine? {
        LeastSquaresLine(points, x: { $0.sample }, y: { $0.stamp })
    }
}
