// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelProtocol
import Dispatch
import Logging
import Synchronization

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
    private let logger = Logger(label: "acceld.iio")
    var publisher: Publisher
    private var buffer: IIOBuffer?
    private var gyroscope: IIOBuffer?
    /// The gyroscope's scans read and not yet paired with the accelerometer's.
    private var rates: [IIOScan] = []
    private var lastRate: Vector3?
    private var watcher: BufferWatcher?
    private var ticker: DispatchSourceTimer?
    private var numbering: ScanNumbering
    private var scans: [IIOScan] = []
    private var lastScan: UInt64 = 0
    private var stalled = false

    /// - Parameter connect: finds the device and starts its buffer at the rate given.
    public init(connect: @escaping (Int) throws -> IIOBuffer, configuration: DeviceConfiguration,
                settings: MotionSettings, time: TimeSource) {
        self.connect = connect
        self.configuration = configuration
        self.time = time
        publisher = Publisher(settings: settings)
        numbering = ScanNumbering(rate: configuration.rate)
    }

    public func open() throws {
        let buffer = try connect(configuration.rate)
        self.buffer = buffer
        let device = buffer.device
        // The range is the driver's: its scale times the largest reading.
        let bits = buffer.layout.element("in_accel_x")?.bits ?? 16
        configuration.range = Int((buffer.scale.x * Double(1 << (bits - 1))).rounded())
        configuration.mode = "iio"
        configuration.fifoWatermark = 0
        identity = (device.name.uppercased(), device.location, nil)
        lastScan = time.nanoseconds
        openGyroscope(beside: device)
    }

    /// The gyroscope's buffer, when the driver has one beside the
    /// accelerometer's; without it frames go as from an accelerometer.
    private func openGyroscope(beside device: IIODevice) {
        guard let companion = device.gyroscopeCompanion() else { return }
        do {
            let gyroscope = try IIOBuffer(device: companion, rate: configuration.rate, sensor: .anglvel)
            self.gyroscope = gyroscope
            let bits = gyroscope.layout.element("in_anglvel_x")?.bits ?? 16
            publisher.pipeline.gyroscopeRange = gyroscope.scale.x * Double(1 << (bits - 1))
        } catch {
            logger.warning("\(companion): the gyroscope cannot be read through IIO (\(error)); frames go without its rotation rate")
        }
    }

    /// The gyroscope's full scale in dps, for hello.
    public var gyroscopeRange: Int? {
        gyroscope.map { _ in Int((publisher.pipeline.gyroscopeRange * 180 / .pi).rounded()) }
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
        guard let buffer, watcher == nil else { return }
        watcher = BufferWatcher(descriptor: buffer.descriptor, target: queue, readable: { [unowned self] in read() })
    }

    /// The buffer is stopped at once; the watcher closes its descriptor
    /// when its loop has ended.
    private func closeBuffer() {
        gyroscope?.close()
        gyroscope = nil
        rates.removeAll()
        lastRate = nil
        guard let buffer else { return }
        self.buffer = nil
        guard let watcher else { return buffer.close() }
        self.watcher = nil
        buffer.close(keepingDescriptor: true)
        watcher.stop()
    }

    // MARK: Reading

    private func read() {
        let now = time.nanoseconds
        lastStepTime.store(now, ordering: .relaxed)
        publisher.counters.wakes += 1
        guard let buffer else { return }
        scans.removeAll(keepingCapacity: true)
        do {
            try buffer.read(into: &scans)
            // st_lsm6dsx pushes a FIFO word's gyroscope scan before its
            // accelerometer scan: those read here are already waiting.
            try gyroscope?.read(into: &rates)
        } catch {
            lose(error)
            return
        }
        guard !scans.isEmpty else {
            publisher.counters.emptyReads += 1
            return
        }
        lastScan = now
        if stalled {
            stalled = false
            publisher.send(.device(DeviceEvent(state: .back, message: "\(buffer.device) sends samples again")))
        }
        var deliveries: [Delivery] = []
        for scan in scans {
            for (timestamp, missing) in numbering.number(scan.timestamp) {
                let decided = timestamp == scan.timestamp ? scan : held!
                if decided == held { held = nil }
                deliveries.append(deliver(decided, after: missing, buffer: buffer))
            }
            if numbering.isHolding(scan.timestamp) { held = scan }
        }
        publisher.send(deliveries)
    }

    /// A scan whose gap waits for the next scan's stamp (`ScanNumbering`).
    private var held: IIOScan?

    /// The scan numbered `missing` samples after the previous one, as a frame.
    private func deliver(_ scan: IIOScan, after missing: Int, buffer: IIOBuffer) -> Delivery {
        let chip = buffer.chipValue(scan.counts)
        let g = mountMatrix.apply(buffer.mountMatrix.apply(calibration.apply(chip)))
        return publisher.deliver(scan.counts, chip: chip, g: g, rotation: rate(at: scan.timestamp),
                                 at: Double(scan.timestamp), after: UInt64(missing))
    }

    /// The gyroscope's reading made with the accelerometer's at
    /// `timestamp`. st_lsm6dsx stamps both from one FIFO timestamp, each
    /// device adding its own reference (taken microseconds apart), so the
    /// pair is the nearest within half a period; older ones had no partner.
    /// A reading missing keeps the last, so the fusion never stops.
    private func rate(at timestamp: Int64) -> Vector3? {
        guard let gyroscope else { return nil }
        let half = Int64(5e8 / Double(configuration.rate))
        rates.removeAll { $0.timestamp < timestamp - half }
        if let index = rates.firstIndex(where: { $0.timestamp <= timestamp + half }) {
            lastRate = mountMatrix.apply(gyroscope.mountMatrix.apply(gyroscope.chipValue(rates[index].counts)))
            rates.remove(at: index)
        }
        if rates.count > 256 { rates.removeFirst(rates.count - 256) }
        return lastRate
    }

    /// A held scan with nothing after it by `now` (or before the buffer
    /// goes): its gap stands.
    private func releaseHeld(now: Int64 = .max) {
        guard let scan = held, let buffer, let (_, missing) = numbering.release(now: now) else { return }
        held = nil
        publisher.send([deliver(scan, after: missing, buffer: buffer)])
    }

    /// Once a second: look for a lost device, or notice scans that stopped.
    private func tick() {
        let now = time.nanoseconds
        lastStepTime.store(now, ordering: .relaxed)
        guard let buffer else {
            do {
                try open()
                publisher.counters.recoveries += 1
                logger.notice("\(self.buffer!.device) is back")
                publisher.send(.device(DeviceEvent(state: .back, message: "\(self.buffer!.device.location) is back")))
                listen()
            } catch {}
            return
        }
        releaseHeld(now: Int64(time.nanoseconds))
        let silence = Double(now - lastScan) / 1e9
        if !stalled && silence > max(2, 20 / Double(configuration.rate)) {
            stalled = true
            let message = "no samples from \(buffer.device) for \(Int(silence)) s: its trigger \(buffer.trigger ?? "(none)") stopped firing (an interrupt line that never rises, or another program changed current_trigger)"
            logger.warning("\(message)")
            publisher.send(.device(DeviceEvent(state: .stalled, message: message)))
        }
    }

    private func lose(_ error: Error) {
        releaseHeld()
        publisher.counters.busErrors += 1
        let device = buffer?.device.description ?? "the IIO device"
        closeBuffer()
        stalled = false
        logger.error("\(error); looking for \(device) once a second")
        publisher.send(.device(DeviceEvent(state: .lost, message: "\(error)")))
    }
}

extension IIOSampler: DeviceSampler {
    /// A new rate: the buffer is set up again at it (the driver checks it
    /// against its list). The range is the driver's.
    public func reconfigure(to wanted: DeviceConfiguration) throws {
        assertOnLoop()
        guard let device = buffer?.device else { throw IIOError.gone(device: "the IIO device") }
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
        numbering.restart(rate: wanted.rate)
        listen()
        publisher.send(.device(DeviceEvent(state: .configured, message: "now \(wanted.rate) Hz", configuration: configuration)))
    }

    public func selfTest() throws -> SelfTestReport {
        assertOnLoop()
        throw IIOError.registersUnavailable(device: buffer?.device.description ?? "the IIO device")
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
