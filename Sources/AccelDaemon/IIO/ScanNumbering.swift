// SPDX-License-Identifier: Apache-2.0
/// Which sample each IIO scan is, from the kernel's timestamps, so that a
/// gap counts exactly the samples missing. A timestamp is taken when the
/// interrupt is handled: never before its sample was made, often after
/// (a busy CPU), so the scans are laid on a grid of the chip's periods
/// that follows the earliest timestamps, and a scan up to 0.7 of a period
/// late is still the next sample. The period is learnt from the stream:
/// a chip's clock is off its nominal rate by a few per cent, which would
/// otherwise turn into a false gap every few dozen samples.
public struct ScanNumbering: Sendable, Equatable {
    /// The chip's period as measured, ns.
    public private(set) var period: Double
    private let nominal: Double
    /// The grid's instant of the previous sample, and its timestamp.
    private var grid: Double?
    private var last: Double = 0
    private var measurements = 0

    public init(rate: Int) {
        nominal = 1e9 / Double(rate)
        period = nominal
    }

    /// Samples missing between the previous scan and this one (0 when it
    /// follows on; the first scan follows on, and so does one stamped
    /// before the previous, a clock step).
    public mutating func missing(before timestamp: Int64) -> Int {
        let t = Double(timestamp)
        defer { last = t }
        guard let previous = grid, t > last else {
            grid = t
            return 0
        }
        let steps = max(1, Int(((t - previous) / period + 0.3).rounded(.down)))
        if steps <= 2 {
            // Intervals between late stamps still sum to the true time.
            // A running mean at first, then a slow average.
            let measured = (t - last) / Double(steps)
            measurements += 1
            period = min(max(period + (measured - period) / Double(min(measurements, 64)), nominal * 0.8), nominal * 1.2)
        }
        let predicted = previous + Double(steps) * period
        // An earlier stamp than the grid says means the grid is late; a
        // later one pulls it a little (its lateness may be the CPU's).
        grid = t < predicted ? t : predicted + (t - predicted) / 16
        return steps - 1
    }

    /// Forget the previous scan (the device was set up at another rate).
    public mutating func restart(rate: Int) { self = ScanNumbering(rate: rate) }
}
