// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol
import Dispatch

/// What the daemon, the hub and the request router ask of whatever owns
/// the device: `Sampler` on the chip's registers (i2c-dev or the chip
/// model), `IIOSampler` on a kernel driver's IIO buffer. Everything but
/// `queue` is called on `queue`.
public protocol DeviceSampler: AnyObject, Sendable {
    var queue: DispatchQueue { get }
    var counters: SamplerCounters { get }
    var configuration: DeviceConfiguration { get }
    var calibration: Calibration { get set }
    var mountMatrix: MountMatrix { get set }
    /// Nanoseconds of the last wake, for the watchdog (read on another thread).
    var lastStep: UInt64 { get }
    var output: (SamplerOutput) -> Void { get set }
    var settings: MotionSettings { get }
    /// What hello says of the device; nil before it was first reached.
    var identity: (chip: String, location: String, profile: ChipProfile?)? { get }
    /// The gyroscope's full scale in dps, for hello; nil without one.
    var gyroscopeRange: Int? { get }

    func open() throws
    func start()
    func stop(powerDown: Bool)
    func update(settings: MotionSettings)
    func reconfigure(to configuration: DeviceConfiguration) throws
    func selfTest() throws -> SelfTestReport
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
    /// Where nothing sleeps (IIO), nothing to do.
    public func framesWatched(_ watched: Bool) {}
}

extension Sampler: DeviceSampler {
    public var identity: (chip: String, location: String, profile: ChipProfile?)? {
        driver.map { ($0.profile.name, $0.bus.location, $0.profile) }
    }

    public var gyroscopeRange: Int? { driver?.profile.gyroscope?.ranges[0].dps }
}
