// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// [power] wake-on-motion on the interrupt path: while the board is still
/// and no client watches frames, the chip's own wake-up unit watches
/// (ChipProfile+WakeUp.swift) and nothing is read; its edge on the same INT
/// line brings the reads back. A part without a FIFO watches at a slow
/// rate; one with a FIFO keeps its rate and its FIFO streaming, so that
/// the samples before and at the wake-up (a fall's start, the tap that
/// woke it) are published after it. Sequence numbers go on counting the
/// configured rate's periods across the sleep (numbered at the wake-up,
/// before the edge clock sees any edge), announced by `asleep` and
/// `awake`; none of them lost: acceld asked for none.
extension Sampler {
    /// The chip's configuration while it watches.
    func asleepConfiguration(_ driver: Accelerometer) -> DeviceConfiguration {
        var watching = configuration
        watching.wakeUp = DeviceConfiguration.WakeUpArming(threshold: pacing.wakeOnMotion?.threshold ?? 0.1)
        guard !keepsSamplesAsleep(driver) else { return watching }
        watching.rate = driver.profile.wakeUpRate
        watching.fifoWatermark = 0
        return watching
    }

    /// A part with a FIFO (in stream mode whenever it samples: FIFOReader)
    /// goes on filling it while asleep: only the pin's routing and the
    /// wake-up unit change, the rest stays as it runs. Not where the unit
    /// is on a slope filter (the LSM6DSL, LSM6DS3): it compares consecutive
    /// samples, so at the configured rate a slow motion moves too little
    /// between two of them (a 3 Hz, 0.5 g shake: 0.09 g a sample at 104 Hz,
    /// 0.36 g at 26 Hz); those watch at the slow rate, their FIFO off.
    func keepsSamplesAsleep(_ driver: Accelerometer) -> Bool {
        driver.fifoWatermark > 0 && driver.profile.wakeUp?.filter == .highPass
    }

    /// At start: a part that cannot watch on the wired pin stops acceld
    /// with the driver's own message (exit 78), not at the first sleep.
    func checkWakeOnMotion(_ driver: Accelerometer) throws {
        guard pacing.wakeOnMotion != nil else { return }
        _ = try driver.registerValues(for: asleepConfiguration(driver))
    }

    /// Called after each read on the line: hands over when it may; returns
    /// the wait for the line while asleep, nil while awake.
    func sleepIfStill(_ now: UInt64) -> UInt64? {
        guard let wake = pacing.wakeOnMotion, wake.shouldSleep(at: now), let driver else { return nil }
        let watching = asleepConfiguration(driver)
        do {
            publisher.release()
            // At the same rate only the unit and the routing change: no
            // turn-on, and a few transfers rather than the whole table.
            if watching.rate == configuration.rate { try driver.apply(watching) } else { try driver.configure(watching) }
            try driver.resetWakeUp()
            // The unit fired on gravity while armed before its filter's
            // reset: that edge is queued on the line, and not motion.
            _ = try pacing.line?.wait(nanoseconds: 0)
        } catch {
            logger.error("could not arm the chip's wake-up unit (\(error)); reads go on at \(configuration.rate) Hz")
            try? driver.configure(configuration)
            pacing.wakeOnMotion?.observe(user: .infinity, at: now)  // not again before another still time
            return nil
        }
        // Armed from now: an edge stamped before is the arming's own.
        let period = pacing.clock.period  // (read apart: the call below modifies `pacing`)
        pacing.wakeOnMotion?.fellAsleep(at: time.nanoseconds, after: track.lastInstant, period: period)
        publisher.counters.sleeps += 1
        let pin = configuration.interruptPin?.label ?? "INT1"
        let kept = keepsSamplesAsleep(driver) ? ", its FIFO keeping the last \(driver.profile.fifo!.sampleDepth) samples," : ""
        let message = "still for \(fixed(Double(wake.stillNanoseconds) / 1e9, 0)) s with no client watching frames: the \(driver.profile.name) watches for motion over \(fixed(wake.threshold, 2)) g at \(watching.rate) Hz\(kept) and raises \(pin); acceld reads nothing until then"
        logger.info("\(message)")
        send(.device(DeviceEvent(state: .asleep, message: message)))
        // A motion between the reset and that drain left the pin high: its
        // edge is gone, and a latched pin makes no other.
        return (try? pacing.line?.level()) == true ? 0 : Self.asleepWait
    }

    /// A wake of the interrupt thread while asleep: an edge (or the pin
    /// found high) is the chip's wake-up; a client that now watches frames
    /// wakes it too. Returns the wait for the next edge.
    func stepAsleep(edges: [Edge], _ now: UInt64) -> UInt64 {
        let byChip = !(pacing.wakeOnMotion?.wakeUpEdges(edges).isEmpty ?? true) || (try? pacing.line?.level()) == true
        guard byChip || pacing.wakeOnMotion?.framesWatched == true else { return Self.asleepWait }
        do {
            return try wakeUp(now, byChip: byChip)
        } catch {
            return handleFailure(error, now)
        }
    }

    /// Back to the configured rate, numbering on from the periods slept.
    @discardableResult
    func wakeUp(_ now: UInt64, byChip: Bool, cause clientCause: String = "a client watches frames") throws -> UInt64 {
        guard let driver, var wake = pacing.wakeOnMotion, wake.asleep else { return edgeTimeout }
        let fired = try driver.wakeUpFired()
        let keeps = keepsSamplesAsleep(driver)
        let numbering: (skipped: UInt64, last: Double)?
        if keeps {
            // The pin back on the watermark, the unit off; the FIFO as it ran.
            try driver.apply(configuration)
            let readStart = time.nanoseconds
            try readKept(driver)
            // Their numbers go on from the periods slept; their instants
            // come from the next read's edge, which follows them in the FIFO.
            numbering = wake.numbering(keeping: pacing.kept.count, readAt: Double(readStart))
        } else {
            // Where the chip watched at this very rate it never stopped: no
            // turn-on to wait for, and only the unit and the routing change.
            if driver.profile.wakeUpRate == configuration.rate { try driver.apply(configuration) } else { try driver.configure(configuration) }
            numbering = wake.numbering(resumingAt: Double(time.nanoseconds))
        }
        if let numbering {
            publisher.seq += numbering.skipped
            track.lastInstant = numbering.last
        }
        let slept = wake.wokeUp(at: now)
        pacing.wakeOnMotion = wake
        pacing.overrunRead = nil
        publisher.counters.wakeUps += 1
        let cause = byChip ? "the \(driver.profile.name)'s wake-up unit saw motion" + (fired ? "" : " (its source was already clear)")
            : clientCause
        let message = "\(cause): reads at \(configuration.rate) Hz again after \(fixed(Double(slept) / 1e9, 1)) s asleep"
        logger.info("\(message)")
        send(.device(DeviceEvent(state: .awake, message: message, byChip: byChip)))
        restartPhase()
        if !keeps, let line = pacing.line { try clearPin(line) }
        return edgeTimeout
    }

    /// Everything the FIFO holds at the wake-up, into `pacing.kept`: read
    /// until the pin falls, so that the next sample makes an edge of its own.
    private func readKept(_ driver: Accelerometer) throws {
        pacing.kept = []
        for _ in 0..<4 {
            try fifo.read(try driver.readFIFOStatus().level, from: driver)
            pacing.kept += fifo.samples
            guard try pacing.line?.level() == true else { break }
        }
        pacing.keptReadAt = time.nanoseconds
    }

    /// A request that needs the chip at its configured rate (configure,
    /// a self-test, a calibration) wakes it first.
    func wakeForRequest() throws {
        guard pacing.wakeOnMotion?.asleep == true else { return }
        try wakeUp(time.nanoseconds, byChip: false, cause: "a request needs the chip at its rate")
        // The request may start the FIFO again, and no edge would follow
        // what it kept: that goes now, the newest stamped a period before
        // the read, the others a period apart.
        guard !pacing.kept.isEmpty else { return }
        let kept = pacing.kept, period = pacing.clock.period
        let newest = pacing.keptReadAt.map { Double($0) - period } ?? Double(time.nanoseconds)
        pacing.kept = []
        pacing.keptReadAt = nil
        deliverInOrder(kept[...]) { newest - Double(kept.count - 1 - $0) * period }
    }

    /// Whether any client watches frames (the hub, on `queue`): the first
    /// one to start wakes the chip at once.
    public func framesWatched(_ watched: Bool) {
        assertOnLoop()
        guard pacing.wakeOnMotion != nil else { return }
        pacing.wakeOnMotion?.framesWatched = watched
        if watched, pacing.wakeOnMotion?.asleep == true { _ = try? wakeUp(time.nanoseconds, byChip: false) }
    }

    /// How long the thread waits on the line while asleep (the edge, a
    /// client or a stop cut it short): a second, so that its step, which
    /// reads nothing, keeps the systemd watchdog's ping going.
    static let asleepWait: UInt64 = 1_000_000_000
}
