// SPDX-License-Identifier: Apache-2.0
/// Never a sample that was not made. A read whose data-ready bit is set
/// when the published rate would pass the ODR plus the datasheet's
/// tolerance is not published: a token bucket that refills at that rate
/// and holds three samples' worth of jitter, so it works without a fit of
/// the chip's clock, which a bit stuck from the start never gives. (Judging
/// single reads by the fit also rejected the probes' honest early finds
/// when the timer ran late, and cost half the samples of a 10-minute run
/// at 400 Hz.) Three rejected reads within two seconds mean the bit is
/// stuck at 1 (as on i2c-stub): reads are then paced at the ODR, each
/// publishing at most the one sample the chip's clock says is new, until
/// an empty read shows the bit working again.
///
/// Instants are nanoseconds on the sampler's clock.
struct DataReadyGuard {
    enum Verdict: Equatable {
        case publish
        /// Not a sample the chip can have made: read again at `nextRead`.
        case reject(nextRead: Double)
        /// Rejected, and the bit is now taken as stuck: pacing begins.
        case stuck(nextRead: Double)
    }

    private(set) var isPacing = false
    private var rejections: [UInt64] = []
    private var pacedReads = 0
    /// When the last published sample was read.
    private var lastAccepted: UInt64?
    /// Paced without a fit: the next nominal sample instant, a grid one
    /// nominal period apart.
    private var grid: Double?
    private var tokens = 3.0
    private var tokensAt: UInt64 = 0

    /// The chip starts a new clock (configured, reset): forget everything.
    mutating func reset() { self = DataReadyGuard() }

    /// Judges a read at `now` whose data-ready bit is set. `fittedDue`: the
    /// next sample's instant by a fit good enough to pace by (nil without).
    mutating func judge(at now: UInt64, fittedDue: Double?, rate: Int, tolerance: Double, margin: Double) -> Verdict {
        let nominal = 1e9 / Double(rate)
        let due = fittedDue ?? grid ?? Double(lastAccepted ?? now) + nominal
        let ceiling = Double(rate) * (1 + tolerance)
        tokens = min(3, tokens + Double(now &- tokensAt) / 1e9 * ceiling)
        tokensAt = now
        if isPacing {
            // Every 40th paced read comes half a period early: a working
            // bit reads 0 there (`sawEmpty` ends the pacing); a stuck one
            // is rejected like any early read.
            guard Double(now) >= due && tokens >= 1 else {
                return .reject(nextRead: nextPacedRead(now: now, fittedDue: fittedDue, period: nominal, margin: margin))
            }
            tokens -= 1
            if fittedDue == nil, var next = grid {
                while next <= Double(now) { next += nominal }
                grid = next
            }
            lastAccepted = now
            return .publish
        }
        // A healthy chip never empties the bucket (it makes at most the
        // ODR plus its tolerance), so outside pacing only the bucket rejects.
        guard tokens < 1 else {
            tokens = max(tokens - 1, 0)
            lastAccepted = now
            return .publish
        }
        rejections = (rejections + [now]).suffix(3)
        guard rejections.count == 3, now - rejections[0] < 2_000_000_000 else { return .reject(nextRead: due + margin) }
        isPacing = true
        pacedReads = 0
        grid = Double(lastAccepted ?? now) + nominal
        return .stuck(nextRead: due + margin)
    }

    /// The next paced read: just after the next sample is due (by the fit,
    /// else the nominal grid), and every 40th half a period before it, to
    /// see whether the bit works again.
    mutating func nextPacedRead(now: UInt64, fittedDue: Double?, period: Double, margin: Double) -> Double {
        pacedReads += 1
        let due = fittedDue ?? grid ?? Double(now)
        return pacedReads % 40 == 0 ? due - 0.5 * period : due + margin
    }

    /// An empty read: the bit clears, so it works. True when that ends pacing.
    mutating func sawEmpty() -> Bool {
        guard isPacing else { return false }
        isPacing = false
        rejections.removeAll()
        return true
    }
}
