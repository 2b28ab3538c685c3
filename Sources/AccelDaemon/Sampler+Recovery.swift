// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts

/// A chip that says nothing, or fails: a stall or a power glitch found by
/// empty reads, and transfers that fail, reopened and checked under the
/// Recovery policy.
extension Sampler {
    /// A read found no sample: counted; a stall or a reset chip found.
    func handleEmpty(_ now: UInt64) throws -> UInt64 {
        publisher.counters.emptyReads += 1
        track.foundNothing()
        if timing.dataReady.sawEmpty() {
            let message = "the chip's data-ready bit clears again: following its clock by its data-ready bit again"
            logger.notice("\(message)")
            send(.device(DeviceEvent(state: .dataReadyBack, message: message)))
        }
        let silent = Double(now) - (track.lastInstant ?? Double(track.lastPoll))
        if track.emptyStreak >= 4 && silent > 3 * period {
            // A chip reset by a power glitch is powered down: no data, ever.
            // (Or another part now answers there: never configure that one.)
            if try !driver!.configurationIsIntact() {
                try driver!.verifyIdentity()
                try reconfigure(.reconfigured, "the chip had lost its configuration (power glitch?) and was configured again")
                return 0
            }
            if silent > 20 * period && !track.stalledAnnounced {
                track.stalledAnnounced = true
                logger.warning("the chip produces no data although it is configured")
                send(.device(DeviceEvent(state: .stalled, message: "the chip at \(driver!.bus.location) answers but produces no new samples")))
            }
        }
        // Nudge the phase: look again a little later.
        return UInt64(timing.phase.nudge)
    }

    /// With `automaticRate`, the identified part's rate nearest 100 Hz.
    func adoptAutomaticRate(_ profile: ChipProfile) {
        guard automaticRate, let rate = profile.automaticRate(mode: configuration.mode), rate != configuration.rate else { return }
        configuration.rate = rate
        timing.phase.acquire(rate: rate)
        pacing.clock = EdgeClock(rate: rate)
    }

    /// The chip starts a new sample clock whenever it is configured.
    func restartPhase() {
        timing.dataReady.reset()
        timing.phase.acquire(rate: configuration.rate)
        pacing.clock = EdgeClock(rate: configuration.rate)
        track.resynchronise = true
    }

    func reconfigure(_ state: DeviceEvent.State, _ message: String) throws {
        try configureChip()
        publisher.counters.reconfigurations += state == .reconfigured ? 1 : 0
        logger.notice("\(message)")
        send(.device(described(DeviceEvent(state: state, message: message))))
    }

    /// `event` with what the chip now runs and which part where.
    func described(_ event: DeviceEvent) -> DeviceEvent {
        var event = event
        event.configuration = configuration
        event.chip = driver?.profile.name
        event.location = driver?.bus.location
        return event
    }

    /// Writes `configuration` to the chip and reads nothing until it has
    /// turned on: a deadline the reads keep (`turningOn`), not a sleep that
    /// would hold the sampler's queue (at 1 Hz a LIS3DH takes 7 s) and with
    /// it every request and the watchdog's heartbeat.
    func configureChip() throws {
        try driver!.configure(configuration, waitingForTurnOn: false)
        chip.turningOnUntil = time.nanoseconds + driver!.turnOnNanoseconds
        restartPhase()
        track.emptyStreak = 0
    }

    /// While the chip turns on: the wait to the next step (at most half a
    /// second, so the watchdog's heartbeat goes on), or nil once it is on.
    func turningOn(_ now: UInt64) -> UInt64? {
        guard let until = chip.turningOnUntil else { return nil }
        guard now < until else {
            chip.turningOnUntil = nil
            track.lastPoll = now
            return nil
        }
        return min(until - now, 500_000_000)
    }

    func handleFailure(_ error: Error, _ now: UInt64) -> UInt64 {
        publisher.counters.busErrors += 1
        if let busError = error as? BusError, !busError.isTransient {
            driver = nil  // reopen from scratch (an adapter that went away)
        }
        let (retryIn, event) = recovery.failed(error, at: now)
        if let event { send(.device(event)) }
        return retryIn
    }

    /// Reopens and checks the chip after a failure; returns the delay to
    /// the next read.
    func recover(_ now: UInt64) -> UInt64 {
        do {
            if driver == nil {
                let fresh = try chip.connect()
                if let served = chip.part, fresh.profile.name != served {
                    let expected = ChipProfile.named(served)!.whoAmI
                    throw DriverError.wrongPart(location: fresh.bus.location, part: served, expected: expected,
                                                found: try fresh.bus.readRegister(0x0F))
                }
                adoptAutomaticRate(fresh.profile)
                configuration.fifoWatermark = fifoWatermark(rate: configuration.rate, driver: fresh)
                fresh.calibration = calibration
                fresh.mountMatrix = mountMatrix
                driver = fresh
            }
            // The chip may have been swapped while it did not answer.
            try driver!.verifyIdentity()
            if try !driver!.configurationIsIntact() {
                try configureChip()
                publisher.counters.reconfigurations += 1
            }
        } catch {
            return handleFailure(error, now)
        }
        if let event = recovery.recovered(at: now) {
            publisher.counters.recoveries += 1
            send(.device(described(event)))
        }
        track.resynchronise = true
        // Read in phase, `margin` after a sample is due, where "the newest
        // sample" is unambiguous (the chip ran on meanwhile).
        guard timing.phase.fit.isUsable else { return 0 }
        let next = timing.phase.fit.instant(of: UInt64(max(timing.phase.fit.newest(at: Double(now)) + 1, 0)))
        return UInt64(max(next + timing.phase.margin - Double(now), 0))
    }
}
