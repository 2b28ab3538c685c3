// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMachine
import AccelMotion
import AccelParts
import AccelProtocol
import Dispatch
import Logging
import Synchronization

/// Where the sampler's output meets the clients. The sampler's thread only
/// samples and publishes: `publish` runs there and hands frames to the
/// fan-out, which writes them to each client's socket. Everything else
/// runs on the control queue: connections and their hello, requests
/// (the RequestRouter), the FIFO latency policy, status, stuck clients.
/// Whatever touches the chip is a message to the sampler's queue
/// (`onSampler`), run there between two reads; its result comes back to
/// the control queue as another message. The control side never waits for
/// the sampler: while the chip turns on, self-tests or recovers, hello,
/// status, the other clients' requests and the watchdog go on.
/// A client's lines go to a `ClientSink`: its socket in the daemon, an
/// in-memory sink in tests, which also give the hub a virtual clock
/// (`now`) and play the once-a-second timer (`tick`) themselves.
/// (Unchecked: `sessions` and the router are the control queue's alone;
/// the sampler's thread, in `publish`, touches only the fan-out and the
/// device, each under a lock of its own.)
final class Hub: @unchecked Sendable {
    /// Connections, requests and everything but sampling.
    let control = DispatchQueue(label: "acceld.control")
    /// Monotonic nanoseconds: when a client started dropping lines, and uptime.
    let now: @Sendable () -> UInt64
    let sampler: any DeviceSampler
    let fanout = Fanout()
    let vibration: VibrationService
    let settings: SocketSettings
    let status: StatusReporter
    private let logger = Logger(label: "acceld.server")
    private(set) var router: RequestRouter!
    /// Written by the sampler's thread (health) and the control side (configuration).
    private let deviceInfo: Mutex<DeviceInfo>
    /// The connected clients. On the control queue.
    private(set) var sessions: [Int: Session] = [:]
    private var nextID = 1
    /// Shutting down: requests still arriving are not handled.
    private var stopping = false

    init(sampler: any DeviceSampler, device: DeviceInfo, socket: SocketSettings, vibration: VibrationSettings = VibrationSettings(),
         calibrationStore: CalibrationStore, isPrivileged: @escaping @Sendable (PeerCredentials) -> Bool,
         notify: @escaping @Sendable (String) -> Void, now: @escaping @Sendable () -> UInt64 = MonotonicTime.now) {
        self.sampler = sampler
        self.now = now
        deviceInfo = Mutex(device)
        settings = socket
        self.vibration = VibrationService(configured: vibration)
        status = StatusReporter(notify: notify, now: now)
        router = RequestRouter(hub: self, calibrationStore: calibrationStore, isPrivileged: isPrivileged)
    }

    var device: DeviceInfo { deviceInfo.withLock { $0 } }

    /// Runs `work` on the sampler's queue, between two reads, then hands
    /// its result to `then` on the control queue: for what touches the chip
    /// or the sampler's state. Requests reach the sampler in the order they
    /// were sent, and their results come back in that order.
    func onSampler<T>(_ work: @escaping () throws -> T, then: @escaping (Result<T, any Error>) -> Void) {
        dispatchPrecondition(condition: .onQueue(control))
        // (Unchecked: `work` runs on the sampler's queue alone and `then` on
        // the control queue alone; the result crosses once, handed over.)
        let hop = ControlHop(work: work, then: then)
        sampler.queue.async { [control] in
            let done = hop.run()
            control.async { done.finish() }
        }
    }

    /// `work` on the sampler's queue, with nothing to answer.
    func onSampler(_ work: @escaping () -> Void) {
        onSampler(work, then: { _ in })
    }

    // MARK: Connections (control queue)

    /// Serves a client on its connected socket `descriptor` (taking it
    /// over): hello, then its requests. A client past max-clients is told
    /// so and disconnected.
    func connect(_ descriptor: Int32) {
        dispatchPrecondition(condition: .onQueue(control))
        let connection = ClientConnection(descriptor: descriptor, control: control, bufferBytes: settings.clientBufferBytes,
                                          now: now)
        guard let session = open(connection, credentials: PeerCredentials(of: descriptor)) else { return }
        connection.startReading(received: { [unowned self] bytes in received(bytes, from: session) },
                                hungUp: { [unowned self] in disconnect(session) })
    }

    /// A client whose lines go to `sink`: hello, and the session its
    /// requests come from; or, past max-clients, too-many-clients, the sink
    /// closed and nil.
    func open(_ sink: any ClientSink, credentials: PeerCredentials?) -> Session? {
        dispatchPrecondition(condition: .onQueue(control))
        let session = Session(id: nextID, connection: sink, credentials: credentials, maxLineBytes: settings.maxLineBytes)
        nextID += 1
        guard sessions.count < settings.maxClients else {
            session.reply(.error(ProtocolError("too-many-clients", "acceld serves at most \(settings.maxClients) clients ([socket] max-clients); try again later")))
            sink.close()
            return nil
        }
        sessions[session.id] = session
        status.changed()
        session.reply(.hello(Hello(device: device)))
        return session
    }

    /// Bytes a client sent: its complete request lines are handled in order.
    func received(_ bytes: [UInt8], from session: Session) {
        dispatchPrecondition(condition: .onQueue(control))
        for line in session.lines.add(bytes) { handle(line, from: session) }
    }

    /// The sampler answered the session's request: its waiting lines go on,
    /// until one is with the sampler again.
    func resume(_ session: Session) {
        dispatchPrecondition(condition: .onQueue(control))
        session.awaitingSampler = false
        while !session.awaitingSampler, !session.heldLines.isEmpty, sessions[session.id] != nil {
            handle(session.heldLines.removeFirst(), from: session)
        }
    }

    /// Requests that arrive from now on are dropped: the daemon is stopping.
    func stopServing() { stopping = true }

    private func handle(_ line: InboundLine, from session: Session) {
        guard !stopping else { return }
        guard !session.awaitingSampler else { return session.heldLines.append(line) }
        switch line {
        case .line(let bytes):
            router.handle(bytes, from: session)
        case .tooLong:
            session.reply(.error(ProtocolError("line-too-long", "a request line may be at most \(settings.maxLineBytes) bytes ([socket] max-line-bytes); the rest of this line is skipped")))
        }
    }

    /// A client hung up, or was cut off.
    func disconnect(_ session: Session) {
        guard sessions.removeValue(forKey: session.id) != nil else { return }
        session.heldLines.removeAll()  // nothing is kept for a client that left
        session.connection.close()
        status.changed()
        subscriptionsChanged()
        if session.latency != nil { latencyChanged() }
    }

    /// The sampler picks up the clients' subscriptions at its next step.
    func subscriptionsChanged() {
        let subscribers = sessions.values.filter { !$0.streams.isEmpty }.map(\.subscriber)
        fanout.replace(subscribers)
        let device = device
        vibration.update(subscribers, rate: Double(device.rate), range: device.range)
        let framesWatched = sessions.values.contains { $0.streams.contains(.frames) }
        onSampler { [sampler] in _ = try? sampler.handle(.framesWatched(framesWatched)) }
    }

    /// The FIFO watermark follows the most demanding client: the smallest
    /// latency any watching client allows; a watcher that allows none (or
    /// no watcher at all) keeps samples coming one by one.
    func latencyChanged() {
        let watchers = sessions.values.filter { !$0.streams.isEmpty }
        let allowed: Double? = watchers.isEmpty || watchers.contains { $0.latency == nil } ? nil : watchers.compactMap(\.latency).min()
        onSampler({ [sampler] in try sampler.handle(.allowLatency(allowed)) }, then: { [self] result in
            if case .failure(let error) = result { logger.error("could not change the FIFO watermark: \(error)") }
        })
    }

    // MARK: The sampler's output (the sampler's thread)

    func publish(_ output: SamplerOutput) {
        switch output {
        case .frame(let frame, let events):
            let delivery = CollectionOfOne(Delivery(frame: frame, events: events))
            fanout.publish(delivery)
            vibration.feed(delivery)
        case .batch(let deliveries):
            fanout.publish(deliveries)
            vibration.feed(deliveries)
        case .device(let event): publish(event)
        case .configuration(let configuration):
            deviceInfo.withLock { $0.update(configuration, profile: ChipProfile.named($0.chip)) }
            status.changed()
        }
    }

    /// A change in the device, to `device` watchers in order with the
    /// frames around it. The sampler says what changed (its health, and
    /// with `configured` and `reconfigured` the configuration now on the
    /// chip): the one description of the device hello, status and the
    /// `device` stream read is updated from it alone.
    private func publish(_ event: DeviceEvent) {
        let pushed = deviceInfo.withLock { device in
            if event.state != .traceEnd {
                device.state = [.lost, .stalled, .wrongPart, .dataReadyStuck, .interruptLost, .asleep].contains(event.state) ? event.state.rawValue : "ok"
            }
            device.message = event.message
            if let chip = event.chip { device.chip = chip }
            if let location = event.location { device.location = location }
            if let configuration = event.configuration { device.update(configuration, profile: ChipProfile.named(device.chip)) }
            var pushed = device
            pushed.event = event.state.rawValue
            return pushed
        }
        fanout.broadcast(.device(pushed)) { $0.streams.contains(.device) }
        if event.byChip { fanout.markWake() }
        status.changed()
        if event.configuration != nil { control.async { [self] in configurationChanged(rate: pushed.rate) } }
    }

    // MARK: Control

    /// The chip runs another configuration: every client keeps its own rate.
    private func configurationChanged(rate: Int) {
        for session in sessions.values { session.decimate(for: Double(rate)) }
        subscriptionsChanged()
        status.changed()
    }

    /// Every second: systemd's STATUS=, `status` to the clients watching
    /// it, and clients that have not read for too long are cut off.
    func tick() {
        dispatchPrecondition(condition: .onQueue(control))
        status.notifySystemd(device: device, clients: sessions.count)
        let instant = now()
        for session in sessions.values {
            guard let stuck = session.connection.stuck(now: instant), Double(stuck) / 1e9 > settings.clientStuckSeconds else { continue }
            logger.notice("client \(session.id) has not read for \(settings.clientStuckSeconds) s: disconnecting it")
            disconnect(session)
        }
        guard sessions.values.contains(where: { $0.streams.contains(.status) }) else { return }
        report { [fanout] in fanout.broadcast(.status($0)) { $0.streams.contains(.status) } }
    }

    /// The status, once the sampler has said its counters.
    func report(then: @escaping (StatusReport) -> Void) {
        onSampler({ [sampler] in sampler.counters }, then: { [self] result in
            guard case .success(let counters) = result else { return }  // reading counters cannot fail
            then(report(counters))
        })
    }

    /// The status with the sampler's `counters`: the clients and the device now.
    func report(_ counters: SamplerCounters) -> StatusReport {
        dispatchPrecondition(condition: .onQueue(control))
        return status.report(counters: counters, clients: sessions.count, device: device)
    }

    /// SIGTERM's order (Daemon+Shutdown; the tests' in-process daemon too):
    /// `first` on the control queue (no more connections, no timers) and
    /// requests dropped from then on; then sampling stops; then goodbye.
    /// Each step waits for the one before, so no work is queued after it.
    /// Not on either queue.
    func shutDown(powerDown: Bool, first: () -> Void = {}) {
        control.sync {
            first()
            stopServing()
        }
        sampler.queue.sync { [sampler] in sampler.stop(powerDown: powerDown) }
        control.sync { closeAll(saying: "acceld is stopping") }
    }

    /// Says goodbye to every client and ends every connection. Once the
    /// sampler has stopped.
    func closeAll(saying reason: String) {
        dispatchPrecondition(condition: .onQueue(control))
        let goodbye = Message.goodbye(reason: reason)
        for session in sessions.values {
            session.reply(goodbye)
            session.connection.close()
        }
        sessions.removeAll()
        fanout.replace([])
    }
}

/// A request's two halves: `work` for the sampler's queue, `then` for the
/// control queue. (Unchecked: each half runs on its one queue only.)
private struct ControlHop<T>: @unchecked Sendable {
    let work: () throws -> T
    let then: (Result<T, any Error>) -> Void
    var result: Result<T, any Error>?

    init(work: @escaping () throws -> T, then: @escaping (Result<T, any Error>) -> Void) {
        (self.work, self.then) = (work, then)
    }

    /// On the sampler's queue: the work done, the result kept for the way back.
    func run() -> ControlHop {
        var done = self
        done.result = Result { try work() }
        return done
    }

    /// On the control queue.
    func finish() { then(result!) }
}
