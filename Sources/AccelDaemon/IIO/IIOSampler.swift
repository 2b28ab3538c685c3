// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Dispatch
import Logging
import Synchronization

private let iioLogger = Logger(label: "acceld.iio")

/// Owns an accelerometer that a kernel driver drives, through its IIO
/// buffer: the kernel samples it on its trigger (the chip's data-ready
/// interrupt, or an hrtimer) and stamps each scan; a read source on
/// `queue` wakes when scans wait, and each becomes a frame. Sequence
/// numbers come from the timestamps (`ScanNumbering`). When the device
/// goes away it says `lost`, looks for it once a second and says `back`;
/// when scans stop coming it says `stalled`. Everything above is as on
/// i2c-dev: the pipeline, events, clients. Where the driver shows the
/// chip's gyroscope as a device of its own (st_lsm6dsx), its buffer runs
/// beside and each frame carries the rate of its own sample.
/// (Unchecked: everything is confined to `queue`; `lastStep` is atomic.)
public final class IIOSampler: @unchecked Sendable {
    public let queue = DispatchQueue(label: "acceld.sampler", qos: .userInteractive)
    public private(set) var configuration: DeviceConfiguration
    public var calibration: Calibration = .identity
    /// The configuration's mount matrix, after the driver's own.
    public var mountMatrix: MountMatrix = .identity
    public var lastStep: UInt64 { lastStepTime.load(ordering: .relaxed) }
    public private(set) var identity: (chip: String, location: String, profile: ChipProfile?)?

    private let lastStepTime = Atomic<UInt64>(0)
    private let connect: (Int) throws -> IIOBuffer
    private let time: TimeSource
    private var logger: Logger { iioLogger }
    var publisher: Publisher
    /// The open buffers; nil while the device is lost.
    private var stream: IIOStream?
    /// Once a second: looks for a lost device, notices scans that stopped.
    private var ticker: DispatchSourceTimer?
    private var track: IIOReadTrack

    /// - Parameter connect: finds the device and starts its buffer at the rate given.
    public init(connect: @escaping (Int) throws -> IIOBuffer, configuration: DeviceConfiguration,
                settings: MotionSettings, time: TimeSource) {
        self.connect = connect
        self.configuration = configuration
        self.time = time
        publisher = Publisher(settings: settings)
        track = IIOReadTrack(rate: configuration.rate)
    }

    public func open() throws {
        let buffer = try connect(configuration.rate)
        let device = buffer.device
        // The range is the driver's: its scale times the largest reading.
        let bits = buffer.layout.element("in_accel_x")?.bits ?? 16
        configuration.range = Int((buffer.scale.x * Double(1 << (bits - 1))).rounded())
        configuration.mode = "iio"
        configuration.fifoWatermark = 0
        identity = (device.name.uppercased(), device.location, nil)
        track.lastScan = time.nanoseconds
        stream = IIOStream(buffer: buffer, gyroscope: openGyroscope(beside: device))
    }

    /// The gyroscope's buffer, when the driver has one beside the
    /// accelerometer's; without it frames go as from an accelerometer.
    private func openGyroscope(beside device: IIODevice) -> IIOBuffer? {
        guard let companion = device.gyroscopeCompanion() else { return nil }
        do {
            let gyroscope = try IIOBuffer(device: companion, rate: configuration.rate, sensor: .anglvel)
            let bits = gyroscope.layout.element("in_anglvel_x")?.bits ?? 16
            publisher.pipeline.gyroscopeRange = gyroscope.scale.x * Double(1 << (bits - 1))
            return gyroscope
        } catch {
            logger.warning("\(companion): the gyroscope cannot be read through IIO (\(error)); frames go without its rotation rate")
            return nil
        }
    }

    /// The gyroscope's full scale in dps, for hello.
    public var gyroscopeRange: Int? {
        stream?.gyroscope.map { _ in Int((publisher.pipeline.gyroscopeRange * 180 / .pi).rounded()) }
    }

    public func start() {
        let ticker = DispatchSource.makeTimerSource(queue: queue)
        ticker.schedule(deadline: .now() + 1, repeating: 1)
        ticker.setEventHandler { [unowned self] in tick() }
        ticker.resume()
        self.ticker = ticker
        listen()
    }

    public func stop(powerDown: Bool) {
        assertOnLoop()
        ticker?.cancel()
        ticker = nil
        closeBuffer()
    }

    private func listen() {
        stream?.listen(on: queue) { [unowned self] in read() }
    }

    private func closeBuffer() {
        stream?.close()
        stream = nil
    }

    // MARK: Reading

    private func read() {
        let now = time.nanoseconds
        lastStepTime.store(now, ordering: .relaxed)
        publisher.counters.wakes += 1
        guard stream != nil else { return }
        do {
            try stream!.read()
        } catch {
            lose(error)
            return
        }
        let scans = stream!.scans
        guard !scans.isEmpty else {
            publisher.counters.emptyReads += 1
            return
        }
        track.lastScan = now
        if track.stalled {
            track.stalled = false
            publisher.send(.device(DeviceEvent(state: .back, message: "\(stream!.buffer.device) sends samples again")))
        }
        var deliveries: [Delivery] = []
        for scan in scans {
            for (timestamp, missing) in track.numbering.number(scan.timestamp) {
                let decided = timestamp == scan.timestamp ? scan : track.held!
                if decided == track.held { track.held = nil }
                deliveries.append(deliver(decided, after: missing))
            }
            if track.numbering.isHolding(scan.timestamp) { track.held = scan }
        }
        publisher.send(deliveries)
    }

    /// The scan numbered `missing` samples after the previous one, as a
    /// frame (there is a stream).
    private func deliver(_ scan: IIOScan, after missing: Int) -> Delivery {
        let buffer = stream!.buffer
        let chip = buffer.chipValue(scan.counts)
        let g = mountMatrix.apply(buffer.mountMatrix.apply(calibration.apply(chip)))
        let rotation = stream!.rate(at: scan.timestamp, rate: configuration.rate, mountMatrix: mountMatrix)
        return publisher.deliver(scan.counts, chip: chip, g: g, rotation: rotation, at: Double(scan.timestamp), after: UInt64(missing))
    }

    /// A held scan with nothing after it by `now` (or before the buffer
    /// goes): its gap stands.
    private func releaseHeld(now: Int64 = .max) {
        guard let scan = track.held, stream != nil, let (_, missing) = track.numbering.release(now: now) else { return }
        track.held = nil
        publisher.send([deliver(scan, after: missing)])
    }

    /// Once a second: look for a lost device, or notice scans that stopped.
    private func tick() {
        let now = time.nanoseconds
        lastStepTime.store(now, ordering: .relaxed)
        guard let buffer = stream?.buffer else {
            do {
                try open()
                publisher.counters.recoveries += 1
                let device = stream!.buffer.device
                logger.notice("\(device) is back")
                publisher.send(.device(DeviceEvent(state: .back, message: "\(device.location) is back")))
                listen()
            } catch {}
            return
        }
        releaseHeld(now: Int64(time.nanoseconds))
        let silence = Double(now - track.lastScan) / 1e9
        if !track.stalled && silence > max(2, 20 / Double(configuration.rate)) {
            track.stalled = true
            let message = "no samples from \(buffer.device) for \(Int(silence)) s: its trigger \(buffer.trigger ?? "(none)") stopped firing (an interrupt line that never rises, or another program changed current_trigger)"
            logger.warning("\(message)")
            publisher.send(.device(DeviceEvent(state: .stalled, message: message)))
        }
    }

    private func lose(_ error: Error) {
        releaseHeld()
        publisher.counters.busErrors += 1
        let device = stream?.buffer.device.description ?? "the IIO device"
        closeBuffer()
        track.stalled = false
        logger.error("\(error); looking for \(device) once a second")
        publisher.send(.device(DeviceEvent(state: .lost, message: "\(error)")))
    }
}

extension IIOSampler: DeviceSampler {
    /// A new rate: the buffer is set up again at it (the driver checks it
    /// against its list). The range is the driver's.
    public func reconfigure(to wanted: DeviceConfiguration) throws {
        assertOnLoop()
        guard let device = stream?.buffer.device else { throw IIOError.gone(device: "the IIO device") }
        guard wanted.range == configuration.range else {
            throw IIOError.fixedRange(device: device.description, range: configuration.range)
        }
        try device.setSamplingFrequency(wanted.rate)
        releaseHeld()
        closeBuffer()
        let previous = configuration.rate
        configuration.rate = wanted.rate
        do { try open() } catch {
            configuration.rate = previous
            try? open()
            listen()
            throw error
        }
        track.numbering.restart(rate: wanted.rate)
        listen()
        publisher.send(.device(DeviceEvent(state: .configured, message: "now \(wanted.rate) Hz", configuration: configuration)))
    }

    public func selfTest() throws -> SelfTestReport {
        assertOnLoop()
        throw IIOError.registersUnavailable(device: stream?.buffer.device.description ?? "the IIO device")
    }

    var snapshot: SourceSnapshot {
        SourceSnapshot(configuration: configuration, part: identity, gyroscopeRange: gyroscopeRange,
                       calibration: calibration, mountMatrix: mountMatrix)
    }

    /// No registers to run the gyroscope's self-test, and its offset is
    /// the kernel driver's to judge (nil for both). Frames go as the
    /// kernel hands them over: no latency to allow (watermark 0), and
    /// nothing sleeps, so frames watched change nothing.
    func handle(_ request: SourceRequest) throws -> SourceReply {
        assertOnLoop()
        switch request {
        case .configure(let wanted):
            try reconfigure(to: wanted)
            return .configured(configuration)
        case .selfTest: return .selfTest(try selfTest(), nil)
        case .allowLatency: break
        case .framesWatched: break
        case .calibrate(let calibration): self.calibration = calibration
        case .mount(let matrix): mountMatrix = matrix
        case .collect(let collect): install(collector: collect)
        case .checkGyroscopeAtRest: return .gyroscopeRest(nil)
        }
        return .done
    }
}
