// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol
#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore

/// Where the sampler's output meets the clients: the device as clients are
/// told about it, the latest frame for polling, the FIFO latency policy.
/// Confined to its event loop: every method runs there (the sampler hands
/// frames over with `execute`), so it needs no locks, and a slow client can
/// never hold up the sampler. Delivery is the Fanout's job, requests the
/// RequestRouter's, counters the StatusReporter's.
final class Hub: @unchecked Sendable {
    let eventLoop: EventLoop
    let sampler: Sampler
    let fanout: Fanout
    let status: StatusReporter
    private let logger = Logger(label: "acceld.server")
    private(set) var router: RequestRouter!
    private(set) var latest: Frame?
    /// The orientation decided so far, for new watchers (gpsd likewise
    /// answers WATCH with the current state).
    private(set) var orientation = DeviceOrientation.unknown
    var device: DeviceInfo

    init(eventLoop: EventLoop, sampler: Sampler, device: DeviceInfo, socket: SocketSettings,
         calibrationStore: CalibrationStore, isPrivileged: @escaping @Sendable (PeerCredentials) -> Bool,
         notify: @escaping @Sendable (String) -> Void) {
        self.eventLoop = eventLoop
        self.sampler = sampler
        self.device = device
        self.fanout = Fanout(settings: socket)
        self.status = StatusReporter(notify: notify)
        router = RequestRouter(hub: self, calibrationStore: calibrationStore, isPrivileged: isPrivileged)
    }

    // MARK: Connections

    /// Registers a client (or refuses it when the daemon is full).
    func connect(_ channel: Channel) -> Session? {
        eventLoop.preconditionInEventLoop()
        status.changed()
        return fanout.connect(channel)
    }

    /// Sends hello and asks the kernel who the peer is. Apart from
    /// `connect`: a peer that already hung up makes the write close the
    /// channel re-entrantly, and its handler must know the session by then
    /// to remove it (the connection-storm test found that leak).
    func greet(_ session: Session) {
        fanout.reply(.hello(Hello(device: device)), to: session)
        if let provider = session.channel as? SocketOptionProvider {
            // SO_PEERCRED fills a struct ucred { pid_t; uid_t; gid_t },
            // which PeerCredentials mirrors field for field.
            let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerCredentialsOption))
            future.whenSuccess { session.credentials = $0 }
        }
    }

    func disconnect(_ session: Session) {
        fanout.remove(session)
        status.changed()
        if session.latency != nil { latencyChanged() }
    }

    /// The FIFO watermark follows the most demanding client: the smallest
    /// latency any watching client allows; a watcher that allows none (or
    /// no watcher at all) keeps samples coming one by one.
    func latencyChanged() {
        let watchers = fanout.sessions.values.filter { !$0.streams.isEmpty }
        let allowed: Double? = watchers.isEmpty || watchers.contains { $0.latency == nil } ? nil : watchers.compactMap(\.latency).min()
        let box = UncheckedBox(self)
        sampler.queue.async { [sampler] in
            do {
                let watermark = try sampler.allowLatency(milliseconds: allowed)
                box.value.eventLoop.execute { if box.value.device.fifo != nil { box.value.device.fifo = watermark } }
            } catch {
                box.value.logger.error("could not change the FIFO watermark: \(error)")
            }
        }
    }

    // MARK: The sampler's output

    /// Frames from one FIFO read: one flush (one write per client) for all.
    func publish(_ batch: [Delivery]) {
        for delivery in batch { record(delivery.frame, delivery.events) }
        fanout.flush()
    }

    func publish(_ frame: Frame, _ events: [MotionEvent]) {
        record(frame, events)
        fanout.flush()
    }

    private func record(_ frame: Frame, _ events: [MotionEvent]) {
        latest = frame
        for case .orientation(let change) in events { orientation = change.orientation }
        fanout.publish(frame, events)
    }

    func publish(_ event: DeviceEvent) {
        device.state = [.lost, .stalled, .wrongPart, .dataReadyStuck].contains(event.state) ? event.state.rawValue : "ok"
        device.message = event.message
        var pushed = device
        pushed.event = event.state.rawValue
        fanout.broadcast(.device(pushed)) { $0.streams.contains(.device) }
        fanout.flush()
        status.changed()
    }

    /// A configuration a client applied: every client keeps its own rate.
    func configured(_ applied: DeviceConfiguration) {
        device.update(applied, profile: ChipProfile.named(device.chip))
        for session in fanout.sessions.values { session.decimate(for: Double(applied.rate)) }
        status.changed()
    }

    /// Every second: systemd's STATUS=, and `status` to the clients watching it.
    func publishStatus() {
        status.notifySystemd(device: device, clients: fanout.count)
        guard fanout.sessions.values.contains(where: { $0.streams.contains(.status) }) else { return }
        fanout.broadcast(.status(report())) { $0.streams.contains(.status) }
        fanout.flush()
    }

    /// The status report, with the sampler's counters as of its last read:
    /// made at once, so a `status` reply keeps its place among the replies.
    func report() -> StatusReport {
        status.report(counters: sampler.countersSnapshot, clients: fanout.count, device: device)
    }

    func goodbye(_ reason: String) {
        fanout.broadcast(.goodbye(reason: reason)) { _ in true }
        fanout.flush()
    }

    func closeAll() -> EventLoopFuture<Void> { fanout.closeAll(on: eventLoop) }
}

/// Carries a non-Sendable closure between the hub's loop and the sampler's
/// queue; each side only touches what it owns.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
