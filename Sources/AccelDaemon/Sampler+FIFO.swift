// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

/// Sampling a part with a FIFO, in stream mode: its status (FIFO_SRC, or
/// the six-axis parts' FIFO_STATUS registers) says how many samples wait,
/// one transfer reads them all. With watermark 1 the reads follow the
/// phase lock, one sample a read; with more, the sampler wakes about once
/// per watermark (`fifoInterval`).
extension Sampler {
    /// The grid of batched wakes (FIFOReader.interval).
    var fifoInterval: UInt64 {
        FIFOReader.interval(watermark: driver?.fifoWatermark ?? 1, period: period)
    }

    /// One batched wake: the next is `fifoInterval` later, or sooner when
    /// an overflowed read waits for the next to number it.
    func stepFIFO(_ now: UInt64) throws -> UInt64 {
        let published = try drainFIFO(now)
        if let held = fifo.held { return delay(until: held.decideAt, from: now) }
        return published ? fifoInterval : UInt64(period)
    }

    /// One read in FIFO stream mode for clients that want each sample at
    /// once: phase-locked like a read of the output registers, one sample a
    /// read, but what a late wake finds waiting in the FIFO is published
    /// too, numbered exactly (the FIFO keeps them in order), so a stall
    /// shorter than the FIFO loses nothing. An overflow, or a read after a
    /// recovery, is numbered by the clock as a batch is.
    func stepFIFOAtOnce(_ now: UInt64) throws -> UInt64 {
        guard let status = try readFIFOStatus() else { return UInt64(timing.phase.nudge) }
        defer { track.lastPoll = now }
        if status.overrun || track.resynchronise || fifo.held != nil {
            _ = try drainFIFO(now, status: status)
            if let held = fifo.held { return delay(until: held.decideAt, from: now) }
            guard timing.phase.fit.isUsable else { return UInt64(period) }
            return delay(until: timing.phase.fit.instant(of: seq) + timing.phase.margin, from: now)
        }
        guard status.level > 0 else {
            return try handleEmpty(now)
        }
        try fifo.read(status.level, from: driver!)
        track.foundSamples()
        let samples = fifo.samples
        if samples.count > 1 {
            // What a late read found before the newest: the next samples in
            // order. Without a fit, the newest was made within the period
            // before this read, each earlier one a period before it (a chain
            // from the last instant ran past the read after a late start).
            let waiting = samples.count
            deliverInOrder(samples.dropLast()) { index in
                timing.phase.fit.isUsable ? timing.phase.fit.instant(of: seq) : Double(now) - period * (Double(waiting - 1 - index) + 0.5)
            }
        }
        let instant = publish(samples[samples.count - 1], at: now, late: samples.count > 1)
        track.pollWasEmpty = false
        return delay(until: timing.phase.nextRead(after: instant, seq: seq), from: now)
    }

    /// FIFO_SRC; nil (counted as a bus error) when it contradicts itself:
    /// nothing is published from it, and the next read comes soon.
    private func readFIFOStatus() throws -> Accelerometer.FIFOStatus? {
        do { return try driver!.readFIFOStatus() } catch let error as Accelerometer.FIFOStatusError {
            publisher.counters.busErrors += 1
            logger.warning("\(error)")
            return nil
        }
    }

    /// Reads and publishes every sample the FIFO holds (`known`: its
    /// FIFO_SRC, already read); false when there was none, or the read is
    /// held for the next one to number.
    private func drainFIFO(_ now: UInt64, status known: Accelerometer.FIFOStatus? = nil) throws -> Bool {
        guard let status = try known ?? readFIFOStatus() else { return false }
        let after = time.nanoseconds
        // After a recovery the next samples need not follow the held ones.
        releaseHeldFIFO(decidedBy: status.overrun || track.resynchronise ? nil : (now, after, status.level))
        guard status.level > 0 else {
            _ = try handleEmpty(now)
            return false
        }
        try fifo.read(status.level, from: driver!)
        track.foundSamples()
        guard status.overrun || track.resynchronise else {
            publish(FIFOReader.Batch(samples: fifo.samples, first: seq, readAt: now, readUntil: after))
            return true
        }
        publisher.counters.overruns += status.overrun ? 1 : 0
        track.resynchronise = false
        guard let batch = fifo.numberAfterGap(readAt: now, until: after, next: seq, lock: timing.phase, lastInstant: track.lastInstant) else { return false }
        publish(batch)
        return true
    }

    /// Publishes a held read, numbered by the read after it (nil: that one
    /// cannot say).
    func releaseHeldFIFO(decidedBy next: (now: UInt64, after: UInt64, level: Int)?) {
        if let batch = fifo.releaseHeld(decidedBy: next, next: seq, lock: timing.phase) { publish(batch) }
    }

    /// Publishes a batch's samples as `first`, `first + 1`, ... (samples
    /// skipped before `first` are counted lost).
    private func publish(_ batch: FIFOReader.Batch) {
        publisher.counters.lost += Int(batch.first - seq)
        seq = batch.first
        let count = batch.samples.count
        // The newest sample was made in the period before the read: a
        // coarse measurement that batched wakes average out (their phase
        // walks); reads at once measure the phase precisely instead
        // (`publish(_:at:)`), and one such point per overflow would only blur it.
        if driver!.fifoWatermark > 1 {
            timing.phase.add(seq: batch.first + UInt64(count) - 1, at: Double(batch.readAt + batch.readUntil) / 2 - period / 2)
        }
        deliverInOrder(batch.samples[...]) { index in
            timing.phase.fit.count >= 4 ? timing.phase.fit.instant(of: seq) : Double(batch.readAt) - period * (Double(count - index) - 0.5)
        }
    }

    /// Delivers `samples` as the next ones in order, the one at `index`
    /// made at `instant(index)`, in one hand-off.
    func deliverInOrder(_ samples: ArraySlice<Reading>, instant: (Int) -> Double) {
        var deliveries: [Delivery] = []
        deliveries.reserveCapacity(samples.count)
        for (index, sample) in samples.enumerated() {
            deliveries.append(deliver(sample.counts, rotation: sample.rotation, instant: instant(index)))
        }
        send(.batch(deliveries))
    }

    /// Applies the latency the most demanding client allows (nil: no
    /// batching); a new watermark goes out with the configuration.
    /// Returns the watermark now in effect. Call on `queue`.
    @discardableResult
    public func allowLatency(milliseconds: Double?) throws -> Int {
        assertOnLoop()
        latency = milliseconds
        defer { if holdLimit == nil { publisher.release() } }
        guard let driver else { return 0 }
        let watermark = fifoWatermark(rate: configuration.rate, driver: driver)
        guard watermark != configuration.fifoWatermark else { return watermark }
        releaseHeldFIFO(decidedBy: nil)
        configuration.fifoWatermark = watermark
        send(.configuration(configuration))
        guard pacing.wakeOnMotion?.asleep != true else { return watermark }  // the wake-up configures it
        // The FIFO stays in stream mode: its samples follow on in order,
        // whatever the watermark, and the next read reads them all.
        try driver.setFIFOWatermark(watermark)
        return watermark
    }
}
