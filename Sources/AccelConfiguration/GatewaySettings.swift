// SPDX-License-Identifier: Apache-2.0
/// The [gateway] section: acceld-gateway's network faces. acceld itself
/// never reads it (the daemon stays off the network); every face is off
/// until enabled.
public struct GatewaySettings: Sendable, Equatable {
    /// The live page, its WebSocket streams and (with `metrics`) /metrics.
    public var http = false
    /// Where HTTP listens, host:port. Loopback unless set otherwise.
    public var listen = "127.0.0.1:8080"
    /// Names (besides loopback) the board is reached by: requests whose
    /// Host names anything else are refused (DNS rebinding).
    public var serverNames: [String] = []
    /// The live page's files.
    public var webRoot = "/usr/share/acceld/web"
    /// Prometheus exposition at /metrics.
    public var metrics = false
    /// HTTP and WebSocket connections at once.
    public var maxConnections = 256
    public var mqtt = MQTTSettings()
    /// Watch acceld's `vibration` and `machine` streams (protocol 3 and
    /// later): gauges, MQTT topics with Home Assistant's discovery, and the
    /// page's spectrum. Off by default: the analysis costs the daemon work.
    public var vibration = false
    /// Spectrum bins asked of acceld with each window, for the page's
    /// spectrum and waterfall.
    public var vibrationBins = 256
    public init() {}

    /// `listen` split, or why it cannot be: "host:port", "[v6]:port".
    /// What is wrong with a host:port, said for `what` ("--listen", "[gateway] listen"
    /// is the caller's), with an example; nil when it is one.
    public static func endpointProblem(_ text: String, example: String) -> String? {
        guard endpoint(text) == nil else { return nil }
        if let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), !(0...65535).contains(port) {
            return "'\(text)': port \(port) is out of range: a port is 1 to 65535, such as \(example)"
        }
        return "'\(text)' is not host:port, such as \(example)"
    }

    public static func endpoint(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}

/// MQTT for fleets: events to `<prefix>/<board>/<class>` at QoS 1.
public struct MQTTSettings: Sendable, Equatable {
    public var enabled = false
    /// host:port of the broker (8883 is the usual port with TLS).
    public var broker = "127.0.0.1:1883"
    public var prefix = "acceld"
    /// This board's name in topics; empty: the host name.
    public var board = ""
    /// Frames per second published to `<prefix>/<board>/frame`; 0: none.
    public var framesHz = 0.0
    /// Messages kept while the broker is away (or slow to acknowledge);
    /// beyond it they are dropped and counted.
    public var queue = 1000
    public var username = ""
    /// A file holding the password (one line), readable by the gateway's
    /// user only: the password never stands in this file, a log or metrics.
    public var passwordFile = ""
    /// TLS: the CA certificate(s) that sign the broker's; empty: no TLS.
    public var tlsCAFile = ""
    /// TLS client certificate and key, when the broker asks for one.
    public var tlsCertFile = ""
    public var tlsKeyFile = ""
    /// Home Assistant's MQTT discovery (with `[gateway] vibration`): the
    /// board as a device with its sensors, under this prefix; "" for none.
    public var discoveryPrefix = "homeassistant"
    /// Vibration windows published at most this often (s; 0: every one):
    /// a home automation's recorder does not need two a second.
    public var vibrationSeconds = 10.0
    public init() {}
}
