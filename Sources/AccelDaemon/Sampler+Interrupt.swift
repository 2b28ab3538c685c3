// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol

/// Interrupt-paced reads: the chip's INT pin says when a sample (or a
/// FIFO's watermark of them) is ready, and the edge's kernel timestamp
/// says when it was made. No probes, no phase lock: each edge is one
/// read, and each sample's instant is on the grid of edges (`EdgeClock`).
/// A read that came late, which a latched pin answers with no edge for the
/// samples in between, holds the newest sample by then: the instants say
/// how many were lost, and the chip's overrun bit agrees.
///
/// Runs on the thread that waits on the line (`InterruptThread`), inside
/// `queue`, so that requests still come between two reads.
extension Sampler {
    /// How long to wait for an edge before reading anyway: a pin left high
    /// by a read that missed a sample (its fall and rise both inside the
    /// read) makes no edge until it is read again.
    var edgeTimeout: UInt64 {
        let batch = Double(max(driver?.fifoWatermark ?? 0, 1))
        return UInt64(max(2.5 * batch * pacing.clock.period, 5e6))
    }

    /// One wake of the interrupt thread with the edges it found (none: the
    /// line was silent for `edgeTimeout`, or a request woke it); returns
    /// how long to wait for the next edge.
    func step(edges: [Edge]) -> UInt64 {
        var edges = edges
        if let keptReadAt = pacing.keptReadAt {
            // The routing's own edge, or those of samples read at the wake-up.
            edges.removeAll { $0.instant < keptReadAt }
        }
        if let readAt = pacing.readWithoutEdgeAt {
            // Edges of samples the last step's second read took.
            edges.removeAll { $0.instant < readAt }
            pacing.readWithoutEdgeAt = nil
        }
        let now = time.nanoseconds
        lastStepTime.store(now, ordering: .relaxed)
        if let wait = turningOn(now) { return wait }  // an edge meanwhile is of a sample not yet valid
        // Asleep, the thread still comes by once a second: the watchdog
        // (WATCHDOG=1) knows it alive, and nothing is read.
        if pacing.wakeOnMotion?.asleep == true { return stepAsleep(edges: edges, now) }
        publisher.counters.wakes += 1
        // An edge's sample is known from the data where it can be: a FIFO's
        // by the samples read (readFIFOOnEdge); data ready's is the one the
        // read finds, when the read finds no overrun (readOnEdge). Only the
        // first edge after a read that found samples overwritten is placed
        // by its time.
        let fifoPaced = (driver?.fifoWatermark ?? 0) > 0
        var edge = fifoPaced ? nil : edges.last
        if !fifoPaced { countSequence(edges) }
        if let held = pacing.overrunRead {
            // The first edge after a read is the sample after the one it held.
            pacing.overrunRead = nil
            let placed = edge.flatMap { pacing.clock.edge(at: $0.instant, firstSample: seq + 1) }
            edge = nil
            let instant = placed.map { $0 - pacing.clock.period } ?? pacing.clock.newest(at: held.at) ?? Double(held.at)
            publishAfterOverrun(held.reading, at: nextInstant(instant))
        }
        if recovery.isFailing || driver == nil { return recover(now) }
        guard !edges.isEmpty || now >= (pacing.clock.lastEdge ?? track.lastPoll) + edgeTimeout else { return edgeTimeout }
        do {
            defer { track.lastPoll = now }
            let published = counters.published
            if fifoPaced {
                try readFIFOOnEdge(now, edge: edges.last)
                // Samples that came during the read can keep the FIFO at its
                // watermark: the pin then never falls, and no edge comes.
                if (try? pacing.line?.level()) == true {
                    let readAt = time.nanoseconds
                    try readFIFOOnEdge(readAt, edge: nil)
                    pacing.readWithoutEdgeAt = readAt
                }
            } else {
                try readOnEdge(now, edge: edge)
            }
            judgeLine(edges: edges, found: counters.published > published || pacing.overrunRead != nil)
            return sleepIfStill(time.nanoseconds) ?? edgeTimeout
        } catch {
            return handleFailure(error, now)
        }
    }

    /// A line that stays silent while the chip has samples (stuck, or the
    /// pin's routing lost), or one that fires faster than the chip: said
    /// with the figures, then handled as a lost line (the timer stands in
    /// where allowed). The samples themselves are read all the same.
    private func judgeLine(edges: [Edge], found: Bool) {
        guard let line = pacing.line else { return }
        pacing.silentReads = edges.isEmpty && found ? pacing.silentReads + 1 : 0
        if pacing.silentReads >= 8 {
            pacing.silentReads = 0
            lineFault(.stuck(line: line.description, reads: 8, level: try? line.level()))
        } else if pacing.clock.impossibleEdges >= pacing.reportedImpossibleEdges * 2 + 8 {
            pacing.reportedImpossibleEdges = pacing.clock.impossibleEdges
            lineFault(.tooFast(line: line.description, edges: pacing.clock.impossibleEdges, rate: configuration.rate))
        }
    }

    /// A line that works but cannot be trusted: with interrupt-fallback =
    /// timer the timer paces the reads for good; without, the line keeps
    /// pacing them (a silent one by its timeout, each loss counted).
    /// Said once either way.
    private func lineFault(_ fault: GPIOError) {
        guard !pacing.lineFaultSaid else { return }
        pacing.lineFaultSaid = true
        if pacing.fallback {
            pacing.source = nil  // not tried again: it would fail the same way
            loseInterruptLine(fault)
            return
        }
        let message = "\(fault); reads go on at the line's pace (interrupt-fallback = timer would hand them to the timer)"
        logger.warning("\(message)")
        send(.device(DeviceEvent(state: .interruptLost, message: message)))
    }

    /// A jump in the line's sequence is edges the kernel's queue dropped
    /// while acceld was late (their samples are counted by the chip's
    /// overrun all the same).
    private func countSequence(_ edges: [Edge]) {
        for edge in edges {
            if let last = pacing.lastSequence, edge.sequence &- last > 1 { pacing.droppedEdges += Int(edge.sequence &- last - 1) }
            pacing.lastSequence = edge.sequence
        }
    }

    /// Data ready: the output registers hold the newest sample.
    private func readOnEdge(_ now: UInt64, edge: Edge?) throws {
        let reading = try driver!.read()
        guard reading.status.contains(.dataReady) else {
            _ = try handleEmpty(now)
            return
        }
        track.foundSamples()
        guard !reading.status.contains(.overrun) else {
            // Samples were overwritten: how many, the next edge will say.
            publisher.counters.overruns += 1
            pacing.overrunRead = (reading, now)
            return
        }
        // No overrun: the edge told of this very sample, number `seq`.
        if let edge { pacing.clock.edge(at: edge.instant, sample: seq) }
        let instant = pacing.clock.instant(ofSample: seq) ?? pacing.clock.newest(at: now) ?? Double(now)
        let delivery = deliver(reading.counts, rotation: reading.rotation, instant: nextInstant(instant))
        send(.frame(delivery.frame, delivery.events))
        track.resynchronise = false
    }

    /// A read that found samples overwritten, once its instant is known.
    private func publishAfterOverrun(_ reading: Reading, at instant: Double) {
        let delivery = deliver(reading.counts, rotation: reading.rotation, instant: instant, after: missing(before: instant))
        send(.frame(delivery.frame, delivery.events))
        track.resynchronise = false
    }

    /// The watermark (or the first sample, at a watermark of 1): every
    /// sample the FIFO holds. The edge told of the sample that filled the
    /// FIFO to the watermark, the watermark-th of those read (the oldest
    /// read was the oldest there), and that count, not the time between
    /// edges, places it on the grid; each sample's stamp is its grid instant.
    private func readFIFOOnEdge(_ now: UInt64, edge: Edge?) throws {
        let status = try driver!.readFIFOStatus()
        guard status.level > 0 else {
            _ = try handleEmpty(now)
            return
        }
        try fifo.read(status.level, from: driver!)
        track.foundSamples()
        // The samples a FIFO kept while asleep come first: the edge below
        // tells of a sample after them, which numbers them too.
        let kept = pacing.kept.count
        let samples = pacing.kept + fifo.samples
        pacing.kept = []
        pacing.keptReadAt = nil
        var missing: UInt64 = 0
        if status.overrun {
            // The FIFO overflowed: the time since the last sample says how many.
            publisher.counters.overruns += 1
            let newest = nextInstant(pacing.clock.newest(at: now) ?? Double(now), after: samples.count - 1)
            missing = self.missing(before: newest - Double(samples.count - 1) * pacing.clock.period)
        }
        let first = seq + missing
        if let edge, samples.count - kept >= driver!.fifoWatermark {
            countSequence([edge])
            pacing.clock.edge(at: edge.instant, sample: first + UInt64(kept + driver!.fifoWatermark - 1))
        }
        let fallback = nextInstant(pacing.clock.newest(at: now) ?? Double(now), after: samples.count - 1)
        var deliveries: [Delivery] = []
        deliveries.reserveCapacity(samples.count)
        for (index, sample) in samples.enumerated() {
            let instant = pacing.clock.instant(ofSample: first + UInt64(index))
                ?? fallback - Double(samples.count - 1 - index) * pacing.clock.period
            deliveries.append(deliver(sample.counts, rotation: sample.rotation, instant: instant, after: index == 0 ? missing : 0))
        }
        send(.batch(deliveries))
        track.resynchronise = false
    }

    /// `instant`, or, when the clock puts it (less `earlier` periods) no
    /// later than the last published sample (a read before the edge's
    /// sample was taken into the clock), the grid instant after that one.
    private func nextInstant(_ instant: Double, after earlier: Int = 0) -> Double {
        guard let last = track.lastInstant else { return instant }
        let period = pacing.clock.period
        let first = instant - Double(earlier) * period
        return first < last + period / 2 ? last + Double(earlier + 1) * period : instant
    }

    /// Samples the chip made between the last published one and `instant`:
    /// asked only after an overrun, since without one the chip kept every
    /// sample since the last read (the output registers' data ready, or the
    /// FIFO in stream mode), whatever a clock extrapolated over a long
    /// silence says.
    private func missing(before instant: Double) -> UInt64 {
        guard let last = track.lastInstant else { return 0 }
        return UInt64(max(0, ((instant - last) / pacing.clock.period).rounded() - 1))
    }
}
