// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelMotion
import AccelProtocol
import Dispatch
import Synchronization

public typealias AccelerometerHandler = @Sendable (AccelerometerData?, (any Error)?) -> Void
public typealias DeviceMotionHandler = @Sendable (DeviceMotion?, (any Error)?) -> Void

/// Core Motion's CMMotionManager over acceld's socket. Set an update
/// interval, start updates with a handler (push) or without one and read
/// the latest (pull), stop them. Events, lost samples and reconnection
/// come as handlers or async sequences. One connection serves everything
/// a manager is asked for; it reconnects by itself when acceld restarts.
public final class MotionManager: Sendable {
    /// Where acceld listens (`ACCELD_SOCKET` or /run/acceld/acceld.sock).
    public let socketPath: String
    let state = Mutex(State())
    private let reader = DispatchQueue(label: "AccelClient.reader")

    /// (Unchecked: its handlers are not Sendable; it lives in `state`, under its Mutex.)
    struct Subscriber: @unchecked Sendable {
        enum Kind {
            case accelerometer, deviceMotion, gyro, events(Set<MotionEventKind>), notices
            var isGyro: Bool { if case .gyro = self { true } else { false } }
        }
        let kind: Kind
        /// Seconds between deliveries (0: every frame).
        var interval: Double
        var lastDelivered = -Double.infinity
        let deliver: @Sendable (Update) -> Void
    }

    enum Update: Sendable {
        case accelerometer(AccelerometerData)
        case deviceMotion(DeviceMotion)
        case gyro(GyroData)
        case event(MotionEvent)
        case notice(ConnectionNotice)
        /// Why there are no samples: to push handlers as `(nil, error)`.
        case failure(any Error)
    }

    /// (Unchecked: it holds subscribers; it lives in `state`, under its Mutex.)
    struct State: @unchecked Sendable {
        var accelerometerInterval = 0.01
        var deviceMotionInterval = 0.01
        var gyroInterval = 0.01
        var accelerometerActive = false
        var deviceMotionActive = false
        var gyroActive = false
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 1
        var accelerometerHandlerID: Int?
        var deviceMotionHandlerID: Int?
        var gyroHandlerID: Int?
        var eventHandlerID: Int?
        var noticeHandlerID: Int?
        var latestAccelerometer: AccelerometerData?
        var latestMotion: DeviceMotion?
        var latestGyro: GyroData?
        var reference: Attitude?
        /// The latest attitude as acceld reported it (not relative).
        var latestAttitude: Attitude?
        var connection: DaemonConnection?
        var running = false
        var lost = 0
        var device: DeviceInfo?
    }

    public init(socketPath: String = DaemonConnection.defaultSocket) {
        self.socketPath = socketPath
    }

    deinit { state.withLock { $0.running = false } }

    // MARK: Availability

    /// Whether acceld answers on the socket now (it owns the accelerometer).
    public var isAccelerometerAvailable: Bool { (try? DaemonConnection(path: socketPath, timeout: 2)) != nil }
    public var isDeviceMotionAvailable: Bool { isAccelerometerAvailable }
    /// Whether acceld's part has a gyroscope (its hello says its range).
    public var isGyroAvailable: Bool { (try? DaemonConnection(path: socketPath, timeout: 2))?.device.gyroscope != nil }
    public var isAccelerometerActive: Bool { state.withLock { $0.accelerometerActive } }
    public var isDeviceMotionActive: Bool { state.withLock { $0.deviceMotionActive } }

    /// The device acceld serves, once connected.
    public var device: DeviceInfo? { state.withLock { $0.device } }

    /// Samples lost so far (gaps in the sequence of the frames received).
    public var lostSampleCount: Int { state.withLock { $0.lost } }

    // MARK: Accelerometer

    /// Seconds between accelerometer updates; served by acceld at the
    /// nearest rate the chip's divides into.
    public var accelerometerUpdateInterval: Double {
        get { state.withLock { $0.accelerometerInterval } }
        set { state.withLock { $0.accelerometerInterval = max(0, newValue) }; resubscribe() }
    }

    /// The latest sample, while accelerometer updates run (pull).
    public var accelerometerData: AccelerometerData? { state.withLock { $0.latestAccelerometer } }

    /// Starts updates without a handler: read `accelerometerData` (pull).
    public func startAccelerometerUpdates() {
        state.withLock { $0.accelerometerActive = true }
        resubscribe()
    }

    /// Starts updates delivered to `handler` on `queue` (push).
    public func startAccelerometerUpdates(to queue: DispatchQueue, withHandler handler: @escaping AccelerometerHandler) {
        let id = add(.accelerometer, interval: nil) { update in
            switch update {
            case .accelerometer(let data): queue.async { handler(data, nil) }
            case .failure(let error): queue.async { handler(nil, error) }
            default: break
            }
        }
        state.withLock {
            if let old = $0.accelerometerHandlerID { $0.subscribers[old] = nil }
            $0.accelerometerHandlerID = id
            $0.accelerometerActive = true
        }
        resubscribe()
    }

    public func stopAccelerometerUpdates() {
        state.withLock {
            if let id = $0.accelerometerHandlerID { $0.subscribers[id] = nil }
            $0.accelerometerHandlerID = nil
            $0.accelerometerActive = false
        }
        resubscribe()
    }

    // MARK: Device motion

    public var deviceMotionUpdateInterval: Double {
        get { state.withLock { $0.deviceMotionInterval } }
        set { state.withLock { $0.deviceMotionInterval = max(0, newValue) }; resubscribe() }
    }

    /// The latest device motion, while device-motion updates run (pull).
    public var deviceMotion: DeviceMotion? { state.withLock { $0.latestMotion } }

    public func startDeviceMotionUpdates() {
        state.withLock { $0.deviceMotionActive = true }
        resubscribe()
    }

    public func startDeviceMotionUpdates(to queue: DispatchQueue, withHandler handler: @escaping DeviceMotionHandler) {
        let id = add(.deviceMotion, interval: nil) { update in
            switch update {
            case .deviceMotion(let motion): queue.async { handler(motion, nil) }
            case .failure(let error): queue.async { handler(nil, error) }
            default: break
            }
        }
        state.withLock {
            if let old = $0.deviceMotionHandlerID { $0.subscribers[old] = nil }
            $0.deviceMotionHandlerID = id
            $0.deviceMotionActive = true
        }
        resubscribe()
    }

    public func stopDeviceMotionUpdates() {
        state.withLock {
            if let id = $0.deviceMotionHandlerID { $0.subscribers[id] = nil }
            $0.deviceMotionHandlerID = nil
            $0.deviceMotionActive = false
        }
        resubscribe()
    }

    /// "Zero here": from now on `deviceMotion.attitude` is relative to the
    /// attitude of the latest sample (nil clears it).
    public func setReferenceAttitude(_ attitude: Attitude?) {
        state.withLock { $0.reference = attitude }
    }

    /// The attitude now, as reference: the tutorials' "calibrate level".
    public func setReferenceAttitudeToCurrent() {
        state.withLock { state in
            if let latest = state.latestAttitude { state.reference = latest }
        }
    }

    // MARK: Events and notices

    /// Shake, orientation, free fall, movement and tap, to `handler` on `queue`.
    public func startEventUpdates(_ kinds: Set<MotionEventKind> = Set(MotionEventKind.allCases), to queue: DispatchQueue,
                                  withHandler handler: @escaping @Sendable (MotionEvent) -> Void) {
        let id = add(.events(kinds), interval: 0) { update in
            if case .event(let event) = update { queue.async { handler(event) } }
        }
        state.withLock {
            if let old = $0.eventHandlerID { $0.subscribers[old] = nil }
            $0.eventHandlerID = id
        }
        resubscribe()
    }

    public func stopEventUpdates() {
        state.withLock {
            if let id = $0.eventHandlerID { $0.subscribers[id] = nil }
            $0.eventHandlerID = nil
        }
        resubscribe()
    }

    /// Lost samples, disconnection, reconnection and device changes.
    public func startNoticeUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (ConnectionNotice) -> Void) {
        let id = add(.notices, interval: 0) { update in
            if case .notice(let notice) = update { queue.async { handler(notice) } }
        }
        state.withLock {
            if let old = $0.noticeHandlerID { $0.subscribers[old] = nil }
            $0.noticeHandlerID = id
        }
    }

    // MARK: Async sequences

    /// Accelerometer samples at `accelerometerUpdateInterval`, until the
    /// loop over them ends.
    public func accelerometerUpdates() -> AsyncStream<AccelerometerData> {
        stream(.accelerometer) { if case .accelerometer(let data) = $0 { data } else { nil } }
    }

    public func deviceMotionUpdates() -> AsyncStream<DeviceMotion> {
        stream(.deviceMotion) { if case .deviceMotion(let motion) = $0 { motion } else { nil } }
    }

    public func events(_ kinds: Set<MotionEventKind> = Set(MotionEventKind.allCases)) -> AsyncStream<MotionEvent> {
        stream(.events(kinds)) { if case .event(let event) = $0 { event } else { nil } }
    }

    public func notices() -> AsyncStream<ConnectionNotice> {
        stream(.notices) { if case .notice(let notice) = $0 { notice } else { nil } }
    }

    func stream<T: Sendable>(_ kind: Subscriber.Kind, _ pick: @escaping @Sendable (Update) -> T?) -> AsyncStream<T> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1024)) { continuation in
            let id = add(kind, interval: nil) { update in
                if let value = pick(update) { continuation.yield(value) }
            }
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
                self?.resubscribe()
            }
            resubscribe()
        }
    }

    // MARK: The connection

    func add(_ kind: Subscriber.Kind, interval: Double?, _ deliver: @escaping @Sendable (Update) -> Void) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let every: Double
            switch kind {
            case .accelerometer: every = interval ?? state.accelerometerInterval
            case .deviceMotion: every = interval ?? state.deviceMotionInterval
            case .gyro: every = interval ?? state.gyroInterval
            case .events, .notices: every = 0
            }
            state.subscribers[id] = Subscriber(kind: kind, interval: every, deliver: deliver)
            return id
        }
    }

    /// What to watch now: frames at the fastest rate anyone wants, the
    /// events anyone wants, and the device always (for notices).
    private func watchRequest(_ state: State) -> Request? {
        var streams: Set<StreamName> = [.device]
        var wantsAccelerometer = state.accelerometerActive, wantsMotion = state.deviceMotionActive, wantsEvents = false
        var wantsGyro = state.gyroActive
        for subscriber in state.subscribers.values {
            switch subscriber.kind {
            case .accelerometer: wantsAccelerometer = true
            case .deviceMotion: wantsMotion = true
            case .gyro: wantsGyro = true
            case .events(let kinds):
                wantsEvents = true
                streams.formUnion(kinds.map(\.stream))
            case .notices: break
            }
        }
        guard wantsAccelerometer || wantsMotion || wantsGyro || wantsEvents else { return nil }
        var fastest: Double?
        if wantsAccelerometer || wantsMotion || wantsGyro {
            streams.insert(.frames)
            let intervals = (wantsAccelerometer ? [state.accelerometerInterval] : []) + (wantsMotion ? [state.deviceMotionInterval] : [])
                + (wantsGyro ? [state.gyroInterval] : [])
            let shortest = intervals.min() ?? 0
            fastest = shortest > 0 ? 1 / shortest : nil
        }
        return .watch(streams: streams, rate: fastest, fields: .all, latency: nil)
    }

    /// Sends the watch that fits what is asked now; starts the reader the
    /// first time something is.
    func resubscribe() {
        let (request, connection, start) = state.withLock { state -> (Request?, DaemonConnection?, Bool) in
            for (id, subscriber) in state.subscribers {
                switch subscriber.kind {
                case .accelerometer: state.subscribers[id]?.interval = state.accelerometerInterval
                case .deviceMotion: state.subscribers[id]?.interval = state.deviceMotionInterval
                case .gyro: state.subscribers[id]?.interval = state.gyroInterval
                default: break
                }
            }
            let request = watchRequest(state)
            let start = request != nil && !state.running
            if start { state.running = true }
            return (request, state.connection, start)
        }
        if let connection { connection.send(request ?? .unwatch(streams: nil)) }
        if start { reader.async { [self] in run() } }
    }

    /// The reader: connects (with back-off), watches, reads, delivers;
    /// on a lost connection says so and starts again. As Core Motion does,
    /// push handlers get `(nil, error)`, once an outage: the daemon is not
    /// running, the socket refuses this user, the daemon went away.
    private func run() {
        var backoff = 0.1
        var away: UInt64?
        var lastSequence: UInt64?
        var step: UInt64 = 1
        var frameRate = 0.0
        while state.withLock({ $0.running }) {
            let connection: DaemonConnection
            do {
                connection = try DaemonConnection(path: socketPath)
            } catch {
                if away == nil {
                    away = MonotonicTime.now()
                    broadcast(.notice(.disconnected(reason: "\(error)")))
                    broadcast(.failure(error))
                }
                MonotonicTime().sleep(seconds: backoff)
                backoff = min(backoff * 2, 2)
                continue
            }
            backoff = 0.1
            lastSequence = nil
            let request = state.withLock { state -> Request? in
                state.connection = connection
                state.device = connection.device
                return watchRequest(state)
            }
            if connection.device.gyroscope == nil { broadcast(.failure(ClientError.noGyroscope(connection.device.chip)), gyroOnly: true) }
            if let away {
                broadcast(.notice(.reconnected(after: Double(MonotonicTime.now() - away) / 1e9)))
            }
            away = nil
            connection.send(request ?? .unwatch(streams: nil))
            do {
                while state.withLock({ $0.running }) {
                    guard let message = try connection.next(timeout: 0.25) else { continue }
                    switch message {
                    case .frame(let frame):
                        if let last = lastSequence, frame.seq > last + step {
                            let lost = Int(frame.seq - last - step)
                            state.withLock { $0.lost += lost }
                            broadcast(.notice(.lostSamples(lost)))
                        }
                        lastSequence = frame.seq
                        deliver(frame, frameRate: frameRate)
                    case .event(let event):
                        broadcast(.event(event))
                    case .watch(let reply):
                        if let rate = reply.rate, rate > 0 {
                            frameRate = rate
                            let chipRate = Double(state.withLock { $0.device?.rate ?? connection.device.rate })
                            step = UInt64(max(1, (chipRate / rate).rounded()))
                        }
                    case .device(let device):
                        state.withLock { $0.device = device }
                        broadcast(.notice(.device(device)))
                    case .goodbye(let reason):
                        throw ClientError.disconnected("acceld said goodbye: \(reason)")
                    default:
                        break
                    }
                }
            } catch {
                away = MonotonicTime.now()
                state.withLock { $0.connection = nil }
                broadcast(.notice(.disconnected(reason: "\(error)")))
                broadcast(.failure(error))
            }
        }
        state.withLock { $0.connection = nil }
    }

    private func deliver(_ frame: FrameMessage, frameRate: Double) {
        // Half a frame's period of slack: frame times jitter, and a program
        // that asked for the rate the frames come at gets every one.
        let slack = frameRate > 0 ? 0.5 / frameRate : 0
        let subscribers = state.withLock { state -> [(Update, Subscriber)] in
            var accelerometer: AccelerometerData?
            var motion: DeviceMotion?
            if let acc = frame.acceleration {
                accelerometer = AccelerometerData(acceleration: Acceleration(acc), timestamp: frame.t, sequence: frame.seq)
                if state.accelerometerActive { state.latestAccelerometer = accelerometer }
            }
            if let gravity = frame.gravity, let user = frame.user, var attitude = frame.attitude {
                state.latestAttitude = attitude
                if let reference = state.reference { attitude.multiply(byInverseOf: reference) }
                motion = DeviceMotion(gravity: Acceleration(gravity), userAcceleration: Acceleration(user), attitude: attitude,
                                      rotationRate: RotationRate(frame.rotationRate ?? .zero), timestamp: frame.t, sequence: frame.seq)
                if state.deviceMotionActive { state.latestMotion = motion }
            }
            let gyro = frame.rotationRate.map { GyroData(rotationRate: RotationRate($0), timestamp: frame.t, sequence: frame.seq) }
            if state.gyroActive, let gyro { state.latestGyro = gyro }
            var due: [(Update, Subscriber)] = []
            for (id, subscriber) in state.subscribers {
                let update: Update?
                switch subscriber.kind {
                case .accelerometer: update = accelerometer.map(Update.accelerometer)
                case .deviceMotion: update = motion.map(Update.deviceMotion)
                case .gyro: update = gyro.map(Update.gyro)
                default: update = nil
                }
                guard let update, frame.t - subscriber.lastDelivered >= subscriber.interval - slack else { continue }
                state.subscribers[id]?.lastDelivered = frame.t
                due.append((update, subscriber))
            }
            return due
        }
        for (update, subscriber) in subscribers { subscriber.deliver(update) }
    }

    /// `update` to every subscriber it concerns; with `gyroOnly`, to
    /// gyroscope subscribers alone (a part without one is their failure only).
    func broadcast(_ update: Update, gyroOnly: Bool = false) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            if gyroOnly, !subscriber.kind.isGyro { continue }
            switch (subscriber.kind, update) {
            case (.events(let kinds), .event(let event)):
                if kinds.contains(where: { $0.rawValue == event.className }) { subscriber.deliver(update) }
            case (.notices, .notice), (.accelerometer, .failure), (.deviceMotion, .failure), (.gyro, .failure):
                subscriber.deliver(update)
            default:
                break
            }
        }
    }
}
