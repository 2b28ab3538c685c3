// SPDX-License-Identifier: Apache-2.0

/// What every read of the chip leaves behind, whichever pacing made it
/// (the timer, the INT line, a FIFO's watermark): the same bookkeeping,
/// written once. When the chip was last read and whether it had data (an
/// empty read followed by one with data brackets the sample's instant),
/// the last sample's instant, how many reads in a row found nothing and
/// whether that was said (stalled), and whether the next sample's number
/// must come from the clock.
struct ReadTrack {
    /// Estimated instant of the last published sample (ns).
    var lastInstant: Double?
    /// When the chip was last read, with or without data.
    var lastPoll: UInt64 = 0
    var pollWasEmpty = false
    /// Reads in a row that found no sample, and whether `stalled` was said.
    var emptyStreak = 0
    var stalledAnnounced = false
    /// After a reset or an outage, the next sample's number comes from
    /// elapsed time even without an overrun flag.
    var resynchronise = false

    /// A read found no sample.
    mutating func foundNothing() {
        pollWasEmpty = true
        emptyStreak += 1
    }

    /// A read found samples: whatever was stalled no longer is.
    mutating func foundSamples() {
        emptyStreak = 0
        stalledAnnounced = false
    }
}
