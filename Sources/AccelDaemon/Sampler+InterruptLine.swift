// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelParts
import AccelProtocol

/// The line itself: opened with the chip, checked for a first edge,
/// watched for loss, and the timer's fallback.
extension Sampler {
    /// Opens the line after the chip was configured, and waits up to a
    /// second past the turn-on time for its first edge: a line that never
    /// fires (miswired, the wrong line or pin) stops the start with its own
    /// message, unless interrupt-fallback = timer says to go on without it.
    func openInterruptLine() throws {
        guard let source = pacing.source, pacing.line == nil else { return }
        let line = try source()
        let pin = configuration.interruptPin?.label ?? "INT1"
        try clearPin(line)
        let patience = UInt64(driver!.profile.turnOnPeriods) * UInt64(pacing.clock.period) + 1_000_000_000
        let deadline = time.nanoseconds + patience
        var edges: [Edge] = []
        while edges.isEmpty && time.nanoseconds < deadline {
            edges = try line.wait(nanoseconds: deadline - time.nanoseconds)
        }
        guard !edges.isEmpty else {
            let silent = GPIOError.silent(line: line.description, pin: pin, rate: configuration.rate, level: try? line.level())
            guard pacing.fallback else { throw silent }
            logger.warning("\(silent.description); interrupt-fallback = timer: the timer paces the reads instead")
            pacing.source = nil
            return
        }
        // That edge only shows the line is wired: its sample is read here,
        // and numbering starts with the next, on time.
        try clearPin(line)
        pacing.line = line
        logger.info("reads paced by the chip's \(pin) on \(line.description)")
    }

    /// A pin left high by samples nobody read makes no edge: reads them,
    /// again while more keep it high (a FIFO filling meanwhile).
    func clearPin(_ line: InterruptLine) throws {
        for _ in 0..<4 {
            if driver!.fifoWatermark > 0 {
                var drained: [Reading] = []
                try driver!.readFIFO(count: try driver!.readFIFOStatus().level, into: &drained)
            } else {
                _ = try driver!.read()
            }
            guard try line.level() else { break }
        }
    }

    func startInterruptThread() {
        let thread = InterruptThread(queue: queue, realtimePriority: realtimePriority) { [unowned self] result in
            interruptStep(result)
        }
        pacing.thread = thread
        thread.start(InterruptThread.Next(line: pacing.line, wait: edgeTimeout))
    }

    /// A wake of the interrupt thread: the read its edges call for, or the
    /// line's loss, or, the line lost, an attempt to open it again.
    func interruptStep(_ result: Result<[Edge], Error>) -> InterruptThread.Next {
        assertOnLoop()
        switch result {
        case .success(let edges):
            if pacing.line == nil {
                guard reopenInterruptLine() else { return InterruptThread.Next(line: nil, wait: 1_000_000_000) }
            }
            let wait = step(edges: edges)
            return InterruptThread.Next(line: pacing.line, wait: wait)
        case .failure(let error):
            // The chip must not be left watching at its slow rate for a timer to read.
            if pacing.wakeOnMotion?.asleep == true { _ = try? wakeUp(time.nanoseconds, byChip: false) }
            loseInterruptLine(error)
            return InterruptThread.Next(line: nil, wait: 1_000_000_000)
        }
    }

    /// The line failed (its gpiochip removed): said once; the timer takes
    /// over where allowed, else nothing is read until the line is back.
    func loseInterruptLine(_ error: Error) {
        pacing.line = nil
        pacing.lastSequence = nil
        pacing.lastLineAttempt = time.nanoseconds
        publisher.counters.busErrors += 1
        let fallback = pacing.fallback ? "the timer paces the reads until it is back" : "no samples until it is back (interrupt-fallback = timer would let the timer pace the reads meanwhile)"
        let message = "\(error): \(fallback)"
        logger.error("\(message)")
        send(.device(DeviceEvent(state: .interruptLost, message: message)))
        if pacing.fallback {
            pacing.thread?.stop(waking: nil)
            pacing.thread = nil
            restartPhase()
            startTimer()
        }
    }

    /// Tries the line again, at most once a second; true when it is back
    /// (said once). Called from the interrupt thread, or from the timer's
    /// step while it stands in.
    @discardableResult
    func reopenInterruptLine() -> Bool {
        guard let source = pacing.source, pacing.line == nil else { return false }
        let now = time.nanoseconds
        guard now - pacing.lastLineAttempt >= 1_000_000_000 else { return false }
        pacing.lastLineAttempt = now
        guard let line = try? source() else { return false }
        pacing.line = line
        pacing.clock = EdgeClock(rate: configuration.rate)
        let message = "\(line.description) is back: the chip's pin paces the reads again"
        logger.notice("\(message)")
        send(.device(DeviceEvent(state: .interruptBack, message: message)))
        return true
    }
}
