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
/// a manager is asked for (a `DaemonLink`: it reconnects by itself when
/// acceld restarts); this is the facade over it and its subscribers.
/// The three sample streams share one start / stop / interval code
/// (MotionManager+Streams); their Core Motion names are in
/// MotionManager+CoreMotion and MotionManager+Gyro.
public final class MotionManager: Sendable {
    /// Where acceld listens (`ACCELD_SOCKET` or /run/acceld/acceld.sock).
    public let socketPath: String
    let state = Mutex(State())
    let link: DaemonLink

    /// The updates a subscriber may be given.
    enum Update: Sendable {
        case sample(Sample)
        case event(MotionEvent)
        case notice(ConnectionNotice)
        /// Why there are no samples: to push handlers as `(nil, error)`.
        case failure(any Error)
    }

    /// (Unchecked: it holds subscribers; it lives in `state`, under its Mutex.)
    struct State: @unchecked Sendable {
        var streams: [SampleStream: StreamState] = [.accelerometer: StreamState(), .deviceMotion: StreamState(), .gyro: StreamState()]
        var latest: [SampleStream: Sample] = [:]
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 1
        var eventHandlerID: Int?
        var noticeHandlerID: Int?
        var reference: Attitude?
        /// The latest attitude as acceld reported it (not relative).
        var latestAttitude: Attitude?
        /// Whether the link has been started (by the first thing asked for).
        var started = false
        /// Connected, as this manager has been told (its handlers said so).
        var connected = false
        var device: DeviceInfo?
        /// The rate frames come at (acceld's watch reply), 0 before one.
        var frameRate = 0.0
    }

    public init(socketPath: String = DaemonConnection.defaultSocket) {
        self.socketPath = socketPath
        let relay = Relay()
        link = DaemonLink(socketPath: socketPath, backoff: .program, label: "AccelClient.reader") { updates in
            relay.manager?.handle(updates)
        }
        relay.manager = self
    }

    deinit { link.stop() }

    /// The link's way back to its manager without keeping it alive.
    /// (Unchecked: `manager` is set once, in init, before the link starts.)
    private final class Relay: @unchecked Sendable {
        weak var manager: MotionManager?
    }

    // MARK: Availability

    /// Whether acceld answers on the socket now (it owns the accelerometer).
    public var isAccelerometerAvailable: Bool { (try? DaemonConnection(path: socketPath, timeout: 2)) != nil }
    public var isDeviceMotionAvailable: Bool { isAccelerometerAvailable }
    /// Whether acceld's part has a gyroscope (its hello says its range).
    public var isGyroAvailable: Bool { (try? DaemonConnection(path: socketPath, timeout: 2))?.device.gyroscope != nil }

    /// The device acceld serves, once connected.
    public var device: DeviceInfo? { state.withLock { $0.device } }

    /// Samples lost so far (gaps in the sequence of the frames received).
    public var lostSampleCount: Int { link.lostSampleCount }

    // MARK: The watch

    /// What to watch now: frames at the fastest rate anyone wants, the
    /// events anyone wants, and the device always (for notices).
    private func watchRequest(_ state: State) -> Request? {
        var streams: Set<StreamName> = [.device]
        var wanted = Set(state.streams.filter(\.value.active).keys), wantsEvents = false
        for subscriber in state.subscribers.values {
            switch subscriber.kind {
            case .samples(let stream): wanted.insert(stream)
            case .events(let kinds):
                wantsEvents = true
                streams.formUnion(kinds.map(\.stream))
            case .notices: break
            }
        }
        guard !wanted.isEmpty || wantsEvents else { return nil }
        var fastest: Double?
        if !wanted.isEmpty {
            streams.insert(.frames)
            let shortest = wanted.compactMap { state.streams[$0]?.interval }.min() ?? 0
            fastest = shortest > 0 ? 1 / shortest : nil
        }
        return .watch(streams: streams, rate: fastest, fields: .all, latency: nil)
    }

    /// Sends the watch that fits what is asked now; starts the link the
    /// first time something is.
    func resubscribe() {
        let (request, start) = state.withLock { state -> (Request?, Bool) in
            for (id, subscriber) in state.subscribers {
                if case .samples(let stream) = subscriber.kind { state.subscribers[id]?.interval = state.streams[stream]?.interval ?? 0 }
            }
            let request = watchRequest(state)
            let start = request != nil && !state.started
            if start { state.started = true }
            return (request, start)
        }
        link.watch(request)
        if start { link.start() }
    }

    // MARK: What the link says

    /// As Core Motion does, push handlers get `(nil, error)`, once an
    /// outage: the daemon is not running, the socket refuses this user,
    /// the daemon went away (or said goodbye).
    private func handle(_ updates: [DaemonLink.Update]) {
        for update in updates {
            switch update {
            case .connected(let hello, let awayFor):
                let withoutGyroscope = state.withLock { state -> Bool in
                    state.connected = true
                    state.device = hello.device
                    return hello.device.gyroscope == nil
                }
                if withoutGyroscope { broadcast(.failure(ClientError.noGyroscope(hello.device.chip)), gyroOnly: true) }
                if let awayFor { broadcast(.notice(.reconnected(after: awayFor))) }
            case .disconnected(let error):
                state.withLock { $0.connected = false }
                broadcast(.notice(.disconnected(reason: "\(error)")))
                broadcast(.failure(error))
            case .lostSamples(let lost):
                broadcast(.notice(.lostSamples(lost)))
            case .message(_, .frame(let frame)):
                deliver(frame)
            case .message(_, .event(let event)):
                broadcast(.event(event))
            case .message(_, .watch(let reply)):
                if let rate = reply.rate, rate > 0 { state.withLock { $0.frameRate = rate } }
            case .message(_, .device(let device)):
                state.withLock { $0.device = device }
                broadcast(.notice(.device(device)))
            case .message:
                break
            }
        }
    }
}
