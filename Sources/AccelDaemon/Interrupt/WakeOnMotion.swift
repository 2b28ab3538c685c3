// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// [power] wake-on-motion as a policy, apart from the reads: when acceld
/// may hand the watching to the chip's wake-up unit (the board still for
/// long enough, no client watching frames), and how long it slept.
public struct WakeOnMotion: Sendable {
    public let stillNanoseconds: UInt64
    /// Motion that counts, g: user acceleration (gravity out) over it
    /// restarts the still time, as it would wake the chip.
    public let threshold: Double
    /// Some client watches frames: acceld stays awake for it.
    var framesWatched = false
    private var stillSince: UInt64?
    private(set) var asleepSince: UInt64?
    /// The instant (ns) of the last sample before the sleep and the
    /// chip's period as measured then, until the first after it is numbered.
    private var lastBeforeSleep: (instant: Double, period: Double)?

    public init(stillSeconds: Double, threshold: Double) {
        stillNanoseconds = UInt64(stillSeconds * 1e9)
        self.threshold = threshold
    }

    var asleep: Bool { asleepSince != nil }

    /// A sample made at `instant` (ns) whose user acceleration is `user` g.
    mutating func observe(user: Double, at instant: UInt64) {
        if user > threshold { stillSince = nil } else if stillSince == nil { stillSince = instant }
    }

    func shouldSleep(at now: UInt64) -> Bool {
        guard !asleep, !framesWatched, let stillSince else { return false }
        return now >= stillSince + stillNanoseconds
    }

    mutating func fellAsleep(at now: UInt64, after lastInstant: Double?, period: Double) {
        asleepSince = now
        lastBeforeSleep = lastInstant.map { ($0, period) }
    }

    /// Where the numbering goes on after the sleep, the chip making
    /// samples at its rate again from `instant` (ns): the periods slept
    /// since the last sample before it (none lost: the chip made none at
    /// this rate), and the grid instant of the last of them, which stands
    /// as the last sample published; nil without a sample before it.
    func numbering(resumingAt instant: Double) -> (skipped: UInt64, last: Double)? {
        guard let last = lastBeforeSleep else { return nil }
        let skipped = max(0, ((instant - last.instant) / last.period).rounded(.down))
        return (UInt64(skipped), last.instant + skipped * last.period)
    }

    /// Where the numbering goes on when the chip sampled on at its rate
    /// into its FIFO while asleep and `count` samples were read from it, the
    /// newest made by `readStart` (ns) on the grid of the last sample before
    /// the sleep: the periods before them (samples the full FIFO let go: not
    /// lost, acceld slept), and the grid instant of the last of those.
    func numbering(keeping count: Int, readAt readStart: Double) -> (skipped: UInt64, last: Double)? {
        guard let last = lastBeforeSleep else { return nil }
        let newest = ((readStart - last.instant) / last.period).rounded(.down)
        let skipped = max(0, newest - Double(count))
        return (UInt64(skipped), last.instant + skipped * last.period)
    }

    /// Edges stamped before the unit was armed (its filter reset) tell of
    /// gravity, not motion: the ones of `edges` after it.
    func wakeUpEdges(_ edges: [Edge]) -> [Edge] {
        guard let asleepSince else { return edges }
        return edges.filter { $0.instant >= asleepSince }
    }

    /// Ends the sleep; returns how long it lasted, ns. The still time
    /// starts again from the samples after it.
    mutating func wokeUp(at now: UInt64) -> UInt64 {
        defer { asleepSince = nil; stillSince = nil; lastBeforeSleep = nil }
        return asleepSince.map { now >= $0 ? now - $0 : 0 } ?? 0
    }
}
