// SPDX-License-Identifier: Apache-2.0
import AccelCore

extension Configuration {
    /// `[ros2]`: acceld-ros2's topics, names and QoS (docs/ROS2.md).
    static var ros2Keys: [ConfigKey] {
        [
            ConfigKey(section: "ros2", name: "namespace", help: "prefixed to the relative topic names; \"\" is the root", set: { config, text in
                let namespace = text == "\"\"" ? "" : text
                if let problem = ROS2Names.namespaceProblem(namespace) { return problem }
                config.ros2.namespace = namespace
                return nil
            }, get: { $0.ros2.namespace.isEmpty ? "\"\"" : $0.ros2.namespace }),
            ConfigKey(section: "ros2", name: "frame-id", help: "the IMU messages' header.frame_id", set: { config, text in
                guard !text.isEmpty, text != "\"\"", !text.contains(where: \.isWhitespace) else {
                    return "'\(text)' is not a frame id: one word, such as imu_link (REP-105)"
                }
                config.ros2.frameID = text
                return nil
            }, get: { $0.ros2.frameID }),
            ConfigKey(section: "ros2", name: "domain-id", help: "the DDS domain; auto: $ROS_DOMAIN_ID, else 0", set: { config, text in
                if text == "auto" { config.ros2.domainID = nil; return nil }
                guard let id = Int(text), ROS2Settings.domainIDs.contains(id) else {
                    return "'\(text)' is not a domain id: auto or a whole number from 0 to 232"
                }
                config.ros2.domainID = id
                return nil
            }, get: { $0.ros2.domainID.map(String.init) ?? "auto" }),
            topic("raw-topic", \.ros2.rawTopic, "sensor_msgs/Imu without orientation (REP-145's imu/data_raw)"),
            topic("fused-topic", \.ros2.fusedTopic, "sensor_msgs/Imu with the fused attitude, on parts with a gyroscope"),
            topic("diagnostics-topic", \.ros2.diagnosticsTopic, "diagnostic_msgs/DiagnosticArray"),
            .number("ros2", "rate", \.ros2.rate, 0...10_000, unit: "Hz", "IMU messages a second at most (every n-th frame); 0: every frame"),
            ConfigKey(section: "ros2", name: "reliability", help: "the IMU topics' QoS: best-effort (ROS 2's sensor data) or reliable", set: { config, text in
                guard let reliability = ROS2Settings.Reliability(rawValue: text) else { return "'\(text)' is not best-effort or reliable" }
                config.ros2.reliability = reliability
                return nil
            }, get: { $0.ros2.reliability.rawValue }),
            .integer("ros2", "depth", \.ros2.depth, within: 1...10_000, "the IMU topics' history: keep the last this many"),
            .number("ros2", "diagnostics-period", \.ros2.diagnosticsPeriod, 0.1...60, unit: "s", "seconds between diagnostics"),
        ]
    }

    private static func topic(_ name: String, _ path: WritableKeyPath<Configuration, String>, _ help: String) -> ConfigKey {
        ConfigKey(section: "ros2", name: name, help: help, set: { config, text in
            if let problem = ROS2Names.topicProblem(text) { return problem }
            config[keyPath: path] = text
            return nil
        }, get: { $0[keyPath: path] })
    }
}
