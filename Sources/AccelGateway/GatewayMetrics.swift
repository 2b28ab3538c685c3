// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import Prometheus
import Synchronization

/// The Prometheus exposition at /metrics (swift-prometheus). acceld's
/// counters come from its `status` stream, once a second; the gateway adds
/// them up by their increase, so they stay monotonic across a restart of
/// acceld (a counter that went down was reset, and its new value is the
/// increase), as Prometheus expects of a `_total`.
public final class GatewayMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// The device states a status can name, each a 0/1 series.
    static let states = ["ok", "lost", "stalled", "wrong-part", "data-ready-stuck"]

    private let daemonCounters: [(@Sendable (SamplerCounters) -> Int, Counter)]
    private let lastCounters = Mutex<SamplerCounters?>(nil)
    private let clients, range, rate, connected: Gauge
    private let stateGauges: [String: Gauge]
    private let events = Mutex<[String: Counter]>([:])
    let httpResponses = Mutex<[Int: Counter]>([:])
    let refusals: [String: Counter]
    let webSocketClients: Gauge
    let webSocketDropped: Counter
    let mqttConnected, mqttQueue: Gauge
    let mqttPublished, mqttDropped, mqttConnections: Counter
    /// acceld's vibration windows and machine state, only with `[gateway]
    /// vibration`: a scrape without it shows no gauge that could never move.
    let vibration: VibrationMetrics?

    public init(vibration: Bool = true) {
        let r = registry
        let named = GatewayMetrics.named
        func counter(_ name: String, _ help: String) -> Counter { r.makeCounter(descriptor: named(name, help)) }
        func mirror(_ value: @escaping @Sendable (SamplerCounters) -> Int, _ name: String, _ help: String) -> (@Sendable (SamplerCounters) -> Int, Counter) {
            (value, counter(name, help))
        }
        daemonCounters = [
            mirror({ $0.published }, "acceld_samples_published_total", "Samples acceld published"),
            mirror({ $0.emptyReads }, "acceld_empty_reads_total", "Reads of the chip that found no new sample"),
            mirror({ $0.overruns }, "acceld_overruns_total", "Reads that found samples overwritten"),
            mirror({ $0.lost }, "acceld_samples_lost_total", "Samples the chip made that acceld never read"),
            mirror({ $0.busErrors }, "acceld_bus_errors_total", "Failed bus transfers"),
            mirror({ $0.recoveries }, "acceld_recoveries_total", "Times the chip answered again after being lost"),
            mirror({ $0.reconfigurations }, "acceld_reconfigurations_total", "Times the chip had lost its configuration"),
        ]
        clients = r.makeGauge(descriptor: named("acceld_clients", "Clients connected to acceld's socket, the gateway included"))
        range = r.makeGauge(descriptor: named("acceld_range_g", "Full scale, g"))
        rate = r.makeGauge(descriptor: named("acceld_rate_hz", "Output data rate, Hz"))
        connected = r.makeGauge(descriptor: named("acceld_gateway_daemon_connected", "1 while the gateway is connected to acceld"))
        stateGauges = Dictionary(uniqueKeysWithValues: GatewayMetrics.states.map {
            ($0, r.makeGauge(descriptor: named("acceld_device_state", "1 for the device's current state"), labels: [("state", $0)]))
        })
        refusals = Dictionary(uniqueKeysWithValues: ["host", "origin", "connections"].map {
            ($0, r.makeCounter(descriptor: named("acceld_gateway_http_refused_total", "Requests refused: a foreign Host, a foreign Origin, too many connections"),
                               labels: [("reason", $0)]))
        })
        webSocketClients = r.makeGauge(descriptor: named("acceld_gateway_websocket_clients", "WebSocket clients connected"))
        webSocketDropped = counter("acceld_gateway_websocket_dropped_total", "Messages not sent to a WebSocket client that was not reading")
        mqttConnected = r.makeGauge(descriptor: named("acceld_gateway_mqtt_connected", "1 while the gateway is connected to the MQTT broker"))
        mqttQueue = r.makeGauge(descriptor: named("acceld_gateway_mqtt_queue", "MQTT messages waiting for the broker's acknowledgement"))
        mqttPublished = counter("acceld_gateway_mqtt_published_total", "MQTT messages the broker acknowledged")
        mqttDropped = counter("acceld_gateway_mqtt_dropped_total", "MQTT messages dropped because the queue was full")
        self.vibration = vibration ? VibrationMetrics(registry: r) : nil
        mqttConnections = counter("acceld_gateway_mqtt_connections_total", "Connections made to the MQTT broker, reconnections included")
    }

    /// What acceld said, counted and kept.
    func record(_ updates: [DaemonFeed.Update]) {
        for update in updates {
            switch update {
            case .connected(let hello):
                daemon(connected: true)
                device(hello.device)
            case .disconnected:
                daemon(connected: false)
            case .message(_, .event(let event)):
                self.event(event.className)
            case .message(_, .status(let report)):
                status(report)
            case .message(_, .device(let info)):
                device(info)
            case .message(_, .vibration(let window)):
                vibration?.window(window)
            case .message(_, .machine(let change)):
                vibration?.machine(change)
            case .message:
                break
            }
        }
    }

    func daemon(connected isConnected: Bool) {
        connected.set(to: isConnected ? 1 : 0)
        if !isConnected {
            device(state: nil)
            vibration?.forget()
        }
    }

    func status(_ report: StatusReport) {
        let increases: [Int] = lastCounters.withLock { last in
            defer { last = report.counters }
            return daemonCounters.map { value, _ in
                let now = value(report.counters), before = last.map(value) ?? 0
                return now >= before ? now - before : now
            }
        }
        for ((_, counter), increase) in zip(daemonCounters, increases) where increase > 0 { counter.increment(by: Int64(increase)) }
        clients.set(to: Double(report.clients))
        device(report.device)
    }

    func device(_ info: DeviceInfo) {
        range.set(to: Double(info.range))
        rate.set(to: Double(info.rate))
        device(state: info.state)
    }

    private func device(state: String?) {
        for (name, gauge) in stateGauges { gauge.set(to: name == state ? 1 : 0) }
    }

    func event(_ className: String) {
        let counter = events.withLock { events in
            if let counter = events[className] { return counter }
            let counter = registry.makeCounter(descriptor: GatewayMetrics.named("acceld_events_total", "Motion events acceld reported, by class"),
                                               labels: [("class", className)])
            events[className] = counter
            return counter
        }
        counter.increment()
    }

    func response(_ code: Int) {
        httpResponses.withLock { responses in
            if responses[code] == nil {
                responses[code] = registry.makeCounter(descriptor: GatewayMetrics.named("acceld_gateway_http_responses_total", "HTTP responses by status code"),
                                                       labels: [("code", String(code))])
            }
            responses[code]!.increment()
        }
    }

    func refused(_ reason: String) { refusals[reason]?.increment() }

    /// A full name with its help; the name carries its unit (`_total`, `_hz`).
    private static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// The text exposition (format 0.0.4).
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
