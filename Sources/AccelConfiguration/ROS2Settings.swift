// SPDX-License-Identifier: Apache-2.0

/// The [ros2] section: acceld-ros2's topics and QoS (docs/ROS2.md). acceld
/// itself never reads it.
public struct ROS2Settings: Sendable, Equatable {
    public enum Reliability: String, Sendable, CaseIterable {
        case bestEffort = "best-effort", reliable
    }

    /// Prefixed to relative topic names; "" is the root namespace.
    public var namespace = ""
    public var frameID = "imu_link"
    /// nil: $ROS_DOMAIN_ID, else 0, as ROS 2 chooses.
    public var domainID: Int?
    public var rawTopic = "imu/data_raw"
    /// Published only on parts with a gyroscope.
    public var fusedTopic = "imu/data"
    public var diagnosticsTopic = "/diagnostics"
    /// IMU messages a second at most (every n-th frame); 0: every frame.
    public var rate: Double = 0
    /// The IMU topics' QoS: ROS 2's sensor-data profile by default.
    public var reliability = Reliability.bestEffort
    public var depth = 5
    public var diagnosticsPeriod: Double = 1
    public init() {}

    /// The domain ids DDS can map to ports with its default gains (the
    /// ROS 2 documentation's 0 to 232; 0 to 101 leave room for ephemeral ports).
    public static let domainIDs = 0...232

    /// The domain this run uses: the setting, else `$ROS_DOMAIN_ID`, else 0.
    public func domain(environment: [String: String]) throws(ROS2NameError) -> Int {
        if let domainID { return domainID }
        guard let text = environment["ROS_DOMAIN_ID"], !text.isEmpty else { return 0 }
        guard let id = Int(text), ROS2Settings.domainIDs.contains(id) else {
            throw ROS2NameError("ROS_DOMAIN_ID='\(text)' is not a domain id: a whole number from 0 to 232")
        }
        return id
    }

    /// A topic's fully qualified name: a relative one in `namespace`.
    public func qualified(_ topic: String) -> String {
        topic.hasPrefix("/") ? topic : (namespace.isEmpty || namespace == "/" ? "" : namespace) + "/" + topic
    }
}

public struct ROS2NameError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// ROS 2's rules for names (rcl's validate_topic_name and
/// validate_namespace): tokens of letters, digits and underscores, none
/// starting with a digit, separated by single slashes, no slash at the end.
public enum ROS2Names {
    /// Why `name` is not a topic name ROS 2 accepts, or nil.
    public static func topicProblem(_ name: String) -> String? {
        guard !name.isEmpty else { return "a topic name cannot be empty" }
        let body = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return tokensProblem(body, what: "topic name '\(name)'")
    }

    /// Why `namespace` is not a namespace ROS 2 accepts ("" and "/" are the root), or nil.
    public static func namespaceProblem(_ namespace: String) -> String? {
        guard !namespace.isEmpty, namespace != "/" else { return nil }
        guard namespace.hasPrefix("/") else { return "namespace '\(namespace)' must begin with /, such as /robot1" }
        return tokensProblem(String(namespace.dropFirst()), what: "namespace '\(namespace)'")
    }

    private static func tokensProblem(_ body: String, what: String) -> String? {
        if body.hasSuffix("/") || body.isEmpty { return "\(what) must not end with /" }
        for token in body.split(separator: "/", omittingEmptySubsequences: false) {
            if token.isEmpty { return "\(what) must not hold // (an empty token)" }
            if token.first!.isNumber { return "\(what): '\(token)' begins with a digit, which ROS 2 refuses" }
            if let bad = token.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }) {
                return "\(what) holds '\(bad)': ROS 2 allows letters, digits, _ and / only"
            }
        }
        return nil
    }
}
