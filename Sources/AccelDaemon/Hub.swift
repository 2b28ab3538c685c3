// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelProtocol
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging

/// Where the sampler's output meets the clients: the device as clients are
/// told about it, the latest frame for polling, the FIFO latency policy.
/// Confined to the sampler's queue: the sampler publishes on the thread
/// that read the chip, and the frames go from there to the kernel, one
/// write per client, with no other thread woken per frame (the peer
/// benchmark counted the old hand-off to an event loop: docs/PERFORMANCE.md).
/// A slow client still never holds up the sampler: its socket never
/// blocks, and what it does not take waits in its own bounded buffer.
/// Requests come from NIO's loop, which reads them, through `queue`.
/// Delivery is the Fanout's job, requests the RequestRouter's, counters
/// the StatusReporter's.
final class Hub: @unchecked Sendable {
    let queue: DispatchQueue
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

    init(sampler: Sampler, device: DeviceInfo, socket: SocketSettings,
         calibrationStore: CalibrationStore, isPrivileged: @escaping @Sendable (PeerCredentials) -> Bool,
         notify: @escaping @Sendable (String) -> Void) {
        self.queue = sampler.queue
        self.sampler = sampler
        self.device = device
        self.fanout = Fanout(settings: socket)
        self.status = StatusReporter(notify: notify)
        router = RequestRouter(hub: self, calibrationStore: calibrationStore, isPrivileged: isPrivileged)
    }

    // MARK: Connections

    /// Registers a client on its connected socket `descriptor` (the hub's
    /// own: a dup of what NIO reads from) and sends it hello; nil when the
    /// daemon is full (it was told so, and the descriptor closed).
    func connect(_ descriptor: Int32) -> Session? {
        dispatchPrecondition(condition: .onQueue(queue))
        status.changed()
        guard let session = fanout.connect(descriptor, credentials: PeerCredentials(of: descriptor), queue: queue) else { return nil }
        fanout.reply(.hello(Hello(device: device)), to: session)
        return session
    }

    /// A client hung up, or its connection was ended (a stuck client: then
    /// it is already gone from the fan-out).
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
        do {
            let watermark = try sampler.allowLatency(milliseconds: allowed)
            if device.fifo != nil { device.fifo = watermark }
        } catch {
            logger.error("could not change the FIFO watermark: \(error)")
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

    func report() -> StatusReport {
        status.report(counters: sampler.counters, clients: fanout.count, device: device)
    }

    func goodbye(_ reason: String) {
        fanout.broadcast(.goodbye(reason: reason)) { _ in true }
        fanout.flush()
    }

    func closeAll() { fanout.closeAll() }
}
