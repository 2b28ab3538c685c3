// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol

/// The daemon's health in two forms: the `status` message and systemd's
/// STATUS= line, which is sent at most once a second and only when it
/// changed (a connection storm would otherwise send two per client).
final class StatusReporter {
    private let notify: @Sendable (String) -> Void
    private let startedAt = MonotonicTime.now()
    private var statusChanged = true

    init(notify: @escaping @Sendable (String) -> Void) {
        self.notify = notify
    }

    func changed() { statusChanged = true }

    func notifySystemd(device: DeviceInfo, clients: Int) {
        guard statusChanged else { return }
        statusChanged = false
        notify("STATUS=\(device.state == "ok" ? "sampling" : device.state) \(device.chip) at \(device.rate) Hz, ±\(device.range) g; \(clients) client\(clients == 1 ? "" : "s")")
    }

    func report(counters: SamplerCounters, clients: Int, device: DeviceInfo) -> StatusReport {
        StatusReport(uptime: Double(MonotonicTime.now() - startedAt) / 1e9, clients: clients, counters: counters, device: device)
    }
}
