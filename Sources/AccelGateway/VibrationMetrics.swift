// SPDX-License-Identifier: Apache-2.0
import AccelMachine
import AccelProtocol
import Prometheus
import Synchronization

/// acceld's vibration windows and machine state as Prometheus gauges
/// (`[gateway] vibration`). Names carry their unit, as Prometheus's
/// conventions ask: velocity in its base unit (`_meters_per_second`; ISO
/// 10816's mm/s is × 1000), frequency in `_hertz`, acceleration in `_g` as
/// `acceld_range_g` already is (acceld's own unit). An enumeration is a
/// set of 0/1 series with a label, so `== 1` selects the current value.
final class VibrationMetrics: Sendable {
    static let axes = ["x", "y", "z", "vector"]
    static let machineStates = ["off", "idle", "running"]
    static let zones = ["A", "B", "C", "D"]
    static let conditions = BearingCondition.allCases.map(\.rawValue)

    private let registry: PrometheusCollectorRegistry
    private let velocity, acceleration, dominant: [String: Gauge]
    private let machine, zone: [String: Gauge]
    private let clipped, shaft: Gauge
    private let windows: Counter
    private let transitions: [String: Counter]
    /// Per configured order, made when acceld first names it.
    private let orders = Mutex<[String: OrderGauges]>([:])
    private let restarts: Gauge

    private struct OrderGauges {
        let spectrum, envelope, indicator: Gauge
        /// A bearing's order only: 1 for its condition.
        let conditions: [String: Gauge]
    }

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        func gauges(_ name: String, _ help: String, _ label: String, _ values: [String]) -> [String: Gauge] {
            Dictionary(uniqueKeysWithValues: values.map { ($0, registry.makeGauge(descriptor: Self.named(name, help), labels: [(label, $0)])) })
        }
        velocity = gauges("acceld_vibration_velocity_rms_meters_per_second",
                          "Velocity RMS over ISO 10816's band (10 to 1,000 Hz) of the last window, m/s (x 1000 for mm/s)", "axis", Self.axes)
        acceleration = gauges("acceld_vibration_acceleration_rms_g", "Acceleration RMS of the last window, its mean (gravity) removed, g", "axis", Self.axes)
        dominant = gauges("acceld_vibration_dominant_frequency_hertz", "Frequency of the strongest line of the last window's spectrum, Hz", "axis", Self.axes)
        machine = gauges("acceld_machine_state", "1 for the machine's current state, judged by acceld from the vibration's energy", "state", Self.machineStates)
        zone = gauges("acceld_vibration_iso_zone", "1 for the ISO 10816 / 20816 zone of the last window (where acceld is configured with a machine class)", "zone", Self.zones)
        transitions = Dictionary(uniqueKeysWithValues: Self.machineStates.map {
            ($0, registry.makeCounter(descriptor: Self.named("acceld_machine_transitions_total", "Changes of the machine's state, by the state entered"), labels: [("state", $0)]))
        })
        clipped = registry.makeGauge(descriptor: Self.named("acceld_vibration_clipped", "1 when a sample of the last window reached the part's range: the figures understate the truth"))
        shaft = registry.makeGauge(descriptor: Self.named("acceld_vibration_shaft_hertz", "The shaft's frequency (configured or estimated), Hz; NaN where acceld has none"))
        windows = registry.makeCounter(descriptor: Self.named("acceld_vibration_windows_total", "Vibration windows acceld analysed for the gateway"))
        restarts = registry.makeGauge(descriptor: Self.named("acceld_vibration_window_restarts",
                                                             "Times acceld's vibration windows and averages started again after lost samples, since its analysis began"))
        shaft.set(to: .nan)
    }

    func window(_ window: VibrationMessage) {
        windows.increment()
        let axes = [("x", window.x), ("y", window.y), ("z", window.z)]
        for (name, axis) in axes {
            velocity[name]?.set(to: axis.velocity / 1000)
            acceleration[name]?.set(to: axis.rms)
            dominant[name]?.set(to: axis.dominant?.first ?? .nan)
        }
        velocity["vector"]?.set(to: window.velocity / 1000)
        acceleration["vector"]?.set(to: window.rms)
        dominant["vector"]?.set(to: window.peaks.first?.first ?? .nan)
        clipped.set(to: window.clipped ? 1 : 0)
        shaft.set(to: window.shaft ?? .nan)
        for (name, gauge) in zone { gauge.set(to: name == window.zone ? 1 : 0) }
        state(window.state)
        restarts.set(to: Double(window.restarts))
        for order in window.orders {
            let gauges = gauges(for: order)
            gauges.spectrum.set(to: order.amplitude ?? .nan)
            gauges.envelope.set(to: order.envelope ?? .nan)
            gauges.indicator.set(to: order.indicator ?? .nan)
            for (name, gauge) in gauges.conditions { gauge.set(to: name == order.condition ? 1 : 0) }
        }
    }

    func machine(_ change: MachineMessage) {
        transitions[change.state]?.increment()
        state(change.state)
    }

    /// acceld gone: its machine's state is not known any more.
    func forget() { state(nil) }

    private func state(_ current: String?) {
        for (name, gauge) in machine { gauge.set(to: name == current ? 1 : 0) }
    }

    private func gauges(for order: VibrationMessage.Order) -> OrderGauges {
        orders.withLock { orders in
            if let gauges = orders[order.name] { return gauges }
            let label = [("order", order.name)]
            let gauges = OrderGauges(
                spectrum: registry.makeGauge(descriptor: Self.named("acceld_vibration_order_amplitude_g",
                                                                    "Amplitude of a configured order's line (1x) in the spectrum, g; NaN where there is no line"),
                                             labels: label),
                envelope: registry.makeGauge(descriptor: Self.named("acceld_vibration_order_envelope_amplitude_g",
                                                                    "Amplitude of a configured order's line (1x) in the envelope spectrum, g; NaN where there is no line"),
                                             labels: label),
                indicator: registry.makeGauge(descriptor: Self.named("acceld_vibration_order_indicator_db",
                                                                     "A configured order's family (1x, 2x, 3x) over the averaged envelope spectrum's floor, dB"),
                                              labels: label),
                conditions: order.condition == nil ? [:] : Dictionary(uniqueKeysWithValues: Self.conditions.map {
                    ($0, registry.makeGauge(descriptor: Self.named("acceld_vibration_bearing_condition",
                                                                   "1 for a bearing order's condition (ok, watch, alarm), judged by acceld from its indicator"),
                                            labels: label + [("condition", $0)]))
                }))
            orders[order.name] = gauges
            return gauges
        }
    }

    private static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
