// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelConfiguration
@testable import AccelGateway
import AccelProtocol
import Foundation
import Testing

@Suite("Host and Origin policy")
struct HostPolicyTests {
    let policy = HostPolicy(names: ["Board.local", "192.168.1.20"])

    @Test("loopback names and the configured names are answered, with or without a port")
    func allowed() {
        for host in ["127.0.0.1", "127.0.0.1:8080", "localhost", "localhost:8080", "[::1]:8080", "[::1]", "127.1.2.3",
                     "board.local", "BOARD.LOCAL:80", "board.local.", "192.168.1.20:8080", "app.localhost"] {
            #expect(policy.allowsHost(host), "\(host)")
        }
    }

    @Test("any other Host is refused: a rebinding name, another address, malformed values")
    func refused() {
        for host in ["", "evil.example", "evil.example:8080", "127.0.0.1.evil.example", "board.local.evil.example",
                     "192.168.1.21", "[::2]:80", "localhost:99999", "localhost:80:80", "user@localhost", "local host", "[::1"] {
            #expect(!policy.allowsHost(host), "\(host)")
        }
    }

    @Test("WebSocket Origin: absent or a page of ours; a foreign page, null and other schemes are refused")
    func origins() {
        #expect(policy.allowsOrigin(nil))
        #expect(policy.allowsOrigin("http://127.0.0.1:8080"))
        #expect(policy.allowsOrigin("https://board.local"))
        #expect(!policy.allowsOrigin("http://evil.example"))
        #expect(!policy.allowsOrigin("null"))
        #expect(!policy.allowsOrigin("file://"))
        #expect(!policy.allowsOrigin("http://127.0.0.1:8080/path"))
        #expect(!policy.allowsOrigin("chrome-extension://abc"))
    }
}

@Suite("The browser's motion events")
struct BrowserMotionTests {
    func decode(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("face up at rest: accelerationIncludingGravity z = +9.81 m/s², acceleration ~0, rotationRate null, beta = gamma = 0")
    func faceUp() throws {
        let frame = FrameMessage(seq: 1, t: 1, acceleration: Vector3(0, 0, 1), gravity: Vector3(0, 0, 1), user: Vector3(0, 0, 0))
        let message = try decode(BrowserMotion.message(for: frame, interval: 10))
        let motion = try #require(message["motion"] as? [String: Any])
        let aig = try #require(motion["accelerationIncludingGravity"] as? [String: Double])
        #expect(abs(aig["z"]! - 9.80665) < 1e-3 && aig["x"] == 0 && aig["y"] == 0)
        #expect((motion["acceleration"] as? [String: Double])?["z"] == 0)
        #expect(motion["rotationRate"] is NSNull)
        #expect(motion["interval"] as? Double == 10)
        let orientation = try #require(message["orientation"] as? [String: Any])
        #expect(orientation["alpha"] is NSNull)
        #expect(orientation["beta"] as? Double == 0 && orientation["gamma"] as? Double == 0)
    }

    @Test("beta and gamma follow the specification's Z-X'-Y'' angles for every attitude (round trip)",
          arguments: [(0.0, 0.0), (90.0, 0.0), (-45.0, 30.0), (150.0, -60.0), (-170.0, 80.0), (30.0, -89.0), (179.0, 10.0)])
    func roundTrip(beta: Double, gamma: Double) {
        let b = beta * .pi / 180, g = gamma * .pi / 180
        // f = Rᵀ·(0, 0, 1) for R = Rx(beta)·Ry(gamma).
        let f = Vector3(-sin(g) * cos(b), sin(b), cos(g) * cos(b))
        let angles = BrowserMotion.angles(gravity: f)
        #expect(abs(angles.beta - beta) < 1e-9 && abs(angles.gamma - gamma) < 1e-9, "\(angles)")
    }

    @Test("upright in portrait: beta +90; right edge down: gamma positive, as on a phone")
    func tilts() {
        #expect(abs(BrowserMotion.angles(gravity: Vector3(0, 1, 0)).beta - 90) < 1e-9)
        let rightDown = BrowserMotion.angles(gravity: Vector3(-0.5, 0, 0.866))
        #expect(rightDown.gamma > 29 && rightDown.gamma < 31)
    }
}

@Suite("Metrics")
struct GatewayMetricsTests {
    func value(_ name: String, in metrics: GatewayMetrics) -> String? {
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.split(separator: " ")[1]) }
    }

    func status(published: Int) -> StatusReport {
        var counters = SamplerCounters()
        counters.published = published
        let device = DeviceInfo(chip: "LIS302DL", location: "model", range: 2, rate: 100, mode: "normal", resolution: 8, state: "ok")
        return StatusReport(uptime: 1, clients: 1, counters: counters, device: device)
    }

    @Test("acceld's counters stay monotonic across its restart: a counter that went down adds its new value")
    func restart() {
        let metrics = GatewayMetrics()
        metrics.status(status(published: 100))
        metrics.status(status(published: 250))
        #expect(value("acceld_samples_published_total", in: metrics) == "250")
        metrics.status(status(published: 30))  // acceld restarted
        #expect(value("acceld_samples_published_total", in: metrics) == "280")
        #expect(value("acceld_rate_hz", in: metrics) == "100.0")
    }

    @Test("events are counted by class, and the device state is one series per state")
    func events() {
        let metrics = GatewayMetrics()
        metrics.event("shake")
        metrics.event("shake")
        metrics.event("tap")
        metrics.status(status(published: 1))
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"acceld_events_total{class="shake"} 2"#))
        #expect(text.contains(#"acceld_events_total{class="tap"} 1"#))
        #expect(text.contains(#"acceld_device_state{state="ok"} 1.0"#))
        #expect(text.contains(#"acceld_device_state{state="lost"} 0.0"#))
        metrics.daemon(connected: false)
        #expect(String(decoding: metrics.exposition(), as: UTF8.self).contains(#"acceld_device_state{state="ok"} 0.0"#))
    }
}

@Suite("Gateway settings")
struct GatewaySettingsTests {
    @Test("[gateway] keys parse, and a bad listen or server name is refused with the line and what to write")
    func keys() throws {
        let c = try Configuration(parsing: "[gateway]\nhttp = true\nlisten = [::1]:9000\nserver-names = Board.local, 10.0.0.5\n")
        #expect(c.gateway.http && c.gateway.listen == "[::1]:9000" && c.gateway.serverNames == ["board.local", "10.0.0.5"])
        #expect(GatewaySettings.endpoint("[::1]:9000")! == ("::1", 9000))
        #expect(throws: ConfigurationError.self) { try Configuration(parsing: "[gateway]\nlisten = 8080\n") }
        #expect(throws: ConfigurationError.self) { try Configuration(parsing: "[gateway]\nserver-names = http://board.local\n") }
    }

    @Test("a port out of range is said as such, not as a malformed host:port")
    func portOutOfRange() {
        #expect(GatewaySettings.endpointProblem("127.0.0.1:80800", example: "127.0.0.1:8080")
                == "'127.0.0.1:80800': port 80800 is out of range: a port is 1 to 65535, such as 127.0.0.1:8080")
        #expect(GatewaySettings.endpointProblem("8080", example: "127.0.0.1:8080") == "'8080' is not host:port, such as 127.0.0.1:8080")
        #expect(GatewaySettings.endpointProblem("[::1]:9000", example: "x") == nil)
        do { _ = try Configuration(parsing: "[gateway]\nlisten = 127.0.0.1:80800\n") } catch {
            #expect("\(error)".contains("port 80800 is out of range"), "\(error)")
        }
    }

    @Test("every face is off by default")
    func offByDefault() {
        let defaults = GatewaySettings()
        #expect(!defaults.http && !defaults.metrics && defaults.listen.hasPrefix("127.0.0.1:"))
    }
}
