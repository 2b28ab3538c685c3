// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Dispatch
import Logging
import Synchronization

private let samplerLogger = Logger(label: "acceld.sampler")

/// The i2c-dev source (DeviceSampler): owns the chip, reads it, and says
/// which sample each reading is and when it was made; its `publisher`
/// does the rest, as for every source. Two pacings, each with its state
/// in a value of its own:
/// - the timer (`TimerPacing`: a DispatchSourceTimer on `queue`,
///   phase-locked to the chip's clock, one read per output period, or one
///   per FIFO watermark when clients allow the latency: Sampler+FIFO);
/// - the chip's INT line where one is wired (`InterruptPacing`: a thread
///   of acceld's own waits on the line and steps inside `queue`:
///   Sampler+Interrupt, Sampler+InterruptLine, Sampler+Sleep).
/// Tests call `step()` themselves on a virtual clock.
///
/// It composes parts with one job each: the timer shell (`SamplerTimer`),
/// the phase lock (`PhaseLock`), the data-ready guard (`DataReadyGuard`),
/// the edge clock (`EdgeClock`), the FIFO reader (`FIFOReader`) and the
/// recovery policy (`Recovery`). What is left here is the read itself and
/// numbering: which sample a read holds, its instant, and handing frames on.
///
/// Sequence numbers count the chip's output periods since start: a gap of n
/// means n periods without a sample reaching us (lost to an overrun, a bus
/// fault or a chip reset), so a client knows exactly what it missed.
///
/// (Unchecked: everything is confined to `queue`, the interrupt thread
/// included, which runs its steps inside `queue.sync`; `lastStep` is atomic.)
public final class Sampler: @unchecked Sendable {
    public typealias Counters = SamplerCounters
    /// (The publisher's, as every source's; public for accel-bench.)
    public var counters: Counters { publisher.counters }

    public let queue = DispatchQueue(label: "acceld.sampler", qos: .userInteractive)
    /// The chip, its driver and configuration, and what clients were told.
    var chip: ServedChip
    public internal(set) var configuration: DeviceConfiguration {
        get { chip.configuration }
        set { chip.configuration = newValue }
    }
    public internal(set) var driver: Accelerometer? {
        get { chip.driver }
        set { chip.driver = newValue }
    }
    /// Nanoseconds of the last step, for the watchdog (on another thread):
    /// a hung sampler stops it.
    public var lastStep: UInt64 { lastStepTime.load(ordering: .relaxed) }
    let lastStepTime = Atomic<UInt64>(0)
    /// SCHED_FIFO for the thread that runs the timer's steps ([daemon]
    /// realtime-priority; set before `start`).
    public var realtimePriority = 0
    /// `rate = auto` with no part named (ServedChip).
    public var automaticRate: Bool {
        get { chip.automaticRate }
        set { chip.automaticRate = newValue }
    }

    let time: TimeSource
    /// Numbers, counts and hands on what the reads find.
    var publisher: Publisher
    var logger: Logger { samplerLogger }
    /// The timer path's own state (TimerPacing).
    var timing: TimerPacing
    var fifo = FIFOReader()
    var recovery = Recovery()
    /// The next sample's number (the publisher's).
    var seq: UInt64 {
        get { publisher.seq }
        set { publisher.seq = newValue }
    }
    /// What the reads left behind: the last poll and instant, empty reads, resynchronising.
    var track = ReadTrack()
    /// The latency clients allow, ms (nil: none, samples as they come).
    var latency: Double?
    /// The interrupt path's own state (Interrupt/InterruptPacing).
    var pacing: InterruptPacing
    /// The line's opener, set before `open` (InterruptPacing.source).
    public var interruptSource: (() throws -> InterruptLine)? {
        get { pacing.source }
        set { pacing.source = newValue }
    }
    /// [device] interrupt-fallback = timer (InterruptPacing.fallback).
    public var interruptFallback: Bool {
        get { pacing.fallback }
        set { pacing.fallback = newValue }
    }
    /// [power] wake-on-motion, set before `open` (InterruptPacing.wakeOnMotion).
    public var wakeOnMotion: WakeOnMotion? {
        get { pacing.wakeOnMotion }
        set { pacing.wakeOnMotion = newValue }
    }

    public var calibration: Calibration {
        get { chip.calibration }
        set { chip.calibration = newValue; driver?.calibration = newValue; startGyroscopeBias() }
    }

    public var mountMatrix: MountMatrix {
        get { chip.mountMatrix }
        set { chip.mountMatrix = newValue; driver?.mountMatrix = newValue; startGyroscopeBias() }
    }

    /// - Parameter connect: opens the bus and identifies the chip (called
    ///   again to reopen it after a fault that closed it).
    public init(connect: @escaping () throws -> Accelerometer, configuration: DeviceConfiguration,
                settings: MotionSettings, time: TimeSource) {
        chip = ServedChip(connect: connect, configuration: configuration)
        self.publisher = Publisher(settings: settings)
        self.time = time
        timing = TimerPacing(rate: configuration.rate)
        pacing = InterruptPacing(rate: configuration.rate)
    }

    var period: Double { timing.phase.period }

    /// Opens and configures the chip. Throws the bus or driver error as is,
    /// so the daemon can exit with its message and code.
    public func open() throws {
        let driver = try chip.connect()
        adoptAutomaticRate(driver.profile)
        try checkBus(configuration, driver: driver)
        configuration.fifoWatermark = fifoWatermark(rate: configuration.rate, driver: driver)
        if pacing.source != nil && pacing.routingFound == nil { pacing.routingFound = try driver.interruptRouting() }
        try checkWakeOnMotion(driver)
        try driver.configure(configuration)
        publisher.pipeline.gyroscopeRange = driver.rotationRange ?? .infinity
        self.driver = driver
        chip.part = driver.profile.name
        track.lastPoll = time.nanoseconds
        try openInterruptLine()
    }

    /// Starts the timer on `queue`, or the thread that waits on the
    /// interrupt line.
    public func start() {
        if pacing.line != nil { return startInterruptThread() }
        startTimer()
    }

    /// The DispatchSourceTimer paces the reads.
    func startTimer() {
        let timer = SamplerTimer(queue: queue, time: time, realtimePriority: realtimePriority)
        timing.timer = timer
        timer.start { [unowned self] in
            let delay = step()
            // FIFO wakes keep their grid unless a period off: early or late,
            // such a wake only finds a sample more or less. The grid is the
            // instants the sampler asked for, from the step's start, so that
            // how long a step took does not move it.
            let batched = (driver?.fifoWatermark ?? 0) > 1
            return SamplerTimer.Next(at: lastStep + delay,
                                     interval: batched ? fifoInterval : UInt64(period),
                                     early: UInt64(batched ? period : timing.phase.margin / 4),
                                     late: UInt64(batched ? period : timing.phase.margin))
        }
    }

    /// Stops sampling and, if asked, powers the chip down. Call on `queue`.
    public func stop(powerDown: Bool) {
        assertOnLoop()
        timing.timer?.stop()
        timing.timer = nil
        pacing.thread?.stop(waking: pacing.line)
        pacing.thread = nil
        pacing.line = nil  // released once the thread lets go of it
        releaseHeldFIFO(decidedBy: nil)
        publisher.release()
        if let routingFound = pacing.routingFound, let driver {
            // The INT pins as acceld found them: another program may listen there.
            do { try driver.restore(routing: routingFound) } catch { logger.warning("could not restore the chip's INT routing: \(error)") }
        }
        if powerDown, let driver {
            do { try driver.powerDown() } catch { logger.warning("could not power the chip down: \(error)") }
        }
    }

    // MARK: Reading

    /// One read; returns nanoseconds until the next one should happen.
    public func step() -> UInt64 {
        assertOnLoop()
        if pacing.source != nil && pacing.line == nil && reopenInterruptLine() {
            // The line is back: it paces the reads again, the timer stands down.
            timing.timer?.stop()
            timing.timer = nil
            startInterruptThread()
            return UInt64(period)
        }
        let now = time.nanoseconds
        let delay = read(now)
        // Held frames leave before the next read would keep the oldest
        // longer than the clients allow.
        if let oldest = publisher.oldestHeld, let limit = holdLimit, Double(now + delay) - oldest * 1e9 > limit {
            publisher.release()
        }
        return delay
    }

    /// Nanoseconds from `now` to `instant`, at least a tenth of a period.
    func delay(until instant: Double, from now: UInt64) -> UInt64 {
        UInt64(max(instant - Double(now), period / 10))
    }

    private func read(_ now: UInt64) -> UInt64 {
        lastStepTime.store(now, ordering: .relaxed)
        if let wait = turningOn(now) { return wait }
        publisher.counters.wakes += 1
        if recovery.isFailing || driver == nil { return recover(now) }
        do {
            switch driver!.fifoWatermark {
            case 1: return try stepFIFOAtOnce(now)
            case 2...: return try stepFIFO(now)
            default: break
            }
            let reading = try driver!.read()
            let after = time.nanoseconds
            defer { track.lastPoll = now }
            if let undecided = timing.undecided, let wait = settle(undecided, by: reading, now, after) { return wait }
            guard reading.status.contains(.dataReady) else {
                return try handleEmpty(now)
            }
            track.foundSamples()
            if let delay = guardDataReady(now) { return delay }
            if let delay = deferIfAmbiguous(reading, from: now, to: after) { return delay }
            let instant = publish(reading, at: now, through: after)
            track.pollWasEmpty = false
            guard !timing.dataReady.isPacing else {
                return delay(until: timing.dataReady.nextPacedRead(now: now, fittedDue: pacingDue, period: period, margin: timing.phase.margin), from: now)
            }
            return delay(until: timing.phase.nextRead(after: instant, seq: seq), from: now)
        } catch {
            return handleFailure(error, now)
        }
    }

    /// The next sample's instant by a fit good enough to pace by.
    private var pacingDue: Double? { timing.phase.fit.count >= 8 ? timing.phase.fit.instant(of: seq) : nil }

    /// The data-ready guard's verdict on a read whose bit is set: nil to
    /// publish it, else the delay to the next read.
    private func guardDataReady(_ now: UInt64) -> UInt64? {
        let fitted = timing.phase.fit.count >= 8 && !track.resynchronise ? timing.phase.fit.instant(of: seq) : nil
        let verdict = timing.dataReady.judge(at: now, fittedDue: fitted, rate: configuration.rate,
                                      tolerance: driver?.profile.rateTolerance ?? 0.1, margin: timing.phase.margin)
        switch verdict {
        case .publish:
            return nil
        case .reject(let next):
            publisher.counters.impossibleReady += 1
            timing.phase.abandonProbe()
            return delay(until: next, from: now)
        case .stuck(let next):
            publisher.counters.impossibleReady += 1
            timing.phase.abandonProbe()
            let message = "the chip's data-ready bit says new data sooner than its \(configuration.rate) Hz allow (stuck at 1, as on i2c-stub): reading it once a period by the clock instead, so that every published sample is a sample the chip made; if this is real hardware, power-cycle it"
            logger.warning("\(message)")
            send(.device(DeviceEvent(state: .dataReadyStuck, message: message)))
            return delay(until: next, from: now)
        }
    }

    // MARK: Publishing

    /// Publishes a sample read at `now` (its transaction done by `after`,
    /// when known); returns its estimated instant. `number`, when given, is
    /// which sample it is (an undecided read, decided). `late`: the read
    /// found more than one sample waiting (in the FIFO), which the phase
    /// lock counts as it counts an overrun.
    @discardableResult
    func publish(_ reading: Reading, at now: UInt64, through after: UInt64? = nil, as number: UInt64? = nil, late: Bool = false) -> Double {
        let done = after ?? now
        let overrun = reading.status.contains(.overrun)
        if overrun { publisher.counters.overruns += 1 }
        timing.phase.recordRead(late: overrun || late)
        // Which sample is this? The next one, unless the chip overwrote some
        // (overrun) or we lost track (a fault, a reset): then the newest one
        // due by now. After a bus fault the chip's clock ran on, so the
        // fitted line still says which sample is due; after a reset it was
        // cleared. Paced (data-ready stuck at 1): the clock, not the bit,
        // says which sample is the newest.
        var current = number ?? seq
        if number == nil && (overrun || track.resynchronise || timing.dataReady.isPacing) {
            let minimum = Int64(seq) + (overrun ? 1 : 0), middle = (Double(now) + Double(done)) / 2
            if timing.phase.fit.isUsable {
                current = UInt64(max(minimum, timing.phase.fit.newest(at: middle)))
            } else if let last = track.lastInstant {
                let elapsed = Int64((max(middle - last, 0) / period + 0.05).rounded(.down))
                current = UInt64(max(minimum, Int64(seq) - 1 + elapsed))
            }
        }
        track.resynchronise = false

        // From the empty read's start to the end of this one's transaction:
        // a thread preempted before the transaction widens it.
        let window = Double(done) - Double(track.lastPoll)
        var instant: Double
        if number != nil {
            instant = min(timing.phase.fit.instant(of: current), Double(done))
        } else if track.pollWasEmpty && window < 0.5 * period {
            // Bracketed between an empty read and this one: a measurement.
            instant = Double(track.lastPoll) + window / 2
            timing.phase.measured(seq: current, at: instant)
            if timing.phase.fit.count >= 4 { instant = timing.phase.fit.instant(of: current) }
        } else if timing.phase.fit.isUsable {
            instant = timing.phase.fit.instant(of: current)
        } else {
            instant = track.lastInstant.map { $0 + Double(current - seq + 1) * period } ?? Double(now)
        }
        if number == nil { instant = min(max(instant, Double(track.lastPoll) + 1), Double(done)) }

        let missing = current - seq
        if timing.phase.isLost && !timing.dataReady.isPacing {
            // Reads keep coming too late: the fit has lost the chip's period
            // (a vCPU starved while acquiring left it railed at 1.15 periods
            // in the kernel stage, reading 87 % of the samples, or locked
            // onto every other one). A locked sampler overruns only when starved.
            publisher.counters.reacquisitions += 1
            if counters.reacquisitions == 1 || now - timing.lastReacquisitionLog > 60_000_000_000 {
                timing.lastReacquisitionLog = now
                logger.notice("\(timing.phase.lateReads) of the last 32 reads found samples overwritten: acquiring the chip's phase again (\(counters.reacquisitions) times so far; said at most once a minute)")
            }
            timing.phase.acquire()
        }
        let delivery = deliver(reading.counts, rotation: reading.rotation, instant: instant, after: missing)
        send(.frame(delivery.frame, delivery.events))
        return instant
    }

    /// Turns the sample `missing` periods after the last one, made at
    /// `instant`, into a frame and its events.
    func deliver(_ counts: Counts, rotation: Counts? = nil, instant: Double, after missing: UInt64 = 0) -> Delivery {
        let driver = driver!
        track.lastInstant = instant
        let delivery = publisher.deliver(counts, chip: driver.chipAcceleration(counts), g: driver.acceleration(counts),
                                         rotation: rotation.flatMap(driver.rotationRate), at: instant, after: missing)
        if pacing.wakeOnMotion != nil { pacing.wakeOnMotion!.observe(user: delivery.frame.user.magnitude, at: UInt64(max(instant, 0))) }
        return delivery
    }

    /// Hands `output` on through the publisher, holding frames while the
    /// clients allow it.
    func send(_ output: SamplerOutput) { publisher.send(output, holdLimit: holdLimit) }

    /// How long a frame may be held (ns): the clients' latency less half a
    /// period (for a wake that comes late; `step` already releases before
    /// the next read would pass the limit) and 2 ms for the hand-off; nil
    /// when frames go one by one.
    var holdLimit: Double? {
        guard let latency, configuration.fifoWatermark == 0 else { return nil }
        let limit = latency * 1e6 - period / 2 - 2e6
        return limit >= period ? limit : nil
    }
}
