// SPDX-License-Identifier: Apache-2.0
import AccelProtocol

/// Home Assistant's MQTT discovery for a board: one retained config per
/// entity at `<discovery prefix>/<component>/<node>/<object>/config`, all
/// sharing one `device`, so that the board appears as a device with its
/// sensors without a line of YAML. Each entity reads a topic the gateway
/// already publishes, and is available only while the gateway is online
/// (its last will says offline) and connected to acceld.
struct HomeAssistantDiscovery {
    struct Entity {
        let component: String
        let object: String
        let config: JSONObject
    }

    /// `<prefix>/<board>`, where the board's topics are.
    let base: String
    let board: String
    let discoveryPrefix: String

    /// The board's name as discovery's node id and in unique ids: Home
    /// Assistant takes only [a-zA-Z0-9_-] there.
    var node: String { String(board.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" }) }

    func topic(_ entity: Entity) -> String { "\(discoveryPrefix)/\(entity.component)/\(node)/\(entity.object)/config" }

    /// The entities, for a daemon that greeted with `hello`.
    func entities(hello: Hello) -> [Entity] {
        let vibration = "\(base)/vibration", state = "\(base)/machine-state"
        return [
            sensor("velocity_rms", "Velocity RMS", topic: vibration, template: "{{ value_json.vector.velocity }}",
                   unit: "mm/s", deviceClass: "speed", precision: 2, hello: hello),
            sensor("acceleration_rms", "Acceleration RMS", topic: vibration, template: "{{ value_json.vector.rms }}",
                   unit: "g", deviceClass: nil, precision: 4, hello: hello),
            // No line in a silent window: None is Home Assistant's "unknown".
            sensor("dominant_frequency", "Dominant frequency", topic: vibration,
                   template: "{{ value_json.peaks[0][0] if value_json.peaks else None }}",
                   unit: "Hz", deviceClass: "frequency", precision: 1, hello: hello),
            enumeration("machine_state", "Machine state", topic: state, template: nil, options: VibrationMetrics.machineStates, hello: hello),
            enumeration("iso_zone", "ISO zone", topic: vibration,
                        template: "{{ value_json.zone if value_json.zone is defined else None }}", options: VibrationMetrics.zones, hello: hello),
            // The worst bearing order's condition, and which order it is.
            enumeration("bearing_condition", "Bearing condition", topic: vibration,
                        template: "{{ value_json.bearing.condition if value_json.bearing is defined else None }}",
                        options: VibrationMetrics.conditions, hello: hello),
            sensor("bearing_indicator", "Bearing defect indicator", topic: vibration,
                   template: "{{ value_json.bearing.indicator if value_json.bearing is defined else None }}",
                   unit: "dB", deviceClass: nil, precision: 1, hello: hello),
            Entity(component: "binary_sensor", object: "running", config: common("running", "Running", hello: hello).merging([
                "state_topic": .string(state),
                "value_template": .string("{{ 'ON' if value == 'running' else 'OFF' }}"),
                "device_class": .string("running"),
            ]) { $1 }),
        ]
    }

    private func sensor(_ object: String, _ name: String, topic: String, template: String, unit: String, deviceClass: String?,
                        precision: Int, hello: Hello) -> Entity {
        var config = common(object, name, hello: hello)
        config["state_topic"] = .string(topic)
        config["value_template"] = .string(template)
        config["unit_of_measurement"] = .string(unit)
        config["state_class"] = .string("measurement")
        config["suggested_display_precision"] = .number(Double(precision))
        if let deviceClass { config["device_class"] = .string(deviceClass) }
        return Entity(component: "sensor", object: object, config: config)
    }

    /// A sensor whose state is one of `options` (Home Assistant's `enum`
    /// class: no unit, no state class).
    private func enumeration(_ object: String, _ name: String, topic: String, template: String?, options: [String], hello: Hello) -> Entity {
        var config = common(object, name, hello: hello)
        config["state_topic"] = .string(topic)
        if let template { config["value_template"] = .string(template) }
        config["device_class"] = .string("enum")
        config["options"] = .array(options.map { .string($0) })
        return Entity(component: "sensor", object: object, config: config)
    }

    private func common(_ object: String, _ name: String, hello: Hello) -> JSONObject {
        [
            "name": .string(name),
            "unique_id": .string("acceld_\(node)_\(object)"),
            "device": .object([
                "identifiers": .array([.string("acceld_\(node)")]),
                "name": .string(board),
                "manufacturer": .string("acceld"),
                "model": .string(hello.device.chip),
                "sw_version": .string(hello.version),
            ]),
            "origin": .object(["name": .string("acceld-gateway"), "sw_version": .string(hello.version)]),
            // Both must hold: the gateway online (its will says offline) and acceld connected.
            "availability_mode": .string("all"),
            "availability": .array([
                .object(["topic": .string("\(base)/gateway"), "value_template": .string("{{ value_json.state }}"),
                         "payload_available": .string("online"), "payload_not_available": .string("offline")]),
                .object(["topic": .string("\(base)/daemon"), "value_template": .string("{{ value_json.daemon }}"),
                         "payload_available": .string("connected"), "payload_not_available": .string("disconnected")]),
            ]),
        ]
    }
}
