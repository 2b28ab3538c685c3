// SPDX-License-Identifier: Apache-2.0
/// Which sample each IIO scan is, from the kernel's timestamps, so that a
/// gap counts exactly the samples missing. A timestamp is taken when the
/// interrupt is handled: never before its sample was made, often after
/// (a busy CPU), so the scans are laid on a grid of the chip's periods
/// that follows the earliest timestamps, and a scan up to 0.7 of a period
/// late is still the next sample. The period is learnt from the stream:
/// a chip's clock is off its nominal rate by a few per cent, which would
/// otherwise turn into a false gap every few dozen samples.
///
/// A stamp late by most of a period still looks like a gap, and only the
/// next stamp tells: on time, it comes less than half a period after the
/// late one. So a scan that seems to follow a gap is held (`number`) until
/// the next scan decides, or until `release` finds it waited long enough.
public struct ScanNumbering: Sendable {
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
        slot = predicted
        // An earlier stamp than the grid says means the grid is late; a
        // later one pulls it a little (its lateness may be the CPU's).
        grid = t < predicted ? t : predicted + (t - predicted) / 16
        return steps - 1
    }

    /// A scan held because its stamp suggests a gap, and the gap.
    private var held: (timestamp: Int64, missing: Int, slot: Double)?
    /// The grid's instant for the last scan numbered.
    private var slot = 0.0

    /// Numbers the scan stamped `timestamp`: the scans now decided, oldest
    /// first, each with the samples missing before it. Empty while it is held.
    public mutating func number(_ timestamp: Int64) -> [(timestamp: Int64, missing: Int)] {
        var decided: [(timestamp: Int64, missing: Int)] = []
        if let pending = held {
            held = nil
            // The next sample falls half a period or more before where the
            // held one's slot puts it: the held one was late, and its
            // lateness, not a sample, made the extra step.
            let late = Double(timestamp) < pending.slot + period / 2
            decided.append((pending.timestamp, late ? pending.missing - 1 : pending.missing))
        }
        let missing = missing(before: timestamp)
        if missing > 0 { held = (timestamp, missing, slot) } else { decided.append((timestamp, 0)) }
        return decided
    }

    /// Whether the scan stamped `timestamp` is the one held.
    public func isHolding(_ timestamp: Int64) -> Bool { held?.timestamp == timestamp }

    /// The held scan, once `now` (the same clock as the stamps) is two
    /// periods past it with no scan after it: its gap stands.
    public mutating func release(now: Int64) -> (timestamp: Int64, missing: Int)? {
        guard let pending = held, Double(now - pending.timestamp) > 2 * period else { return nil }
        held = nil
        return (pending.timestamp, pending.missing)
    }

    /// Forget the previous scan (the device was set up at another rate).
    public mutating func restart(rate: Int) { self = ScanNumbering(rate: rate) }
}
