// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// The FIFO's side of sampling: reading it out, and which samples a read
/// holds when that is in doubt. Normally the samples of a read follow the
/// last published one in order. After an overflow (stream mode dropped the
/// oldest) or a recovery, the batch instead ends with the newest sample
/// made by the time FIFO_SRC was read, by the fitted clock. When a
/// sample's instant falls within that read (widened by the fit's error),
/// the clock cannot say whether it made it: the batch is held, and the
/// next read, half a period after that instant, numbers it (its samples
/// came after the held ones). Guessing instead mislabelled 6 to 14 of 40
/// stall ends swept over a period.
struct FIFOReader {
    /// A read whose numbering waits for the next one.
    struct Held {
        let samples: [Reading]
        let readAt: UInt64
        let readUntil: UInt64
        /// The earliest the newest of `samples` can be.
        let earliest: Int64
        /// When the deciding read should come.
        let decideAt: Double
    }

    /// A read ready to publish: `samples` are `first`, `first + 1`, ...
    struct Batch {
        let samples: [Reading]
        let first: UInt64
        let readAt: UInt64
        let readUntil: UInt64
    }

    private(set) var held: Held?
    /// The last read's samples (kept to avoid an allocation per read).
    private(set) var samples: [Reading] = []

    /// Reads the oldest `count` samples into `samples`.
    mutating func read(_ count: Int, from driver: Accelerometer) throws {
        try driver.readFIFO(count: count, into: &samples)
    }

    /// Numbers `samples`, read between `now` and `after` after an overflow
    /// or a recovery, when `next` is the number the previous read left:
    /// the batch, or nil when it is held for the next read to decide.
    mutating func numberAfterGap(readAt now: UInt64, until after: UInt64, next: UInt64,
                                 lock: PhaseLock, lastInstant: Double?) -> Batch? {
        let level = Int64(samples.count)
        var first = next
        if let (earliest, latest) = lock.newestCandidates(now, after) {
            let earliest = max(earliest, Int64(next) + level - 1)
            guard max(latest, earliest) == earliest else {
                held = Held(samples: samples, readAt: now, readUntil: after, earliest: earliest,
                            decideAt: lock.fit.instant(of: UInt64(earliest + 1)) + lock.period / 2)
                return nil
            }
            first = UInt64(earliest - level + 1)
        } else if let lastInstant {
            let made = Int64((max(Double(now) - lastInstant, 0) / lock.period).rounded(.down))
            first = UInt64(max(Int64(next), Int64(next) - 1 + made - level + 1))
        }
        return Batch(samples: samples, first: first, readAt: now, readUntil: after)
    }

    /// The held read, numbered by the read after it (`decidedBy`: that
    /// read's window and level; nil when it cannot say, having overflowed
    /// too or come after a recovery): its newest sample is the one just
    /// before the deciding read's, else the nearer guess.
    mutating func releaseHeld(decidedBy next: (now: UInt64, after: UInt64, level: Int)?, next seq: UInt64, lock: PhaseLock) -> Batch? {
        guard let held else { return nil }
        self.held = nil
        var newest = held.earliest
        if let next, let (earliest, latest) = lock.newestCandidates(next.now, next.after), earliest == latest {
            newest = min(max(earliest - Int64(next.level), held.earliest), held.earliest + 1)
        } else if lock.fit.isUsable {
            newest = min(max(lock.fit.newest(at: Double(held.readAt + held.readUntil) / 2, lead: 0), held.earliest), held.earliest + 1)
        }
        let first = UInt64(max(Int64(seq), newest - Int64(held.samples.count) + 1))
        return Batch(samples: held.samples, first: first, readAt: held.readAt, readUntil: held.readUntil)
    }

    /// The FIFO watermark for a latency of `milliseconds` (nil: samples as
    /// they come). A part with a FIFO keeps it in stream mode whatever the
    /// clients ask, so that a host stall shorter than the FIFO loses
    /// nothing: watermark 1 reads each sample as it comes (and whatever a
    /// late read finds waiting), more batches them. The oldest sample of a
    /// batch waits a watermark's worth of periods plus up to a period of
    /// dither; the watermark leaves at least 10 ms of room for a late wake.
    /// `atLeast` is the bus's floor (BusBudget): at kHz rates a sample at a
    /// time costs more clocks in status reads and addressing than the
    /// samples themselves; where no watermark is enough, half the FIFO.
    /// 0: the part has no FIFO.
    static func watermark(latency milliseconds: Double?, rate: Int, profile: ChipProfile, atLeast floor: Int = 1) -> Int {
        guard let fifo = profile.fifo else { return 0 }
        let period = 1000 / Double(rate)
        let room = min(fifo.sampleDepth - max(4, Int((10 / period).rounded(.up))), fifo.watermarkLimit)
        let fits = milliseconds.map { Int((($0 - 1) / period).rounded(.down)) - 1 } ?? 1
        // The bus's floor outranks the room (below it the reads fall behind
        // anyway), up to half the FIFO: the other half is a late wake's.
        return max(1, min(fits, room), min(floor, fifo.sampleDepth / 2, fifo.watermarkLimit))
    }

    /// Batched wakes repeat every watermark less 0.382 periods: the timer
    /// is never re-armed (on Linux each re-arm costs libdispatch's manager
    /// thread two system calls, docs/PERFORMANCE.md), the oldest sample
    /// waits less than the watermark's worth, and the wakes walk over the
    /// sample period's phase in golden-ratio steps, so that the brackets
    /// "newest sample made before this read" average out to the chip's
    /// real phase in the fit.
    static func interval(watermark: Int, period: Double) -> UInt64 {
        UInt64((Double(max(watermark, 1)) - 0.381_966) * period)
    }
}
