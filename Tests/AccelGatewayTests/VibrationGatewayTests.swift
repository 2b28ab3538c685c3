// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
@testable import AccelGateway
import AccelProtocol
import Foundation
import Testing

/// A window as acceld writes it, with what the daemon's `[vibration]`
/// section will add (a zone, a shaft and orders), decoded from its line.
func vibrationWindow(t: Double = 12.5, state: String = "running", zone: String? = "B") throws -> VibrationMessage {
    let axis = { (velocity: Double) in
        VibrationMessage.Axis(rms: 0.04, peak: 0.2, peakToPeak: 0.4, crest: 5, kurtosis: 4, velocity: velocity, dominant: [29.9, 0.04])
    }
    var window = VibrationMessage(
        t: t, seq: 5134, duration: 0.99, rate: 3361.765, x: axis(1.6247), y: axis(1.6225), z: axis(0.0832),
        rms: 0.06099, peak: 0.264, crest: 4.329, velocity: 2.2976, band: [10, 1000], zone: zone,
        peaks: [[29.90, 0.058597], [59.93, 0.02341]], envelopeBand: [249.8, 1498.5], envelopePeaks: [[107.37, 0.014207]],
        shaft: 29.95, orders: [.init(name: "BPFO", frequency: 107.4, amplitude: 0.0021, envelope: 0.014207,
                                     family: [[107.37, 0.014207, 22.5], nil, nil], indicator: 21.4, condition: "alarm"),
                               .init(name: "BPFI", frequency: 162.2, amplitude: nil, envelope: nil, indicator: 2.1, condition: "ok")],
        clipped: false, state: state, spectrum: .init(step: 420.2, amplitudes: [0.05, 0.003]))
    window.bearing = .init(condition: "alarm", order: "BPFO", indicator: 21.4)
    window.restarts = 2
    // Through the wire form: what the gateway gets is what acceld printed.
    guard case .vibration(let decoded) = try Message(parsing: Array(Message.vibration(window).json.utf8)) else {
        throw MessageError(nil, "not a vibration message")
    }
    return decoded
}

let vibrationHello = Hello(protocolVersion: 3, version: "0.2.0",
                           device: DeviceInfo(chip: "LSM6DSO", location: "model", range: 2, rate: 3330, mode: "high-performance", resolution: 16, state: "ok"))

@Suite("Vibration in the gateway")
struct VibrationGatewayTests {
    func exposition(_ metrics: GatewayMetrics) -> [String: String] {
        var series: [String: String] = [:]
        for line in String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            series[String(parts[0])] = String(parts[1])
        }
        return series
    }

    @Test("the gauges: velocity in m/s, RMS in g, dominant frequency in Hz, zone, orders, state as 0/1 series")
    func gauges() throws {
        let metrics = GatewayMetrics()
        let window = try vibrationWindow()
        metrics.record([.message(line: [], .vibration(window))])
        let s = exposition(metrics)
        #expect(Double(s[#"acceld_vibration_velocity_rms_meters_per_second{axis="vector"}"#]!)! == 2.2976 / 1000)
        #expect(Double(s[#"acceld_vibration_velocity_rms_meters_per_second{axis="x"}"#]!)! == 1.6247 / 1000)
        #expect(s[#"acceld_vibration_acceleration_rms_g{axis="vector"}"#] == "0.06099")
        #expect(s[#"acceld_vibration_dominant_frequency_hertz{axis="vector"}"#] == "29.9")
        #expect(s[#"acceld_vibration_iso_zone{zone="B"}"#] == "1.0" && s[#"acceld_vibration_iso_zone{zone="C"}"#] == "0.0")
        #expect(s[#"acceld_vibration_order_amplitude_g{order="BPFO"}"#] == "0.0021")
        #expect(s[#"acceld_vibration_order_envelope_amplitude_g{order="BPFO"}"#] == "0.014207")
        #expect(s[#"acceld_vibration_order_amplitude_g{order="BPFI"}"#]?.lowercased() == "nan", "no line: not a number, never a made-up 0")
        #expect(s[#"acceld_vibration_shaft_hertz"#] == "29.95")
        #expect(s[#"acceld_vibration_order_indicator_db{order="BPFO"}"#] == "21.4")
        #expect(s[#"acceld_vibration_bearing_condition{order="BPFO",condition="alarm"}"#] == "1.0"
                && s[#"acceld_vibration_bearing_condition{order="BPFI",condition="ok"}"#] == "1.0"
                && s[#"acceld_vibration_bearing_condition{order="BPFI",condition="alarm"}"#] == "0.0")
        #expect(s["acceld_vibration_window_restarts"] == "2.0")
        #expect(s[#"acceld_machine_state{state="running"}"#] == "1.0" && s[#"acceld_machine_state{state="off"}"#] == "0.0")
        #expect(s["acceld_vibration_windows_total"] == "1")

        metrics.record([.message(line: [], .machine(MachineMessage(t: 13, state: "off", from: "running")))])
        let after = exposition(metrics)
        #expect(after[#"acceld_machine_state{state="off"}"#] == "1.0" && after[#"acceld_machine_state{state="running"}"#] == "0.0")
        #expect(after[#"acceld_machine_transitions_total{state="off"}"#] == "1")
        metrics.record([.disconnected(reason: "gone")])
        let gone = exposition(metrics)
        #expect(["off", "idle", "running"].allSatisfy { gone[#"acceld_machine_state{state="\#($0)"}"#] == "0.0" }, "acceld away: no state claimed")
    }

    @Test("with [gateway] vibration off, /metrics has no vibration or machine series at all, not NaN gauges")
    func noGaugesWhenOff() throws {
        let metrics = GatewayMetrics(vibration: false)
        metrics.record([.message(line: [], .vibration(try vibrationWindow()))])
        let names = exposition(metrics).keys
        #expect(!names.isEmpty && !names.contains { $0.hasPrefix("acceld_vibration_") || $0.hasPrefix("acceld_machine_") }, "\(names.sorted())")
    }

    @Test("the watch: vibration and machine only from a protocol-3 daemon, and only when asked for")
    func watchByProtocol() {
        let windows = VibrationWatch(window: 1, overlap: 0.5, spectrumBins: 256)
        let old = Hello(protocolVersion: 2, version: "0.1.0", device: vibrationHello.device)
        guard case .watch(let streams, _, _, _, let vibration) = DaemonFeed.watch(for: vibrationHello, vibration: windows),
              case .watch(let oldStreams, _, _, _, let oldVibration) = DaemonFeed.watch(for: old, vibration: windows),
              case .watch(let offStreams, _, _, _, _) = DaemonFeed.watch(for: vibrationHello, vibration: nil) else {
            Issue.record("not watches")
            return
        }
        #expect(streams.isSuperset(of: [.vibration, .machine, .status, .frames]) && vibration == windows)
        #expect(oldStreams.isDisjoint(with: [.vibration, .machine]) && oldVibration == nil && oldStreams.contains(.frames))
        #expect(offStreams.isDisjoint(with: [.vibration, .machine]))
    }

    @Test("MQTT: windows without spectra at most every mqtt-vibration-seconds, the state once per change, discovery per hello")
    func topics() throws {
        var settings = MQTTSettings()
        settings.vibrationSeconds = 10
        let topics = VibrationTopics(settings: settings, board: "pi.kitchen")
        let discovery = topics.route(.connected(vibrationHello))
        #expect(discovery.count == 8 && discovery.allSatisfy { $0.retain && $0.topic.hasPrefix("homeassistant/") })
        #expect(discovery.allSatisfy { $0.topic.contains("/pi_kitchen/") }, "the node id holds only [a-zA-Z0-9_-]")
        var published: [VibrationTopics.Outgoing] = []
        for t in stride(from: 0.0, through: 25, by: 0.5) {
            published += topics.route(.message(line: [], .vibration(try vibrationWindow(t: t, state: t < 20 ? "running" : "idle"))))
        }
        let windows = published.filter { $0.topic == "acceld/pi.kitchen/vibration" }
        #expect(windows.count == 3, "t = 0, 10 and 20")
        let first = try JSONValue(parsing: windows[0].payload).object!
        #expect(first["spectrum"] == nil && first["vector"]?.object?["velocity"]?.number == 2.2976)
        let states = published.filter { $0.topic == "acceld/pi.kitchen/machine-state" }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(states == ["running", "idle"])
        let line = Array(#"{"class":"machine","t":20.000000,"state":"idle","from":"running"}"#.utf8)
        let change = topics.route(.message(line: line, .machine(MachineMessage(t: 20, state: "idle", from: "running"))))
        #expect(change == [.init(topic: "acceld/pi.kitchen/machine", payload: line, retain: true)], "the state already said: once")
        let old = Hello(protocolVersion: 2, version: "0.1.0", device: vibrationHello.device)
        #expect(topics.route(.connected(old)).isEmpty, "no entities for a daemon without the streams")
        settings.discoveryPrefix = ""
        #expect(VibrationTopics(settings: settings, board: "b").route(.connected(vibrationHello)).isEmpty, "discovery off")
    }

    @Test("discovery: one device, each entity's unit and class as Home Assistant takes them")
    func discovery() throws {
        let discovery = HomeAssistantDiscovery(base: "acceld/b1", board: "b1", discoveryPrefix: "homeassistant")
        let entities = discovery.entities(hello: vibrationHello)
        let byObject = Dictionary(uniqueKeysWithValues: entities.map { ($0.object, $0.config) })
        #expect(byObject["velocity_rms"]?["unit_of_measurement"] == .string("mm/s") && byObject["velocity_rms"]?["device_class"] == .string("speed"))
        #expect(byObject["dominant_frequency"]?["unit_of_measurement"] == .string("Hz") && byObject["dominant_frequency"]?["device_class"] == .string("frequency"))
        #expect(byObject["machine_state"]?["options"] == .array(["off", "idle", "running"].map { .string($0) }))
        #expect(byObject["machine_state"]?["state_class"] == nil && byObject["machine_state"]?["unit_of_measurement"] == nil)
        #expect(byObject["bearing_condition"]?["options"] == .array(["ok", "watch", "alarm"].map { .string($0) }))
        #expect(byObject["bearing_indicator"]?["unit_of_measurement"] == .string("dB"))
        #expect(entities.allSatisfy { $0.config["device"] == entities[0].config["device"] }, "one device")
        #expect(discovery.topic(entities[0]) == "homeassistant/sensor/b1/velocity_rms/config")
    }

    @Test("[gateway] vibration keys: read, defaults, and bad values named with the fix")
    func configuration() throws {
        var configuration = try Configuration(parsing: "[gateway]\nvibration = on\nvibration-bins = 512\nmqtt-discovery-prefix = ha\nmqtt-vibration-seconds = 0\n")
        #expect(configuration.gateway.vibration && configuration.gateway.vibrationBins == 512)
        #expect(configuration.gateway.mqtt.discoveryPrefix == "ha" && configuration.gateway.mqtt.vibrationSeconds == 0)
        configuration = Configuration()
        #expect(!configuration.gateway.vibration && configuration.gateway.mqtt.discoveryPrefix == "homeassistant")
        for (text, named) in [("vibration = maybe", "yes/no"), ("vibration-bins = 8", "16..4096"), ("mqtt-discovery-prefix = ha/#", "topic prefix")] {
            #expect(throws: (any Error).self) { try Configuration(parsing: "[gateway]\n" + text + "\n") }
            do { _ = try Configuration(parsing: "[gateway]\n" + text + "\n") } catch { #expect("\(error)".contains(named), "\(error)") }
        }
    }
}
