// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol

/// acceld's `status` as a diagnostic_msgs/DiagnosticArray, once a second,
/// the way diagnostic_updater's users read it: one status named after the
/// device, a level, a one-line message, and the counters as key-value
/// pairs (docs/PROTOCOL.md names each).
public struct DiagnosticsReport: Sendable {
    public var name: String
    private var previous: SamplerCounters?

    public init(name: String = "acceld: imu") {
        self.name = name
    }

    /// The level: ERROR when the device is not `ok`, STALE when no frame
    /// arrived since the last report, WARN when samples were lost since
    /// then, else OK.
    public mutating func message(status: StatusReport, framesSinceLast: Int, header: ROS2Header) -> DiagnosticArrayMessage {
        let counters = status.counters, device = status.device
        let newlyLost = previous.map { counters.lost - $0.lost } ?? counters.lost
        previous = counters
        let (level, text): (DiagnosticArrayMessage.Level, String) =
            if device.state != "ok" { (.error, device.message ?? "the device is \(device.state)") }
            else if framesSinceLast == 0 { (.stale, "no samples since the last report") }
            else if newlyLost > 0 { (.warn, "\(newlyLost) samples lost in the last report's interval") }
            else { (.ok, "\(device.rate) Hz, ±\(device.range) g") }
        let values: [(key: String, value: String)] = [
            ("chip", device.chip), ("location", device.location), ("state", device.state),
            ("rate", "\(device.rate)"), ("range", "\(device.range)"), ("mode", device.mode),
            ("published", "\(counters.published)"), ("lost", "\(counters.lost)"), ("overruns", "\(counters.overruns)"),
            ("busErrors", "\(counters.busErrors)"), ("recoveries", "\(counters.recoveries)"),
            ("reacquisitions", "\(counters.reacquisitions)"), ("guessedNumbers", "\(counters.guessedNumbers)"),
        ]
        let status = DiagnosticArrayMessage.Status(level: level, name: name, message: text,
                                                   hardwareID: "\(device.chip) at \(device.location)", values: values)
        return DiagnosticArrayMessage(header: header, status: [status])
    }

    /// While acceld is away: STALE, how long, and why.
    public func away(for seconds: Double, reason: String, header: ROS2Header) -> DiagnosticArrayMessage {
        let status = DiagnosticArrayMessage.Status(level: .stale, name: name, message: "acceld away for \(fixed(seconds, 1)) s: \(reason)",
                                                   hardwareID: "", values: [("state", "away")])
        return DiagnosticArrayMessage(header: header, status: [status])
    }
}
