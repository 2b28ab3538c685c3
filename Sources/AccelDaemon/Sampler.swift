// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol
import Dispatch
import Logging
import Synchronization

/// What the sampler hands on: frames with the events they completed, and
/// changes in the device's health.
public enum SamplerOutput: Sendable {
    case frame(Frame, [MotionEvent])
    /// Several frames from one FIFO read, oldest first: one hand-off and
    /// one write per client for all of them.
    case batch([Delivery])
    case device(DeviceEvent)
}

/// A frame and the events it completed.
public struct Delivery: Sendable {
    public let frame: Frame
    public let events: [MotionEvent]
}

/// A change in the device's health, for clients' `device` messages.
public struct DeviceEvent: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Transfers fail; sampling is suspended and retried with back-off.
        case lost
        /// Transfers work again.
        case back
        /// The chip had lost its configuration (power glitch) and was set up again.
        case reconfigured
        /// The chip answers but produces no data.
        case stalled
        /// A client changed the range or rate.
        case configured
        /// A different part answers at the address (WHO_AM_I changed):
        /// nothing is served until the right part is back.
        case wrongPart = "wrong-part"
        /// The data-ready bit says "new" faster than the ODR allows (stuck
        /// at 1): reads are paced by the timer at the ODR instead.
        case dataReadyStuck = "data-ready-stuck"
        /// The data-ready bit clears again: back to the phase lock.
        case dataReadyBack = "data-ready-back"
    }
    public let state: State
    public let message: String
}

/// Owns the chip: reads it once per output period, phase-locked to the
/// chip's own clock, and feeds the pipeline. On a part with a FIFO, when
/// clients allow the latency, it wakes once per watermark instead and reads
/// every waiting sample in one transfer. Every piece of state is
/// confined to `queue`; the live daemon drives it with a DispatchSourceTimer
/// there, tests call `step()` themselves on a virtual clock.
///
/// Sequence numbers count the chip's output periods since start: a gap of n
/// means n periods without a sample reaching us (lost to an overrun, a bus
/// fault or a chip reset), so a client knows exactly what it missed.
public final class Sampler: @unchecked Sendable {
    public typealias Counters = SamplerCounters

    public let queue = DispatchQueue(label: "acceld.sampler", qos: .userInteractive)
    public private(set) var counters = Counters()
    public private(set) var configuration: DeviceConfiguration
    public private(set) var driver: Accelerometer?
    /// Nanoseconds of the last step, for the watchdog (on another thread):
    /// a hung sampler stops it.
    public var lastStep: UInt64 { lastStepTime.load(ordering: .relaxed) }
    private let lastStepTime = Atomic<UInt64>(0)
    public var output: (SamplerOutput) -> Void = { _ in }

    private let time: TimeSource
    private let connect: () throws -> Accelerometer
    private var pipeline: MotionPipeline
    private let logger = Logger(label: "acceld.sampler")
    private var seq: UInt64 = 0
    /// Estimated instant of the last published sample (ns).
    private var lastInstant: Double?
    /// When the chip was last read, with or without data.
    private var lastPoll: UInt64 = 0
    /// The chip's real output period as measured (its clock is ±10 % off nominal), ns.
    private var period: Double { fit.slope }
    private var emptyStreak = 0
    /// Which of the last 32 published reads found the overrun flag (bit 0 the latest).
    private var overrunHistory: UInt32 = 0
    private var readsSinceAcquisition = 0
    private var lastReacquisitionLog: UInt64 = 0
    private var pollWasEmpty = false
    private var probeCountdown = 1
    /// A probe is under way, and how early it aims (ns; nil: `initialLead`).
    private var probing = false
    private var probeLead: Double?
    private var fit: PhaseFit
    /// After a reset or an outage, the next sample's gap comes from elapsed
    /// time even without an overrun flag.
    private var resynchronise = false
    /// A read after a gap that came within the fit's error of the instant of
    /// sample `earlier + 1`: it holds that one or the one before. The next
    /// read, a quarter period after that instant, decides (see `decide`).
    private var undecided: (reading: Reading, at: UInt64, earlier: UInt64)?
    private var failure: (since: UInt64, delay: UInt64, announced: Bool)?
    /// A wrong part was announced during this failure.
    private var wrongPartAnnounced = false
    private var stalledAnnounced = false
    private var timer: DispatchSourceTimer?
    /// SCHED_FIFO for the thread that runs the timer's steps ([daemon]
    /// realtime-priority; set before `start`).
    public var realtimePriority = 0
    private var realtime = RealtimeThread(priority: 0)
    private var cadence = TimerCadence()
    /// Frames held back for clients that all allow latency (see `send`).
    private var held: [Delivery] = []
    /// Data-ready is stuck at 1: reads are paced at the fitted ODR, each
    /// publishes at most the one sample the chip's clock says is new.
    private var paced = false
    /// When the last impossible data-ready reads came (ns).
    private var impossibleTimes: [UInt64] = []
    private var pacedReads = 0
    /// When the last published sample was read (ns).
    private var lastAccepted: UInt64?
    /// Paced without a fit: the next nominal sample instant (ns), a grid
    /// one nominal period apart.
    private var pacedGrid: Double?
    /// The published rate's cap: a bucket that refills at the ODR plus the
    /// datasheet's tolerance and holds three samples' worth of jitter.
    private var tokens = 3.0
    private var tokensAt: UInt64 = 0
    /// The part whose scales clients were told: another part answering at
    /// the address later is refused, never served with these scales.
    private var servedPart: String?
    private var collector: ((Vector3) -> Bool)?
    /// FIFO reads land here (kept to avoid an allocation per read).
    private var fifoSamples: [Counts] = []
    /// An overflowed FIFO read the next read will number (`drainFIFO`).
    private var heldFIFO: (samples: [Counts], now: UInt64, after: UInt64, earliest: Int64, decideAt: Double)?
    /// The latency clients allow, ms (nil: none, samples as they come).
    private var latency: Double?

    /// - Parameter connect: opens the bus and identifies the chip (called
    ///   again to reopen it after a fault that closed it).
    public init(connect: @escaping () throws -> Accelerometer, configuration: DeviceConfiguration,
                settings: MotionSettings, time: TimeSource) {
        self.connect = connect
        self.configuration = configuration
        self.pipeline = MotionPipeline(settings: settings)
        self.time = time
        self.fit = PhaseFit(nominalPeriod: 1e9 / Double(configuration.rate))
    }

    /// Opens and configures the chip. Throws the bus or driver error as is,
    /// so the daemon can exit with its message and code.
    public func open() throws {
        let driver = try connect()
        configuration.fifoWatermark = Sampler.watermark(latency: latency, rate: configuration.rate, profile: driver.profile)
        try driver.configure(configuration)
        self.driver = driver
        servedPart = driver.profile.name
        lastPoll = time.nanoseconds
    }

    // MARK: The timer shell

    /// Starts the DispatchSourceTimer on `queue`.
    public func start() {
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        cadence = TimerCadence()
        realtime = RealtimeThread(priority: realtimePriority)
        timer.setEventHandler { [unowned self] in
            self.realtime.enter()
            let delay = self.step()
            // The grid is the instants the sampler asked for, from the
            // step's start, so that how long a step took does not move it.
            let wanted = self.lastStep + delay, now = self.time.nanoseconds
            // FIFO wakes keep their grid unless a period off: early or late,
            // such a wake only finds a sample more or less.
            let fifo = (self.driver?.fifoWatermark ?? 0) > 1
            let arm = self.cadence.rearm(now: now, delay: wanted > now ? wanted - now : 0,
                                         period: fifo ? self.fifoInterval : UInt64(self.period),
                                         early: UInt64(fifo ? self.period : self.margin / 4),
                                         late: UInt64(fifo ? self.period : self.margin))
            if let arm {
                self.timer?.schedule(deadline: .now() + .nanoseconds(Int(arm.delay)),
                                     repeating: .nanoseconds(Int(arm.interval)), leeway: .microseconds(50))
            }
        }
        self.timer = timer
        timer.schedule(deadline: .now(), leeway: .microseconds(50))
        timer.resume()
    }

    /// Stops sampling and, if asked, powers the chip down. Call on `queue`.
    public func stop(powerDown: Bool) {
        timer?.cancel()
        timer = nil
        realtime.leave()
        if let held = heldFIFO { releaseHeldFIFO(held, decidedBy: nil) }
        release()
        if powerDown, let driver {
            do { try driver.powerDown() } catch { logger.warning("could not power the chip down: \(error)") }
        }
    }

    // MARK: The core

    /// One read; returns nanoseconds until the next one should happen.
    public func step() -> UInt64 {
        let now = time.nanoseconds
        let delay = read(now)
        // Held frames leave before the next read would keep the oldest
        // longer than the clients allow.
        if let oldest = held.first?.frame.t, let limit = holdLimit, Double(now + delay) - oldest * 1e9 > limit {
            release()
        }
        return delay
    }

    /// Every output goes through here, to the hub on this thread, which
    /// writes it to each client at once: a system call per client per frame.
    /// When every watching client allows some latency (and no FIFO batches
    /// already), frames are held and handed over together, as the FIFO
    /// would, with one write per client for all of them.
    private func send(_ output: SamplerOutput) {
        if case .frame(let frame, let events) = output, holdLimit != nil, held.count < 256 {
            held.append(Delivery(frame: frame, events: events))
            return
        }
        release()
        self.output(output)
    }

    private func release() {
        guard !held.isEmpty else { return }
        output(.batch(held))
        held = []
    }

    /// How long a frame may be held (ns): the clients' latency less half a
    /// period (for a wake that comes late; `step` already releases before
    /// the next read would pass the limit) and 2 ms for the hand-off; nil
    /// when frames go one by one.
    private var holdLimit: Double? {
        guard let latency, configuration.fifoWatermark == 0 else { return nil }
        let limit = latency * 1e6 - period / 2 - 2e6
        return limit >= period ? limit : nil
    }

    private func read(_ now: UInt64) -> UInt64 {
        lastStepTime.store(now, ordering: .relaxed)
        counters.wakes += 1
        if failure != nil || driver == nil { return recover(now) }
        do {
            switch driver!.fifoWatermark {
            case 1: return try stepFIFOAtOnce(now)
            case 2...: return try stepFIFO(now)
            default: break
            }
            let reading = try driver!.read()
            let after = time.nanoseconds
            defer { lastPoll = now }
            if let undecided { return decide(undecided, by: reading, now) }
            guard reading.status.contains(.dataReady) else {
                pollWasEmpty = true
                return try handleEmpty(now)
            }
            emptyStreak = 0
            stalledAnnounced = false
            if let delay = rejectImpossible(reading, now) { return delay }
            lastAccepted = now
            if let delay = deferIfAmbiguous(reading, from: now, to: after) { return delay }
            let instant = publish(reading, at: now)
            pollWasEmpty = false
            return paced ? pacedDelay(now) : schedule(after: instant, now: now)
        } catch {
            return handleFailure(error, now)
        }
    }

    // MARK: Data-ready that cannot be true

    /// Never a sample that was not made: a read whose data-ready bit is set
    /// when the published rate would pass the ODR plus the datasheet's
    /// tolerance is not published (a bucket: it works without a fit of the
    /// chip's clock, which a bit stuck from the start never gives). Three
    /// rejected reads within two seconds mean the bit is stuck at 1: reads
    /// are then paced at the ODR, and each publishes only what the fitted
    /// clock (else a nominal grid) says is new. Returns the delay to the
    /// next read when this one is rejected, nil to publish it.
    private func rejectImpossible(_ reading: Reading, _ now: UInt64) -> UInt64? {
        let nominal = 1e9 / Double(configuration.rate)
        let fitted = fit.count >= 8 && !resynchronise
        let due = fitted ? fit.instant(of: seq) : pacedGrid ?? Double(lastAccepted ?? now) + nominal
        let early = due - Double(now)
        let ceiling = Double(configuration.rate) * (1 + (driver?.profile.rateTolerance ?? 0.1))
        tokens = min(3, tokens + Double(now &- tokensAt) / 1e9 * ceiling)
        tokensAt = now
        if paced {
            // Every 40th paced read comes half a period early: a working
            // bit reads 0 there (handled as an empty read, which ends the
            // pacing); a stuck one is rejected like any early read.
            guard early > 0 || tokens < 1 else {
                tokens -= 1
                if !fitted, var grid = pacedGrid {
                    while grid <= Double(now) { grid += nominal }
                    pacedGrid = grid
                }
                return nil
            }
            counters.impossibleReady += 1
            return pacedDelay(now)
        }
        // A healthy chip never empties the bucket (it makes at most the ODR
        // plus its tolerance), so outside pacing only the bucket rejects:
        // judging single reads by the fit also rejected the probes' honest
        // early finds when the timer ran late, and cost half the samples
        // of a 10-minute run at 400 Hz.
        guard tokens < 1 else {
            tokens = max(tokens - 1, 0)
            return nil
        }
        counters.impossibleReady += 1
        probing = false
        probeLead = nil
        noteImpossible(now)
        return UInt64(max(due + margin - Double(now), period / 10))
    }

    /// Three impossible data-ready reads within two seconds: the bit is
    /// stuck at 1. Pace the reads from now on.
    private func noteImpossible(_ now: UInt64) {
        impossibleTimes = (impossibleTimes + [now]).suffix(3)
        guard !paced, impossibleTimes.count == 3, now - impossibleTimes[0] < 2_000_000_000 else { return }
        paced = true
        pacedReads = 0
        pacedGrid = Double(lastAccepted ?? now) + 1e9 / Double(configuration.rate)
        let message = "the chip's data-ready bit says new data sooner than its \(configuration.rate) Hz allow (stuck at 1, as on i2c-stub): reading it once a period by the clock instead, so that every published sample is a sample the chip made; if this is real hardware, power-cycle it"
        logger.warning("\(message)")
        send(.device(DeviceEvent(state: .dataReadyStuck, message: message)))
    }

    /// The next paced read: just after the next sample is due (by the fit,
    /// else a nominal period after the last published read), and every
    /// 40th half a period before it, to see whether the bit works again.
    private func pacedDelay(_ now: UInt64) -> UInt64 {
        pacedReads += 1
        let due = fit.count >= 8 ? fit.instant(of: seq) : pacedGrid ?? Double(now)
        let target = pacedReads % 40 == 0 ? due - 0.5 * period : due + margin
        return UInt64(max(target - Double(now), period / 10))
    }

    /// The phase-locked loop. Normally the next read comes just after the
    /// next sample is due (`margin`), so it finds exactly one new sample.
    /// Every 40th read (more often while acquiring) comes a little early
    /// instead: it finds nothing, the `nudge` later finds the sample,
    /// and the two bracket its real instant. `PhaseFit` turns these
    /// measurements into the chip's real period and phase, so a chip whose
    /// clock is off (±10 % is allowed) is followed without overruns, at about
    /// 1.03 reads per sample.
    private func schedule(after instant: Double, now: UInt64) -> UInt64 {
        if probing {
            // The probe found data already: the prediction is late. Lead
            // twice as much and probe again, until a read comes up empty.
            probing = false
            probeLead = min((probeLead ?? initialLead) * 2, period * 0.9)
            probeCountdown = 1
        }
        probeCountdown -= 1
        let next = fit.isUsable ? fit.instant(of: seq) : instant + period
        let target: Double
        if probeCountdown <= 0 {
            // Often while acquiring, then rarely: the fit spans 32 points.
            probeCountdown = fit.count < 4 ? 2 : fit.count < 8 ? 8 : 40
            probing = true
            target = next - (probeLead ?? initialLead)
        } else {
            // Just after the sample is due: enough margin for the fit's error
            // and timer jitter, little enough for latency (0.3 ms at 100 Hz,
            // not 1.5).
            target = next + margin
        }
        return UInt64(max(target - Double(now), period / 10))
    }

    // MARK: Which sample a read after a gap holds

    /// After a gap (overrun, outage) the fitted clock says which sample is
    /// the newest at the read. When the read (its transfer, widened by the
    /// fit's error) spans a sample's instant, that can be either of two:
    /// the read is held, undecided, and the next one comes a quarter
    /// period after that instant. Returns that delay, or nil to publish now.
    /// (Rounding toward the later numbered a sample one ahead of the chip
    /// after a SIGSTOP in the kernel stage, and counted one lost too many.)
    private func deferIfAmbiguous(_ reading: Reading, from now: UInt64, to after: UInt64) -> UInt64? {
        guard reading.status.contains(.overrun) || resynchronise, !paced, fit.count >= 4 else { return nil }
        let error = 0.08 * period
        let earliest = max(Int64(seq), fit.newest(at: Double(now) - error, lead: 0))
        let latest = max(Int64(seq), fit.newest(at: Double(after) + error, lead: 0))
        guard latest > earliest else { return nil }
        undecided = (reading, now, UInt64(earliest))
        let boundary = fit.instant(of: UInt64(earliest + 1))
        return UInt64(max(boundary + period / 4 - Double(now), period / 10))
    }

    /// The read after an undecided one. Made between the later candidate's
    /// instant and the next sample's (by the fit, with its error), it finds
    /// nothing new when the held read already had the later candidate, and
    /// that one when it had the earlier. A read outside that window (a late
    /// wake) decides nothing: the held read then takes the nearer guess.
    private func decide(_ held: (reading: Reading, at: UInt64, earlier: UInt64), by reading: Reading, _ now: UInt64) -> UInt64 {
        undecided = nil
        let later = held.earlier + 1, error = 0.08 * period
        let inWindow = Double(now) > fit.instant(of: later) + error && Double(now) < fit.instant(of: later + 1) - error
        let fresh = reading.status.contains(.dataReady)
        let number: UInt64
        if inWindow && !reading.status.contains(.overrun) {
            number = fresh ? held.earlier : later
        } else {
            number = UInt64(max(Int64(held.earlier), min(Int64(later), fit.newest(at: Double(held.at), lead: 0))))
        }
        publish(held.reading, at: held.at, as: number)
        guard fresh else { return UInt64(max(fit.instant(of: seq) + margin - Double(now), period / 10)) }
        pollWasEmpty = false
        let instant = publish(reading, at: now)
        return schedule(after: instant, now: now)
    }

    /// Publishes a sample read at `now`; returns its estimated instant.
    /// `number`, when given, is which sample it is (an undecided read,
    /// decided). `late`: the read found more than one sample waiting (in
    /// the FIFO), which the phase lock counts as it counts an overrun.
    @discardableResult
    private func publish(_ reading: Reading, at now: UInt64, as number: UInt64? = nil, late: Bool = false) -> Double {
        let overrun = reading.status.contains(.overrun)
        if overrun { counters.overruns += 1 }
        // Judged from the 64th read after an acquisition on: acquiring
        // overruns a little by itself, and a CPU starved then would
        // otherwise reacquire again and again.
        readsSinceAcquisition += 1
        overrunHistory = readsSinceAcquisition > 64 ? overrunHistory << 1 | (overrun || late ? 1 : 0) : 0
        // Which sample is this? The next one, unless the chip overwrote some
        // (overrun) or we lost track (a fault, a reset): then the newest one
        // due by now.
        // After a bus fault the chip's clock ran on, so the fitted line still
        // says which sample is due; after a reset it was cleared.
        var current = number ?? seq
        // Paced (data-ready stuck at 1): the clock, not the bit, says
        // which sample is the newest.
        if number == nil && (overrun || resynchronise || paced) {
            let minimum = Int64(seq) + (overrun ? 1 : 0)
            if fit.isUsable {
                current = UInt64(max(minimum, fit.newest(at: Double(now))))
            } else if let last = lastInstant {
                let elapsed = Int64((max(Double(now) - last, 0) / period + 0.05).rounded(.down))
                current = UInt64(max(minimum, Int64(seq) - 1 + elapsed))
            }
        }
        resynchronise = false

        let window = Double(now) - Double(lastPoll)
        var instant: Double
        if number != nil {
            instant = min(fit.instant(of: current), Double(now))
        } else if pollWasEmpty && window < 0.5 * period {
            // Bracketed between an empty read and this one: a measurement.
            probing = false
            probeLead = nil
            instant = Double(lastPoll) + window / 2
            fit.add(seq: current, t: instant, nominalPeriod: 1e9 / Double(configuration.rate))
            if fit.count >= 4 { instant = fit.instant(of: current) }
        } else if fit.isUsable {
            instant = fit.instant(of: current)
        } else {
            instant = lastInstant.map { $0 + Double(current - seq + 1) * period } ?? Double(now)
        }
        if number == nil { instant = min(max(instant, Double(lastPoll) + 1), Double(now)) }

        let skipped = Int(current - seq)
        counters.lost += skipped
        seq = current
        if overrunHistory.nonzeroBitCount >= 4 && !paced {
            // Reads keep coming too late: the fit has lost the chip's
            // period (a vCPU starved while acquiring left it railed at 1.15
            // periods in the kernel stage, reading 87 % of the samples, or
            // locked onto every other one) and no probe can correct it,
            // since none comes up empty. Acquire the phase again from the
            // nominal period. A locked sampler overruns only when starved.
            counters.reacquisitions += 1
            if counters.reacquisitions == 1 || now - lastReacquisitionLog > 60_000_000_000 {
                lastReacquisitionLog = now
                logger.notice("\(overrunHistory.nonzeroBitCount) of the last 32 reads found samples overwritten: acquiring the chip's phase again (\(counters.reacquisitions) times so far; said at most once a minute)")
            }
            overrunHistory = 0
            acquirePhase()
        }
        let (frame, events) = deliver(reading.counts, instant: instant)
        send(.frame(frame, events))
        return instant
    }

    /// Turns the next sample (number `seq`, made at `instant`) into a frame
    /// and its events.
    private func deliver(_ counts: Counts, instant: Double) -> (Frame, [MotionEvent]) {
        let driver = driver!
        lastInstant = instant
        if let collector, collector(driver.chipAcceleration(counts)) { self.collector = nil }
        let sample = Sample(seq: seq, t: instant / 1e9, counts: counts, g: driver.acceleration(counts))
        seq += 1
        counters.published += 1
        var events: [MotionEvent] = []
        return (pipeline.process(sample, events: &events), events)
    }

    // MARK: FIFO streaming

    /// One wake in FIFO mode: FIFO_SRC says how many samples wait, one
    /// transfer reads them all. The next wake is `fifoInterval` later, or
    /// sooner when an overflowed read waits for the next to number it.
    private func stepFIFO(_ now: UInt64) throws -> UInt64 {
        let drained = try drainFIFO(now)
        if let held = heldFIFO { return UInt64(max(held.decideAt - Double(now), period / 10)) }
        return drained != nil ? fifoInterval : UInt64(period)
    }

    /// FIFO wakes repeat every watermark less 0.382 periods: the timer is
    /// never re-armed (on Linux each re-arm costs libdispatch's manager
    /// thread two system calls, docs/PERFORMANCE.md), the oldest sample
    /// waits less than the watermark's worth, and the wakes walk over the
    /// sample period's phase in golden-ratio steps, so that the brackets
    /// "newest sample made before this read" average out to the chip's
    /// real phase in the fit.
    var fifoInterval: UInt64 {
        UInt64((Double(max(driver?.fifoWatermark ?? 1, 1)) - 0.381_966) * period)
    }

    /// Reads and publishes every sample the FIFO holds; returns the newest
    /// one's sequence number, or nil when there was none (or the read is
    /// held in `heldFIFO`).
    private func drainFIFO(_ now: UInt64, status known: Accelerometer.FIFOStatus? = nil) throws -> UInt64? {
        let driver = driver!
        guard let status = try known ?? readFIFOStatus() else { return nil }
        let after = time.nanoseconds
        if let held = heldFIFO {
            // After a recovery the next samples need not follow the held ones.
            releaseHeldFIFO(held, decidedBy: status.overrun || resynchronise ? nil : (now, after, status.level))
        }
        guard status.level > 0 else {
            pollWasEmpty = true
            _ = try handleEmpty(now)
            return nil
        }
        try driver.readFIFO(count: status.level, into: &fifoSamples)
        emptyStreak = 0
        stalledAnnounced = false
        // Which samples are these? The next ones, unless the FIFO overflowed
        // (stream mode dropped the oldest) or we lost track: then the batch
        // ends with the newest sample made by the time FIFO_SRC was read.
        // When a sample's instant falls within that read (by the fit, with
        // its error), the batch is held for the next read to number.
        var first = seq
        if status.overrun || resynchronise {
            counters.overruns += status.overrun ? 1 : 0
            resynchronise = false
            let level = Int64(status.level)
            if let (earliest, latest) = newestCandidates(now, after) {
                let earliest = max(earliest, Int64(seq) + level - 1)
                guard max(latest, earliest) == earliest else {
                    heldFIFO = (fifoSamples, now, after, earliest, fit.instant(of: UInt64(earliest + 1)) + period / 2)
                    return nil
                }
                first = UInt64(earliest - level + 1)
            } else if let last = lastInstant {
                let made = Int64((max(Double(now) - last, 0) / period).rounded(.down))
                first = UInt64(max(Int64(seq), Int64(seq) - 1 + made - level + 1))
            }
        }
        return publishFIFO(fifoSamples, first: first, readBetween: now, and: after)
    }

    /// A held overflowed read, numbered by the read after it: that one's
    /// samples came after the held ones, so the held batch ends just
    /// before them. A read that cannot say (it overflowed too, or a sample's
    /// instant falls within it) leaves the nearer guess.
    private func releaseHeldFIFO(_ held: (samples: [Counts], now: UInt64, after: UInt64, earliest: Int64, decideAt: Double),
                                 decidedBy next: (now: UInt64, after: UInt64, level: Int)?) {
        heldFIFO = nil
        var newest = held.earliest
        if let next, let (earliest, latest) = newestCandidates(next.now, next.after), earliest == latest {
            newest = min(max(earliest - Int64(next.level), held.earliest), held.earliest + 1)
        } else if fit.isUsable {
            newest = min(max(fit.newest(at: Double(held.now + held.after) / 2, lead: 0), held.earliest), held.earliest + 1)
        }
        _ = publishFIFO(held.samples, first: UInt64(max(Int64(seq), newest - Int64(held.samples.count) + 1)),
                        readBetween: held.now, and: held.after)
    }

    /// FIFO_SRC; nil (counted as a bus error) when it contradicts itself:
    /// nothing is published from it, and the next read comes soon.
    private func readFIFOStatus() throws -> Accelerometer.FIFOStatus? {
        do { return try driver!.readFIFOStatus() } catch let error as Accelerometer.FIFOStatusError {
            counters.busErrors += 1
            logger.warning("\(error)")
            return nil
        }
    }

    /// One read in FIFO stream mode for clients that want each sample at
    /// once: phase-locked like a read of the output registers, one sample a
    /// read, but what a late wake finds waiting in the FIFO is published
    /// too, numbered exactly (the FIFO keeps them in order), so a stall
    /// shorter than the FIFO loses nothing. An overflow, or a read after a
    /// recovery, is numbered by the clock as a batch is.
    private func stepFIFOAtOnce(_ now: UInt64) throws -> UInt64 {
        guard let status = try readFIFOStatus() else { return UInt64(nudge) }
        defer { lastPoll = now }
        if status.overrun || resynchronise || heldFIFO != nil {
            _ = try drainFIFO(now, status: status)
            if let held = heldFIFO { return UInt64(max(held.decideAt - Double(now), period / 10)) }
            guard fit.isUsable else { return UInt64(period) }
            return UInt64(max(fit.instant(of: seq) + margin - Double(now), period / 10))
        }
        guard status.level > 0 else {
            pollWasEmpty = true
            return try handleEmpty(now)
        }
        try driver!.readFIFO(count: status.level, into: &fifoSamples)
        emptyStreak = 0
        stalledAnnounced = false
        if status.level > 1 { publishWaiting(fifoSamples.dropLast()) }
        let instant = publish(Reading(status: .dataReady, counts: fifoSamples[status.level - 1]), at: now, late: status.level > 1)
        pollWasEmpty = false
        return schedule(after: instant, now: now)
    }

    /// Samples a late read found waiting before the newest: the next ones
    /// in order, at the fitted clock's instants.
    private func publishWaiting(_ samples: ArraySlice<Counts>) {
        var deliveries: [Delivery] = []
        deliveries.reserveCapacity(samples.count)
        for counts in samples {
            let instant = fit.isUsable ? fit.instant(of: seq) : (lastInstant ?? Double(lastPoll)) + period
            let (frame, events) = deliver(counts, instant: instant)
            deliveries.append(Delivery(frame: frame, events: events))
        }
        send(.batch(deliveries))
    }

    /// The newest sample the fit says was made by a read between `now` and
    /// `after`, at the earliest and latest (widened by 8 % of a period, the
    /// fit's error); nil without a usable fit.
    private func newestCandidates(_ now: UInt64, _ after: UInt64) -> (Int64, Int64)? {
        guard fit.isUsable else { return nil }
        let error = 0.08 * period
        return (fit.newest(at: Double(now) - error, lead: 0), fit.newest(at: Double(after) + error, lead: 0))
    }

    /// Publishes a FIFO read's samples as `first`, `first + 1`, ...
    /// (samples skipped before `first` are counted lost); returns the newest.
    private func publishFIFO(_ samples: [Counts], first: UInt64, readBetween now: UInt64, and after: UInt64) -> UInt64 {
        counters.lost += Int(first - seq)
        seq = first
        let newest = first + UInt64(samples.count) - 1
        // The newest sample was made in the period before the read: a
        // coarse measurement that batched wakes average out (their phase
        // walks); reads at once measure the phase precisely instead
        // (`publish`), and one such point per overflow would only blur it.
        if driver!.fifoWatermark > 1 {
            fit.add(seq: newest, t: Double(now + after) / 2 - period / 2, nominalPeriod: 1e9 / Double(configuration.rate))
        }
        var deliveries: [Delivery] = []
        deliveries.reserveCapacity(samples.count)
        for (index, counts) in samples.enumerated() {
            let instant = fit.count >= 4 ? fit.instant(of: seq) : Double(now) - period * (Double(samples.count - index) - 0.5)
            let (frame, events) = deliver(counts, instant: instant)
            deliveries.append(Delivery(frame: frame, events: events))
        }
        send(.batch(deliveries))
        return newest
    }

    /// The FIFO watermark for a latency of `milliseconds` (nil: samples as
    /// they come). A part with a FIFO keeps it in stream mode whatever the
    /// clients ask, so that a host stall shorter than the FIFO loses
    /// nothing: watermark 1 reads each sample as it comes (and whatever a
    /// late read finds waiting), more batches them. The oldest sample of a
    /// batch waits a watermark's worth of periods plus up to a period of
    /// dither; the watermark leaves at least 10 ms of room for a late wake.
    /// 0: the part has no FIFO.
    public static func watermark(latency milliseconds: Double?, rate: Int, profile: ChipProfile) -> Int {
        guard let fifo = profile.fifo else { return 0 }
        guard let milliseconds else { return 1 }
        let period = 1000 / Double(rate)
        let fits = Int(((milliseconds - 1) / period).rounded(.down)) - 1
        let room = fifo.depth - max(4, Int((10 / period).rounded(.up)))
        let watermark = min(fits, room)
        return watermark >= 2 ? watermark : 1
    }

    /// Applies the latency the most demanding client allows (nil: no
    /// batching). Returns the watermark now in effect. Call on `queue`.
    @discardableResult
    public func allowLatency(milliseconds: Double?) throws -> Int {
        latency = milliseconds
        defer { if holdLimit == nil { release() } }
        guard let driver else { return 0 }
        let watermark = Sampler.watermark(latency: milliseconds, rate: configuration.rate, profile: driver.profile)
        guard watermark != configuration.fifoWatermark else { return watermark }
        if let held = heldFIFO { releaseHeldFIFO(held, decidedBy: nil) }
        configuration.fifoWatermark = watermark
        // The FIFO stays in stream mode: its samples follow on in order,
        // whatever the watermark, and the next read reads them all.
        try driver.setFIFOWatermark(watermark)
        return watermark
    }

    private func handleEmpty(_ now: UInt64) throws -> UInt64 {
        counters.emptyReads += 1
        emptyStreak += 1
        if paced {
            // The bit clears: it works again. Back to the phase lock.
            paced = false
            impossibleTimes.removeAll()
            let message = "the chip's data-ready bit clears again: following its clock by its data-ready bit again"
            logger.notice("\(message)")
            send(.device(DeviceEvent(state: .dataReadyBack, message: message)))
        }
        let silent = Double(now) - (lastInstant ?? Double(lastPoll))
        if emptyStreak >= 4 && silent > 3 * period {
            // A chip reset by a power glitch is powered down: no data, ever.
            // (Or another part now answers there: never configure that one.)
            if try !driver!.configurationIsIntact() {
                try driver!.verifyIdentity()
                try reconfigure(.reconfigured, "the chip had lost its configuration (power glitch?) and was configured again")
                return 0
            }
            if silent > 20 * period && !stalledAnnounced {
                stalledAnnounced = true
                logger.warning("the chip produces no data although it is configured")
                send(.device(DeviceEvent(state: .stalled, message: "the chip at \(driver!.bus.location) answers but produces no new samples")))
            }
        }
        // Nudge the phase: look again a little later.
        return UInt64(nudge)
    }

    /// The chip starts a new sample clock whenever it is configured.
    private func restartPhase() {
        lastAccepted = nil
        tokens = 3
        paced = false
        impossibleTimes.removeAll()
        acquirePhase()
        resynchronise = true
    }

    /// Forgets the fitted clock and probes for the phase from the nominal period.
    private func acquirePhase() {
        fit.reset(nominalPeriod: 1e9 / Double(configuration.rate))
        probeCountdown = 1
        probing = false
        probeLead = nil
        readsSinceAcquisition = 0
    }

    private func reconfigure(_ state: DeviceEvent.State, _ message: String) throws {
        try driver!.configure(configuration)
        restartPhase()
        counters.reconfigurations += state == .reconfigured ? 1 : 0
        emptyStreak = 0
        logger.notice("\(message)")
        send(.device(DeviceEvent(state: state, message: message)))
    }

    private func handleFailure(_ error: Error, _ now: UInt64) -> UInt64 {
        counters.busErrors += 1
        if let busError = error as? BusError, !busError.isTransient {
            driver = nil  // reopen from scratch (an adapter that went away)
        }
        if case DriverError.wrongPart = error {
            // Said at once, and sampling stays suspended until the part
            // clients were told about answers again.
            if !wrongPartAnnounced {
                wrongPartAnnounced = true
                logger.error("\(error)")
                send(.device(DeviceEvent(state: .wrongPart, message: "\(error)")))
            }
            failure = (failure?.since ?? now, 250_000_000, true)
            return 250_000_000
        }
        guard var failure else {
            // First failure: retry at once; one glitch is not worth a message.
            self.failure = (now, 10_000_000, false)
            return 1_000_000
        }
        if !failure.announced {
            failure.announced = true
            logger.error("device lost: \(error)")
            send(.device(DeviceEvent(state: .lost, message: "\(error)")))
        }
        let delay = failure.delay
        failure.delay = min(failure.delay * 2, 250_000_000)
        self.failure = failure
        return delay
    }

    private func recover(_ now: UInt64) -> UInt64 {
        do {
            if driver == nil {
                let fresh = try connect()
                if let servedPart, fresh.profile.name != servedPart {
                    let expected = ChipProfile.named(servedPart)!.whoAmI
                    throw DriverError.wrongPart(location: fresh.bus.location, part: servedPart, expected: expected,
                                                found: try fresh.bus.readRegister(0x0F))
                }
                configuration.fifoWatermark = Sampler.watermark(latency: latency, rate: configuration.rate, profile: fresh.profile)
                fresh.calibration = calibration
                fresh.mountMatrix = mountMatrix
                driver = fresh
            }
            // The chip may have been swapped while it did not answer.
            try driver!.verifyIdentity()
            if try !driver!.configurationIsIntact() {
                try driver!.configure(configuration)
                counters.reconfigurations += 1
                restartPhase()
            }
        } catch {
            return handleFailure(error, now)
        }
        if let failure, failure.announced {
            counters.recoveries += 1
            let seconds = Double(now - failure.since) / 1e9
            logger.notice("device back after \(fixed(seconds, 3)) s")
            send(.device(DeviceEvent(state: .back, message: "the chip answers again after \(fixed(seconds, 3)) s")))
        }
        failure = nil
        wrongPartAnnounced = false
        resynchronise = true
        // Read in phase, `margin` after a sample is due, where "the newest
        // sample" is unambiguous (the chip ran on meanwhile).
        guard fit.isUsable else { return 0 }
        let next = fit.instant(of: UInt64(max(fit.newest(at: Double(now)) + 1, 0)))
        return UInt64(max(next + margin - Double(now), 0))
    }

    // MARK: Requests from clients (call on `queue`)

    public var calibration: Calibration = .identity {
        didSet { driver?.calibration = calibration }
    }

    public var mountMatrix: MountMatrix = .identity {
        didSet { driver?.mountMatrix = mountMatrix }
    }

    public var settings: MotionSettings { pipeline.settings }

    /// How long after a sample is due the normal read comes: 15 % of a
    /// period, at most 0.3 ms.
    private var margin: Double { min(period * 0.15, 300_000) }
    /// How long after an empty read the next one comes: a fifth of a period,
    /// at most 0.5 ms. It is also the width of a phase measurement.
    private var nudge: Double { min(period / 5, 500_000) }
    /// How early a probe aims: 15 % of a period, at most 0.4 ms (the fit is
    /// good to a few per cent), so one nudge usually finds the sample.
    private var initialLead: Double { min(period * 0.15, 400_000) }

    /// New tunables, keeping the pipeline's state (SIGHUP).
    public func update(settings: MotionSettings) { pipeline.update(settings) }

    /// Changes range, rate and mode on the running chip (the FIFO
    /// watermark follows the new rate).
    public func reconfigure(to configuration: DeviceConfiguration) throws {
        guard let driver else { throw BusError.noAnswer(path: "the device", address: 0) }
        var configuration = configuration
        configuration.fifoWatermark = Sampler.watermark(latency: latency, rate: configuration.rate, profile: driver.profile)
        _ = try driver.registerValues(for: configuration)  // validate before touching the chip
        self.configuration = configuration
        try reconfigure(.configured, "now ±\(configuration.range) g at \(configuration.rate) Hz")
    }

    /// Runs the datasheet self-test (sampling pauses for about 0.2 s), then
    /// restores the configuration.
    public func selfTest() throws -> SelfTestReport {
        guard let driver else { throw BusError.noAnswer(path: "the device", address: 0) }
        let report = try driver.selfTest()
        try driver.configure(configuration)
        restartPhase()
        return report
    }

    /// Collects chip-axis readings (uncalibrated g) until `collect` returns true.
    public func collect(_ collect: @escaping (Vector3) -> Bool) { collector = collect }
}
