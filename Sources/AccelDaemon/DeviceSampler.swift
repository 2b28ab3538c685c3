// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Dispatch

/// A source of readings, as the daemon, the hub and the request router
/// see it: `Sampler` on the chip's registers (i2c-dev or the chip model,
/// paced by the timer or by the chip's INT line), `IIOSampler` on a kernel
/// driver's IIO buffer. A source decides which sample a reading is and
/// when it was made; everything after that is its `publisher`'s, the same
/// for every source, and so is written once below.
///
/// Everything but `queue` is called on `queue` (the hub's `onSampler`
/// sends it there as a message), between two reads: the source's state is
/// never touched from elsewhere, and the control side never waits for it.
protocol DeviceSampler: AnyObject, Sendable {
    var queue: DispatchQueue { get }
    /// Numbers, counts and hands on what the source reads.
    var publisher: Publisher { get set }
    var configuration: DeviceConfiguration { get }
    var calibration: Calibration { get set }
    var mountMatrix: MountMatrix { get set }
    /// Nanoseconds of the last wake, for the watchdog (read on another thread).
    var lastStep: UInt64 { get }
    /// What hello says of the device; nil before it was first reached.
    var identity: (chip: String, location: String, profile: ChipProfile?)? { get }
    /// The gyroscope's full scale in dps, for hello; nil without one.
    var gyroscopeRange: Int? { get }

    func open() throws
    func start()
    func stop(powerDown: Bool)
    func reconfigure(to configuration: DeviceConfiguration) throws
    func selfTest() throws -> SelfTestReport

    // What only some sources do; the others take the defaults below.

    /// Judges a six-axis part's gyroscope offset at rest before the first
    /// frame, and logs the verdict; nil where it was not measured.
    @discardableResult
    func checkGyroscopeAtRest() -> GyroscopeRest?
    /// A six-axis part's gyroscope self-test; nil without one (or without registers to run it).
    func gyroscopeSelfTest() throws -> GyroscopeSelfTestReport?
    /// Collects chip-axis readings (uncalibrated g) until `collect` returns true.
    func collect(_ collect: @escaping (Vector3) -> Bool)
    /// The latency every watching client allows (ms; nil: none); returns
    /// the FIFO watermark it chose (0: none).
    func allowLatency(milliseconds: Double?) throws -> Int
    /// Whether any client watches frames ([power] wake-on-motion sleeps
    /// only while none does).
    func framesWatched(_ watched: Bool)
}

extension DeviceSampler {
    /// Every entry into the sampling loop runs on its queue (the interrupt
    /// thread's steps inside `queue.sync`): checked in debug and
    /// ThreadSanitizer builds, free in release.
    @inline(__always)
    func assertOnLoop() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }

    var counters: SamplerCounters { publisher.counters }

    var output: (SamplerOutput) -> Void {
        get { publisher.output }
        set { publisher.output = newValue }
    }

    var settings: MotionSettings { publisher.pipeline.settings }

    /// New tunables, keeping the pipeline's state (SIGHUP).
    func update(settings: MotionSettings) { publisher.pipeline.update(settings) }

    func checkGyroscopeAtRest() -> GyroscopeRest? { nil }

    func gyroscopeSelfTest() throws -> GyroscopeSelfTestReport? { nil }

    func collect(_ collect: @escaping (Vector3) -> Bool) {
        assertOnLoop()  // the reads use it between two wakes
        publisher.collector = collect
    }

    /// Frames go as the source reads them: no FIFO to batch them.
    func allowLatency(milliseconds: Double?) throws -> Int { 0 }

    /// Where nothing sleeps, nothing to do.
    func framesWatched(_ watched: Bool) {}
}

extension Sampler: DeviceSampler {
    public var identity: (chip: String, location: String, profile: ChipProfile?)? {
        driver.map { ($0.profile.name, $0.bus.location, $0.profile) }
    }

    public var gyroscopeRange: Int? { driver?.profile.gyroscope?.ranges[0].dps }
}
