// SPDX-License-Identifier: Apache-2.0
import AccelMotion
import AccelProtocol
import Dispatch

/// The three sample streams (accelerometer, device motion, gyroscope),
/// started, stopped, paced and delivered by one code: what differs between
/// them is the type of their samples (`MotionSample`) and the table entry
/// under their name.
enum SampleStream: Hashable, Sendable, CaseIterable {
    case accelerometer, deviceMotion, gyro
}

/// One sample of one of the streams.
enum Sample: Sendable {
    case accelerometer(AccelerometerData)
    case deviceMotion(DeviceMotion)
    case gyro(GyroData)
}

/// A stream's settings: seconds between updates, whether started (pull or
/// push), and its push handler's subscriber.
struct StreamState: Sendable {
    var interval = 0.01
    var active = false
    var handlerID: Int?
}

/// What a stream's samples are.
protocol MotionSample: Sendable {
    static var stream: SampleStream { get }
    init?(_ sample: Sample)
}

extension AccelerometerData: MotionSample {
    static var stream: SampleStream { .accelerometer }
    init?(_ sample: Sample) { if case .accelerometer(let data) = sample { self = data } else { return nil } }
}

extension DeviceMotion: MotionSample {
    static var stream: SampleStream { .deviceMotion }
    init?(_ sample: Sample) { if case .deviceMotion(let motion) = sample { self = motion } else { return nil } }
}

extension GyroData: MotionSample {
    static var stream: SampleStream { .gyro }
    init?(_ sample: Sample) { if case .gyro(let data) = sample { self = data } else { return nil } }
}

extension MotionManager {
    /// (Unchecked: its handlers are not Sendable; it lives in `state`, under its Mutex.)
    struct Subscriber: @unchecked Sendable {
        enum Kind {
            case samples(SampleStream), events(Set<MotionEventKind>), notices
        }
        let kind: Kind
        /// Seconds between deliveries (0: every frame).
        var interval: Double
        var lastDelivered = -Double.infinity
        let deliver: @Sendable (Update) -> Void
    }

    // MARK: One stream's start, stop and interval

    func isActive(_ stream: SampleStream) -> Bool { state.withLock { $0.streams[stream]?.active ?? false } }

    func interval(of stream: SampleStream) -> Double { state.withLock { $0.streams[stream]?.interval ?? 0 } }

    func setInterval(_ seconds: Double, of stream: SampleStream) {
        state.withLock { $0.streams[stream]?.interval = max(0, seconds) }
        resubscribe()
    }

    /// The latest sample, while the stream runs (pull).
    func latest<T: MotionSample>(_: T.Type) -> T? { state.withLock { $0.latest[T.stream].flatMap(T.init) } }

    /// Starts the stream without a handler (pull).
    func startUpdates(_ stream: SampleStream) {
        state.withLock { $0.streams[stream]?.active = true }
        resubscribe()
    }

    /// Starts the stream's updates to `handler` on `queue` (push), in place
    /// of the handler before. A gyroscope handler on a part without one is
    /// told so at once when connected already (the link will not say it again).
    func startUpdates<T: MotionSample>(_: T.Type, to queue: DispatchQueue, withHandler handler: @escaping @Sendable (T?, (any Error)?) -> Void) {
        let id = add(.samples(T.stream), interval: nil) { update in
            switch update {
            case .sample(let sample): if let data = T(sample) { queue.async { handler(data, nil) } }
            case .failure(let error): queue.async { handler(nil, error) }
            default: break
            }
        }
        let chipWithout = state.withLock { state -> String? in
            if let old = state.streams[T.stream]?.handlerID { state.subscribers[old] = nil }
            state.streams[T.stream]?.handlerID = id
            state.streams[T.stream]?.active = true
            guard T.stream == .gyro, state.connected, let device = state.device, device.gyroscope == nil else { return nil }
            return device.chip
        }
        if let chipWithout { queue.async { handler(nil, ClientError.noGyroscope(chipWithout)) } }
        resubscribe()
    }

    func stopUpdates(_ stream: SampleStream) {
        state.withLock {
            if let id = $0.streams[stream]?.handlerID { $0.subscribers[id] = nil }
            $0.streams[stream]?.handlerID = nil
            $0.streams[stream]?.active = false
        }
        resubscribe()
    }

    /// The stream's samples at its interval, until the loop over them ends.
    func samples<T: MotionSample>(_: T.Type) -> AsyncStream<T> {
        stream(.samples(T.stream)) { if case .sample(let sample) = $0 { T(sample) } else { nil } }
    }

    // MARK: Subscribers

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

    func add(_ kind: Subscriber.Kind, interval: Double?, _ deliver: @escaping @Sendable (Update) -> Void) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let every: Double
            switch kind {
            case .samples(let stream): every = interval ?? state.streams[stream]?.interval ?? 0
            case .events, .notices: every = 0
            }
            state.subscribers[id] = Subscriber(kind: kind, interval: every, deliver: deliver)
            return id
        }
    }

    // MARK: Delivery

    /// A frame's samples to the subscribers they are due to; the latest
    /// kept for the streams that run.
    func deliver(_ frame: FrameMessage) {
        let due = state.withLock { state -> [(Update, Subscriber)] in
            // Half a frame's period of slack: frame times jitter, and a program
            // that asked for the rate the frames come at gets every one.
            let slack = state.frameRate > 0 ? 0.5 / state.frameRate : 0
            var samples: [SampleStream: Sample] = [:]
            if let acc = frame.acceleration {
                samples[.accelerometer] = .accelerometer(AccelerometerData(acceleration: Acceleration(acc), timestamp: frame.t, sequence: frame.seq))
            }
            if let gravity = frame.gravity, let user = frame.user, var attitude = frame.attitude {
                state.latestAttitude = attitude
                if let reference = state.reference { attitude.multiply(byInverseOf: reference) }
                samples[.deviceMotion] = .deviceMotion(DeviceMotion(
                    gravity: Acceleration(gravity), userAcceleration: Acceleration(user), attitude: attitude,
                    rotationRate: RotationRate(frame.rotationRate ?? .zero), timestamp: frame.t, sequence: frame.seq))
            }
            if let rate = frame.rotationRate {
                samples[.gyro] = .gyro(GyroData(rotationRate: RotationRate(rate), timestamp: frame.t, sequence: frame.seq))
            }
            for (stream, sample) in samples where state.streams[stream]?.active == true { state.latest[stream] = sample }
            var due: [(Update, Subscriber)] = []
            for (id, subscriber) in state.subscribers {
                guard case .samples(let stream) = subscriber.kind, let sample = samples[stream],
                      frame.t - subscriber.lastDelivered >= subscriber.interval - slack else { continue }
                state.subscribers[id]?.lastDelivered = frame.t
                due.append((.sample(sample), subscriber))
            }
            return due
        }
        for (update, subscriber) in due { subscriber.deliver(update) }
    }

    /// `update` to every subscriber it concerns; with `gyroOnly`, to
    /// gyroscope subscribers alone (a part without one is their failure only).
    func broadcast(_ update: Update, gyroOnly: Bool = false) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            switch (subscriber.kind, update) {
            case (.samples(let stream), .failure):
                if !gyroOnly || stream == .gyro { subscriber.deliver(update) }
            case (.events(let kinds), .event(let event)) where !gyroOnly:
                if kinds.contains(where: { $0.rawValue == event.className }) { subscriber.deliver(update) }
            case (.notices, .notice) where !gyroOnly:
                subscriber.deliver(update)
            default:
                break
            }
        }
    }
}
