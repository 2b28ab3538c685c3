// SPDX-License-Identifier: Apache-2.0
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

    private let registry: PrometheusCollectorRegistry
    private let velocity, acceleration, dominant: [String: Gauge]
    private let machine, zone: [String: Gauge]
    private let clipped, shaft: Gauge
    private let windows: Counter
    private let transitions: [String: Counter]
    /// Per configured order, made when acceld first names it.
    private let orders = Mutex<[String: (spectrum: Gauge, envelope: Gauge)]>([:])

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
        for order in window.orders {
            let pair = gauges(for: order.name)
            pair.spectrum.set(to: order.amplitude ?? .nan)
            pair.envelope.set(to: order.envelope ?? .nan)
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

    private func gauges(for order: String) -> (spectrum: Gauge, envelope: Gauge) {
        orders.withLock { orders in
            if let pair = orders[order] { return pair }
            let pair = (
                spectrum: registry.makeGauge(descriptor: Self.named("acceld_vibration_order_amplitude_g",
                                                                    "Amplitude of a configured order's line (1x) in the spectrum, g; NaN where there is no line"),
                                             labels: [("order", order)]),
                envelope: registry.makeGauge(descriptor: Self.named("acceld_vibration_order_envelope_amplitude_g",
                                                                    "Amplitude of a configured order's line (1x) in the envelope spectrum, g; NaN where there is no line"),
                                             labels: [("order", order)]))
            orders[order] = pair
            return pair
        }
    }

    private static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
