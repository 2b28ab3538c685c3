// SPDX-License-Identifier: Apache-2.0
/// Which sample each IIO scan is, from the kernel's timestamps: the gap
/// to the previous scan in the chip's periods. The period is learnt from
/// the stream (a chip's clock is off its nominal rate by a few per cent,
/// which would otherwise turn into a false gap every few dozen samples),
/// so that a gap counts exactly the samples missing.
public struct ScanNumbering: Sendable, Equatable {
    /// The chip's period as measured, ns.
    public private(set) var period: Double
    private let nominal: Double
    private var last: Int64?

    public init(rate: Int) {
        nominal = 1e9 / Double(rate)
        period = nominal
    }

    /// Samples missing between the previous scan and this one (0 when it
    /// follows on). The first scan follows on; so does a scan whose
    /// timestamp is not after the previous one (a clock step).
    public mutating func missing(before timestamp: Int64) -> Int {
        defer { last = timestamp }
        guard let last, timestamp > last else { return 0 }
        let elapsed = Double(timestamp - last)
        let steps = max(1, Int((elapsed / period).rounded()))
        // Learn only from intervals that are plainly one or two periods:
        // a long outage says little about the chip's clock.
        if steps <= 2 {
            let measured = elapsed / Double(steps)
            period = min(max(period + (measured - period) / 32, nominal * 0.8), nominal * 1.2)
        }
        return steps - 1
    }

    /// Forget the previous scan (the device was set up again).
    public mutating func restart(rate: Int) { self = ScanNumbering(rate: rate) }
}
