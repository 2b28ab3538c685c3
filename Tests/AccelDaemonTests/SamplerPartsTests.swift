// SPDX-License-Identifier: Apache-2.0
import AccelCore
@testable import AccelDaemon
import AccelDriver
import AccelParts
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// The sampler's parts, each on its own: fed the instants and answers a
/// chip would give, on a virtual clock. (The Sampler's own tests drive them
/// together against the chip model.)
@Suite("Sampler parts")
struct SamplerPartsTests {
    // MARK: DataReadyGuard

    @Test("data-ready guard: a healthy chip's reads are all published, whatever its clock within the tolerance", arguments: [-0.09, 0.0, 0.09])
    func guardHealthy(clockError: Double) {
        var guardian = DataReadyGuard()
        let period = 1e9 / (400 * (1 + clockError))
        for n in 1...4000 {
            #expect(guardian.judge(at: UInt64(Double(n) * period), fittedDue: nil, rate: 400, tolerance: 0.1, margin: 300_000) == .publish)
        }
        #expect(!guardian.isPacing)
    }

    @Test("data-ready guard: a bit stuck at 1 publishes at most the ODR plus its tolerance, is called stuck once, paces, and an empty read ends it")
    func guardStuck() {
        var guardian = DataReadyGuard()
        let rate = 100, period = 10_000_000.0
        var published = 0, stuck = 0
        var now: UInt64 = 0
        // Read three times a period for 2 s; every read says "new data".
        while now < 2_000_000_000 {
            switch guardian.judge(at: now, fittedDue: nil, rate: rate, tolerance: 0.1, margin: 1_500_000) {
            case .publish: published += 1
            case .stuck: stuck += 1
            case .reject: break
            }
            now += UInt64(period / 3)
        }
        #expect(stuck == 1 && guardian.isPacing)
        #expect(published <= Int(2 * Double(rate) * 1.1) + 3, "\(published) published in 2 s at \(rate) Hz")
        // Paced: every 40th read looks half a period early.
        let reads = (0..<80).map { _ in guardian.nextPacedRead(now: now, fittedDue: Double(now) + period, period: period, margin: 1_500_000) }
        #expect(reads.filter { $0 < Double(now) + period }.count == 2)
        let ended = guardian.sawEmpty(), endedAgain = guardian.sawEmpty()
        #expect(ended && !guardian.isPacing)
        #expect(!endedAgain, "said once")
    }

    // MARK: Recovery

    @Test("recovery: one glitch is retried at once and told to nobody; an outage is told once, retried from 10 ms doubling to 250 ms, and its end says how long")
    func recoveryBackOff() {
        var recovery = Recovery()
        let error = BusError.transfer(path: "/dev/i2c-1", operation: "read", errno: 5)
        let first = recovery.failed(error, at: 0)
        #expect(first.retryIn == 1_000_000 && first.event == nil && recovery.isFailing)
        var delays: [UInt64] = []
        var events: [DeviceEvent.State] = []
        var now: UInt64 = 1_000_000
        for _ in 0..<8 {
            let (retryIn, event) = recovery.failed(error, at: now)
            delays.append(retryIn)
            if let event { events.append(event.state) }
            now += retryIn
        }
        #expect(events == [.lost])
        #expect(delays == [10, 20, 40, 80, 160, 250, 250, 250].map { $0 * 1_000_000 })
        let back = recovery.recovered(at: 2_000_000_000)
        #expect(back?.state == .back && back?.message.contains("2.000 s") == true, "\(String(describing: back))")
        #expect(!recovery.isFailing)
        // A single glitch that recovers at once says nothing at all.
        _ = recovery.failed(error, at: 3_000_000_000)
        #expect(recovery.recovered(at: 3_001_000_000) == nil)
    }

    @Test("recovery: another part at the address is told at once, once, and retried every 250 ms until the right one is back")
    func recoveryWrongPart() {
        var recovery = Recovery()
        let error = DriverError.wrongPart(location: "/dev/i2c-1 at 0x1c", part: "LIS302DL", expected: 0x3b, found: 0x33)
        let tries = (0..<4).map { recovery.failed(error, at: UInt64($0) * 250_000_000) }
        #expect(tries.map(\.retryIn) == Array(repeating: 250_000_000, count: 4))
        #expect(tries.compactMap(\.event?.state) == [.wrongPart])
        #expect(recovery.recovered(at: 1_000_000_000)?.state == .back)
    }

    // MARK: PhaseLock

    @Test("phase lock: brackets of a chip's clock give its period and phase; each sample is then read soon after it is made, at about 1.03 reads a sample",
          arguments: [-0.08, 0.04])
    func phaseLockFollows(clockError: Double) {
        var lock = PhaseLock(rate: 100)
        let truePeriod = 10_000_000 / (1 + clockError), phase = 3_456_789.0
        let instant = { (n: UInt64) in phase + Double(n) * truePeriod }
        // Bracket measurements good to ±5 % of a period, as the reads give.
        for n in UInt64(0)..<32 {
            lock.measured(seq: n, at: instant(n) + (n % 2 == 0 ? 1 : -1) * 0.05 * truePeriod)
        }
        #expect(abs(lock.period / truePeriod - 1) < 0.01, "period \(lock.period) against \(truePeriod)")
        // The sampler's loop: a read before the sample finds nothing and is
        // nudged until one finds it; an empty read and the next bracket it.
        var reads = 0, probes = 0, worst = 0.0
        for n in UInt64(32)..<1032 {
            var read = lock.nextRead(after: instant(n - 1), seq: n)
            reads += 1
            var empty: Double?
            while read < instant(n) {
                empty = read
                read += lock.nudge
                reads += 1
            }
            if let empty {
                probes += 1
                lock.measured(seq: n, at: (empty + read) / 2)
            }
            worst = max(worst, read - instant(n))
        }
        #expect(Double(reads) / 1000 < 1.05, "\(reads) reads for 1000 samples, \(probes) of them probed")
        #expect(worst < 0.1 * truePeriod, "every sample read within a tenth of a period: worst \(worst / 1e6) ms")
    }

    @Test("phase lock: four late reads among the last 32 (from the 64th on) mean the lock is lost; acquiring again forgets a fit railed at the clamp, and keeps a plausible one's line until new points replace it",
          arguments: [(11_500_000.0, false), (10_300_000.0, true)])
    func phaseLockLost(measuredPeriod: Double, kept: Bool) {
        var lock = PhaseLock(rate: 100)
        for n in UInt64(0)..<40 { lock.measured(seq: n, at: Double(n) * measuredPeriod) }
        for n in 0..<64 { lock.recordRead(late: n % 2 == 0) }
        #expect(!lock.isLost, "acquiring overruns a little by itself")
        for n in 0..<32 { lock.recordRead(late: n % 10 == 0) }
        #expect(lock.isLost && lock.lateReads == 4)
        lock.acquire()
        #expect(!lock.isLost && lock.fit.count == 0)
        #expect(lock.fit.isUsable == kept)
        #expect(abs(lock.period - (kept ? measuredPeriod : 10_000_000)) < 1_000, "period \(lock.period)")
        if kept { #expect(lock.fit.newest(at: 50.5 * measuredPeriod, lead: 0) == 50) }
    }

    // MARK: FIFOReader

    @Test("FIFO reader: the watermark follows the latency, leaving room in the FIFO; 1 without a latency; 0 on a part without a FIFO")
    func watermarks() {
        #expect(FIFOReader.watermark(latency: 50, rate: 400, profile: .lis3dh) == 18)
        #expect(FIFOReader.watermark(latency: 1000, rate: 400, profile: .lis3dh) == 28)
        #expect(FIFOReader.watermark(latency: 1000, rate: 1344, profile: .lis3dh) == 18, "10 ms of room at 1344 Hz")
        #expect(FIFOReader.watermark(latency: 5, rate: 400, profile: .lis3dh) == 1)
        #expect(FIFOReader.watermark(latency: nil, rate: 400, profile: .lis3dh) == 1)
        #expect(FIFOReader.watermark(latency: 50, rate: 400, profile: .lis302dl) == 0)
        #expect(FIFOReader.interval(watermark: 18, period: 2_500_000) == UInt64(17.618_034 * 2_500_000))
    }

    /// A reader holding `count` samples, as after a read, and a lock fitted
    /// to a clock whose sample n is made at n × 2.5 ms.
    func overflowed(_ count: Int) throws -> (FIFOReader, PhaseLock) {
        let time = VirtualTime()
        let model = ChipModel(profile: .lis3dh, time: time)
        let driver = try Accelerometer(bus: model, time: time, part: .lis3dh)
        try driver.configure(DeviceConfiguration(range: 2, rate: 400, fifoWatermark: 1))
        time.sleep(nanoseconds: UInt64(count) * 2_500_000 + 20_000_000)
        var reader = FIFOReader()
        try reader.read(count, from: driver)
        var lock = PhaseLock(rate: 400)
        for n in UInt64(0)..<16 { lock.measured(seq: n, at: Double(n) * 2_500_000) }
        return (reader, lock)
    }

    @Test("FIFO reader: after an overflow a read between two samples' instants ends with the newest made; one spanning an instant is held, and the next read numbers it")
    func overflowNumbering() throws {
        var (reader, lock) = try overflowed(32)
        // Read between samples 1000 and 1001 (at 2500 ms and 2502.5 ms).
        let numbered = reader.numberAfterGap(readAt: 2_500_600_000, until: 2_500_900_000, next: 500, lock: lock, lastInstant: nil)
        let clear = try #require(numbered)
        #expect(clear.first == 1000 - 31 && clear.samples.count == 32)
        #expect(reader.held == nil)
        // A read whose window holds sample 1001's instant: which it had, nobody can say yet.
        let spanning = reader.numberAfterGap(readAt: 2_502_450_000, until: 2_502_600_000, next: 500, lock: lock, lastInstant: nil)
        #expect(spanning == nil)
        let held = try #require(reader.held)
        #expect(held.earliest == 1000 && abs(held.decideAt - 2_503_750_000) < 1)
        // The next read, half a period after 1001's instant, found 1 sample: 1002 had not come,
        // so 1001 was its one sample, and the held batch ended with 1000.
        let released = reader.releaseHeld(decidedBy: (now: 2_503_750_000, after: 2_503_900_000, level: 1), next: 500, lock: lock)
        let batch = try #require(released)
        #expect(batch.first + UInt64(batch.samples.count) - 1 == 1000)
        #expect(reader.held == nil)
    }

    // MARK: SamplerTimer

    @Test("timer shell: steps run on the sampler's queue, as often as they ask, and none after stop")
    func timerShell() throws {
        let queue = DispatchQueue(label: "test.sampler")
        let time = MonotonicTime()
        let timer = SamplerTimer(queue: queue, time: time, realtimePriority: 0)
        let steps = Mutex(0)
        queue.sync {
            timer.start {
                dispatchPrecondition(condition: .onQueue(queue))
                steps.withLock { $0 += 1 }
                return SamplerTimer.Next(at: time.nanoseconds + 1_000_000, interval: 1_000_000, early: 100_000, late: 300_000)
            }
        }
        // However starved the host, 20 steps come; then stop, and no more.
        var waited = 0
        while steps.withLock({ $0 }) < 20 && waited < 2000 {
            usleep(10_000)
            waited += 1
        }
        queue.sync { timer.stop() }
        let stopped = steps.withLock { $0 }
        #expect(stopped >= 20 && !timer.isRunning)
        usleep(50_000)
        #expect(steps.withLock { $0 } == stopped, "no step after stop")
    }
}
