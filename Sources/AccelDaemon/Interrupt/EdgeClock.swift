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
    /// The last edge's instant, ns.
    private(set) var lastEdge: UInt64?
    /// Edges that came sooner than the chip can make samples (a line
    /// shared with another chip, or ringing): not taken as instants.
    private(set) var impossibleEdges = 0
    private let nominal: Double
    private var intervals = 0

    /// - Parameter rate: the chip's nominal output data rate, Hz.
    init(rate: Int) {
        nominal = 1e9 / Double(rate)
        period = nominal
    }

    /// Takes an edge at `instant` (ns). Returns false for an edge the chip
    /// cannot have made (less than 60 % of a period after the last one).
    @discardableResult
    mutating func edge(at instant: UInt64) -> Bool {
        guard let last = lastEdge else {
            lastEdge = instant
            return true
        }
        let elapsed = Double(instant) - Double(last)
        guard elapsed >= 0.6 * period else {
            impossibleEdges += 1
            return false
        }
        // An interval of k periods measures the period k times over: a
        // long one (after a late read) is as good as a short one. The
        // weight falls to 1/32 so that one late stamp moves it little.
        let periods = (elapsed / period).rounded()
        if periods <= 64 {
            intervals += 1
            let measured = elapsed / periods
            if abs(measured / nominal - 1) < 0.15 {
                period += (measured - period) / Double(min(intervals, 32))
            }
        }
        lastEdge = instant
        return true
    }

    /// The instant of the newest sample made by `readStart` (ns), on the
    /// grid through the last edge; nil before the first edge.
    func newest(at readStart: UInt64) -> Double? {
        guard let last = lastEdge else { return nil }
        let elapsed = Double(readStart) - Double(last)
        let periods = max(0, (elapsed / period).rounded(.down))
        return Double(last) + periods * period
    }
}
