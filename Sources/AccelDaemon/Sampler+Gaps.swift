// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// Which sample a read after a gap holds, when the fitted clock cannot say.
extension Sampler {
    /// After a gap (overrun, outage) the fitted clock says which sample is
    /// the newest at the read. When the read (its transfer, widened by the
    /// fit's error) spans a sample's instant, that can be either of two:
    /// the read is held, undecided, and the next one comes a quarter
    /// period after that instant. Returns that delay, or nil to publish now.
    /// (Rounding toward the later numbered a sample one ahead of the chip
    /// after a SIGSTOP in the kernel stage, and counted one lost too many.)
    func deferIfAmbiguous(_ reading: Reading, from now: UInt64, to after: UInt64) -> UInt64? {
        guard reading.status.contains(.overrun) || track.resynchronise, !timing.dataReady.isPacing, timing.phase.fit.count >= 4,
              let (earliest, latest) = timing.phase.newestCandidates(now, after) else { return nil }
        let first = max(Int64(seq), earliest)
        guard max(Int64(seq), latest) > first else { return nil }
        timing.undecided = (reading, now, UInt64(first))
        return delay(until: timing.phase.fit.instant(of: UInt64(first + 1)) + period / 4, from: now)
    }

    /// The read after an undecided one. Made between the later candidate's
    /// instant and the next sample's (by the fit, with its error), it finds
    /// nothing new when the held read already had the later candidate, and
    /// that one when it had the earlier. A read outside that window (a late
    /// wake) decides nothing: the held read then takes the nearer guess.
    func decide(_ held: (reading: Reading, at: UInt64, earlier: UInt64), by reading: Reading, _ now: UInt64) -> UInt64 {
        timing.undecided = nil
        let fit = timing.phase.fit
        let later = held.earlier + 1, error = 0.08 * period
        let inWindow = Double(now) > fit.instant(of: later) + error && Double(now) < fit.instant(of: later + 1) - error
        let fresh = reading.status.contains(.dataReady)
        let number: UInt64
        if inWindow && !reading.status.contains(.overrun) {
            number = fresh ? held.earlier : later
        } else {
            number = UInt64(max(Int64(held.earlier), min(Int64(later), fit.newest(at: Double(held.at), lead: 0))))
        }
        publish(held.reading, at: held.at, as: number)
        guard fresh else { return delay(until: timing.phase.fit.instant(of: seq) + timing.phase.margin, from: now) }
        track.pollWasEmpty = false
        let instant = publish(reading, at: now)
        return delay(until: timing.phase.nextRead(after: instant, seq: seq), from: now)
    }
}
