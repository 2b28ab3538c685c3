// SPDX-License-Identifier: Apache-2.0
import AccelDriver

/// Which sample a read after a gap holds, when the fitted clock cannot say.
extension Sampler {
    /// After a gap (overrun, outage) the fitted clock says which sample is
    /// the newest at the read. But the transaction happened somewhere
    /// between `now` and `after`: a thread preempted there (a starved host)
    /// widens that to periods, and near a sample's instant even a short
    /// read can hold either of two. When the window, widened by the fit's
    /// error, spans more than one candidate, the read is held undecided and
    /// the reads after it narrow the candidates (`settle`). Returns the
    /// delay to the next read, or nil to publish now.
    /// (Numbering by `now` alone labelled a read preempted for periods
    /// before its transaction with a sample periods too old; the fit then
    /// learnt the wrong numbers, and stamped every later sample ahead of
    /// its number.)
    func deferIfAmbiguous(_ reading: Reading, from now: UInt64, to after: UInt64) -> UInt64? {
        guard reading.status.contains(.overrun) || track.resynchronise, !timing.dataReady.isPacing,
              let (earliest, latest) = timing.phase.newestCandidates(now, after) else { return nil }
        let first = max(Int64(seq), earliest), last = max(Int64(seq), latest)
        guard last > first else { return nil }
        timing.undecided = Undecided(reads: [HeldRead(reading: reading, at: now, through: after)], earliest: first, latest: last)
        track.pollWasEmpty = false
        return decidingRead(from: now, after)
    }

    /// The next read that can narrow the candidates: the first instant,
    /// after this read's transaction and the timer's shortest delay, that
    /// the fit places clearly between two samples.
    private func decidingRead(from now: UInt64, _ after: UInt64) -> UInt64 {
        delay(until: timing.phase.clearInstant(from: max(Double(after), Double(now) + period / 10)), from: now)
    }

    /// What the read made between `now` and `after` says of the held ones,
    /// whose newest is sample `first + n - 1` for some `first` among the
    /// candidates. Finding nothing, that newest is the newest by the read's
    /// own candidates; finding one sample (no overrun), the read's is the
    /// one after it, and it joins the held reads; finding an overrun, the
    /// newest is at least two before the read's latest. One `first` left:
    /// the held reads are published as numbered. Several: they wait for
    /// the next clear instant, up to four reads; then (or when the read
    /// overran) they take the middle candidate. Returns the delay to the
    /// next read while they wait; nil when the read goes on as any other.
    func settle(_ held: Undecided, by reading: Reading, _ now: UInt64, _ after: UInt64) -> UInt64? {
        timing.undecided = nil
        var first = held.earliest, last = held.latest
        let fresh = reading.status.contains(.dataReady), overrun = reading.status.contains(.overrun)
        if let (low, high) = timing.phase.newestCandidates(now, after) {
            let newest = Int64(held.reads.count) - 1, shift: Int64 = !fresh ? 0 : overrun ? 2 : 1
            if !overrun { first = max(first, low - shift - newest) }
            last = min(last, high - shift - newest)
            if first > last { (first, last) = (held.earliest, held.latest) }  // the fit is off: what the held reads allowed
        }
        if first < last && !overrun && held.reads.count + held.waits < 4 {
            var waiting = Undecided(reads: held.reads, earliest: first, latest: last, waits: held.waits)
            if fresh { waiting.reads.append(HeldRead(reading: reading, at: now, through: after)) } else { waiting.waits += 1 }
            timing.undecided = waiting
            return decidingRead(from: now, after)
        }
        if first < last { publisher.counters.guessedNumbers += 1 }
        let number = UInt64(first + (last - first) / 2)
        for (offset, read) in held.reads.enumerated() {
            publish(read.reading, at: read.at, through: read.through, as: number + UInt64(offset))
        }
        return nil
    }
}

/// A read whose transaction came between `at` and `through`.
struct HeldRead {
    let reading: Reading
    let at: UInt64
    let through: UInt64
}

/// Reads after a gap, each the sample after the one before, the first of
/// them any sample from `earliest` to `latest`; `waits`: the reads since
/// that found nothing and decided nothing.
struct Undecided {
    var reads: [HeldRead]
    var earliest: Int64
    var latest: Int64
    var waits = 0
}
