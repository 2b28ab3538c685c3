// SPDX-License-Identifier: Apache-2.0
import AccelMotion
import AccelProtocol
import Dispatch

/// Core Motion's names for the accelerometer and device motion, events
/// and notices (the gyroscope's are in MotionManager+Gyro): each a line
/// over the one stream code of MotionManager+Streams.
extension MotionManager {
    // MARK: Accelerometer

    public var isAccelerometerActive: Bool { isActive(.accelerometer) }

    /// Seconds between accelerometer updates; served by acceld at the
    /// nearest rate the chip's divides into.
    public var accelerometerUpdateInterval: Double {
        get { interval(of: .accelerometer) }
        set { setInterval(newValue, of: .accelerometer) }
    }

    /// The latest sample, while accelerometer updates run (pull).
    public var accelerometerData: AccelerometerData? { latest(AccelerometerData.self) }

    /// Starts updates without a handler: read `accelerometerData` (pull).
    public func startAccelerometerUpdates() { startUpdates(.accelerometer) }

    /// Starts updates delivered to `handler` on `queue` (push).
    public func startAccelerometerUpdates(to queue: DispatchQueue, withHandler handler: @escaping AccelerometerHandler) {
        startUpdates(AccelerometerData.self, to: queue, withHandler: handler)
    }

    public func stopAccelerometerUpdates() { stopUpdates(.accelerometer) }

    // MARK: Device motion

    public var isDeviceMotionActive: Bool { isActive(.deviceMotion) }

    public var deviceMotionUpdateInterval: Double {
        get { interval(of: .deviceMotion) }
        set { setInterval(newValue, of: .deviceMotion) }
    }

    /// The latest device motion, while device-motion updates run (pull).
    public var deviceMotion: DeviceMotion? { latest(DeviceMotion.self) }

    public func startDeviceMotionUpdates() { startUpdates(.deviceMotion) }

    public func startDeviceMotionUpdates(to queue: DispatchQueue, withHandler handler: @escaping DeviceMotionHandler) {
        startUpdates(DeviceMotion.self, to: queue, withHandler: handler)
    }

    public func stopDeviceMotionUpdates() { stopUpdates(.deviceMotion) }

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
    public func accelerometerUpdates() -> AsyncStream<AccelerometerData> { samples(AccelerometerData.self) }

    public func deviceMotionUpdates() -> AsyncStream<DeviceMotion> { samples(DeviceMotion.self) }

    public func events(_ kinds: Set<MotionEventKind> = Set(MotionEventKind.allCases)) -> AsyncStream<MotionEvent> {
        stream(.events(kinds)) { if case .event(let event) = $0 { event } else { nil } }
    }

    public func notices() -> AsyncStream<ConnectionNotice> {
        stream(.notices) { if case .notice(let notice) = $0 { notice } else { nil } }
    }
}
