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
/// for every source. Eight requirements, as iio-sensor-proxy's drivers
/// have a handful: open, start, stop, what it found, and requests.
///
/// Everything but `queue` and `lastStep` is called on `queue`, between two
/// reads (the hub's `onSampler` sends it there as a message): the source's
/// state is never touched from elsewhere, and the control side never
/// waits for it.
protocol DeviceSampler: AnyObject, Sendable {
    var queue: DispatchQueue { get }
    /// Numbers, counts and hands on what the source reads.
    var publisher: Publisher { get set }
    /// Nanoseconds of the last wake, for the watchdog (read on another thread).
    var lastStep: UInt64 { get }
    /// The device as the source now runs it.
    var snapshot: SourceSnapshot { get }

    func open() throws
    func start()
    func stop(powerDown: Bool)
    /// A request from the control side, between two reads; throws what
    /// the device or the source refused.
    func handle(_ request: SourceRequest) throws -> SourceReply
}

/// What the control side asks of a source, in the order it was sent.
enum SourceRequest {
    /// Range, rate and mode (the part refuses what it cannot do): `.configured`.
    case configure(DeviceConfiguration)
    /// The datasheet's self-test, and a six-axis part's gyroscope's: `.selfTest`.
    case selfTest
    /// The latency every watching client allows (ms; nil: none); a new FIFO watermark goes out as `.configuration`.
    case allowLatency(Double?)
    /// Whether any client watches frames ([power] wake-on-motion sleeps only while none does).
    case framesWatched(Bool)
    /// The correction applied from the next reading.
    case calibrate(Calibration)
    /// The board's axes from the chip's ([device] mount-matrix).
    case mount(MountMatrix)
    /// Chip-axis readings (uncalibrated g), each handed over until it returns true.
    case collect((Vector3) -> Bool)
    /// A six-axis part's gyroscope offset judged at rest before the first frame: `.gyroscopeRest`.
    case checkGyroscopeAtRest
}

/// A source's answer to a `SourceRequest`.
enum SourceReply {
    case done
    case configured(DeviceConfiguration)
    /// The gyroscope's report is nil without one (or without registers to run it).
    case selfTest(SelfTestReport, GyroscopeSelfTestReport?)
    /// Nil where it was not measured.
    case gyroscopeRest(GyroscopeRest?)

    /// A reply of another kind than its request gets: a source's bug,
    /// answered to the client as an error rather than with silence.
    struct Unexpected: Error, CustomStringConvertible {
        let request: String
        var description: String { "the source answered \(request) with another kind of reply (a bug in acceld: please report it)" }
    }
}

/// The device as a source runs it: what hello, status and the `device`
/// stream describe, and what a flat calibration starts from.
struct SourceSnapshot {
    var configuration: DeviceConfiguration
    /// The part found, where: nil before it was first reached.
    var part: (chip: String, location: String, profile: ChipProfile?)?
    /// The gyroscope's full scale in dps; nil without one.
    var gyroscopeRange: Int?
    var calibration: Calibration
    var mountMatrix: MountMatrix
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

    /// Hands chip-axis readings to `collect` from the next read on.
    func install(collector collect: @escaping (Vector3) -> Bool) {
        assertOnLoop()  // the reads use it between two wakes
        publisher.collector = collect
    }
}

extension Sampler: DeviceSampler {
    var snapshot: SourceSnapshot {
        SourceSnapshot(configuration: configuration, part: driver.map { ($0.profile.name, $0.bus.location, $0.profile) },
                       gyroscopeRange: driver?.profile.gyroscope?.ranges[0].dps, calibration: calibration, mountMatrix: mountMatrix)
    }

    func handle(_ request: SourceRequest) throws -> SourceReply {
        assertOnLoop()
        switch request {
        case .configure(let wanted):
            try reconfigure(to: wanted)
            return .configured(configuration)
        case .selfTest: return .selfTest(try selfTest(), try gyroscopeSelfTest())
        case .allowLatency(let milliseconds): try allowLatency(milliseconds: milliseconds)
        case .framesWatched(let watched): framesWatched(watched)
        case .calibrate(let calibration): self.calibration = calibration
        case .mount(let matrix): mountMatrix = matrix
        case .collect(let handler): collect(handler)
        case .checkGyroscopeAtRest: return .gyroscopeRest(checkGyroscopeAtRest())
        }
        return .done
    }
}
