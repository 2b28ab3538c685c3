// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import Synchronization

/// The daemon's health in two forms: the `status` message and systemd's
/// STATUS= line, which is sent at most once a second and only when it
/// changed (a connection storm would otherwise send two per client).
/// `changed` may be called from any thread.
final class StatusReporter: Sendable {
    private let notify: @Sendable (String) -> Void
    /// The hub's clock (monotonic ns), for the uptime.
    private let now: @Sendable () -> UInt64
    private let startedAt: UInt64
    private let statusChanged = Atomic(true)

    init(notify: @escaping @Sendable (String) -> Void, now: @escaping @Sendable () -> UInt64 = MonotonicTime.now) {
        self.notify = notify
        self.now = now
        startedAt = now()
    }

    func changed() { statusChanged.store(true, ordering: .relaxed) }

    func notifySystemd(device: DeviceInfo, clients: Int) {
        guard statusChanged.exchange(false, ordering: .relaxed) else { return }
        notify("STATUS=\(device.state == "ok" ? "sampling" : device.state) \(device.chip) at \(device.rate) Hz, ±\(device.range) g; \(clients) client\(clients == 1 ? "" : "s")")
    }

    func report(counters: SamplerCounters, clients: Int, device: DeviceInfo) -> StatusReport {
        StatusReport(uptime: Double(now() - startedAt) / 1e9, clients: clients, counters: counters, device: device)
    }
}
