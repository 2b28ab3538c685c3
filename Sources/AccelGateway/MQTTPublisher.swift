// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelProtocol
import CMosquitto
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials  // not all of Foundation: ICU's data would triple the static binary
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// MQTT for fleets, through Eclipse Mosquitto's own client library: acceld's
/// messages as it wrote them, to `<prefix>/<board>/<class>` at QoS 1.
/// Orientation, device and the gateway's own state are retained, so a
/// subscriber that comes late learns them first. The library's thread
/// connects and reconnects (after 1, 2, 3, 4, then every 5 s). While the
/// broker is away, messages wait here, in order, up to `[gateway]
/// mqtt-queue` with those the broker has not acknowledged yet; beyond it the
/// oldest are dropped and counted, so what comes back first is the newest.
/// (The library itself refuses to publish while disconnected, and accepts
/// messages while reconnecting.) Credentials and TLS files are used, never
/// printed. (Unchecked: its mutable state is in `state`, under a Mutex;
/// publishing goes through the `sender` queue alone, and libmosquitto's
/// threaded mode runs its own thread on the handle.)
public final class MQTTPublisher: @unchecked Sendable {
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
        public let exitCode: Int32
    }

    public let settings: MQTTSettings
    /// This board's topic level.
    public let board: String
    private let handle: OpaquePointer
    private let metrics: GatewayMetrics
    private let logger = Logger(label: "acceld-gateway.mqtt")
    private let state = Mutex(State())
    /// The vibration's topics and Home Assistant's discovery, when asked for.
    private let vibration: VibrationTopics?
    /// Home Assistant's discovery configs last sent: sent again on each
    /// reconnection, since a broker that restarted without persistence
    /// has lost them, and without them the board is gone from Home Assistant.
    private let discovery = Mutex<[VibrationTopics.Outgoing]>([])

    private struct Outgoing {
        let topic: String
        let payload: [UInt8]
        let retain: Bool
    }

    private struct State {
        /// Waiting for a connection, oldest first.
        var waiting: [Outgoing] = []
        /// Message ids sent and not yet acknowledged (PUBACK).
        var pending = Set<Int32>()
        /// Acknowledged before `publish` had recorded them (the library's
        /// thread can be that quick).
        var earlyAcknowledgements = Set<Int32>()
        var connected = false
        var connections = 0
        var lastRefusal: Int32?
        var held: Int { waiting.count + pending.count }
    }

    /// Sends waiting messages, one at a time, never while `state` is held
    /// (the library's thread takes that lock in its callbacks).
    private let sender = DispatchQueue(label: "acceld-gateway.mqtt.sender")
    /// Sent and unacknowledged at once, at most (MQTT's receive maximum).
    private static let window = 64

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(settings: MQTTSettings, metrics: GatewayMetrics, vibration: Bool = false) throws(SetupError) {
        _ = MQTTPublisher.libraryReady
        self.settings = settings
        self.metrics = metrics
        board = settings.board.isEmpty ? ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "board" : settings.board
        guard let handle = mosquitto_new("acceld-gateway-\(board)", true, nil) else {
            throw SetupError(description: "the MQTT client could not be made (out of memory?)", exitCode: 71)
        }
        self.handle = handle
        self.vibration = vibration ? VibrationTopics(settings: settings, board: board) : nil
        var password: String?
        if !settings.passwordFile.isEmpty {
            guard let text = try? String(contentsOfFile: settings.passwordFile, encoding: .utf8) else {
                let missing = !FileManager.default.fileExists(atPath: settings.passwordFile)
                throw SetupError(description: "[gateway] mqtt-password-file \(settings.passwordFile) " +
                                 (missing ? "does not exist" : "cannot be read by this user: make it readable by acceld-gateway (chmod 0640, group acceld-gateway)"),
                                 exitCode: missing ? 66 : 77)
            }
            password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        if !settings.username.isEmpty || password != nil {
            mosquitto_username_pw_set(handle, settings.username.isEmpty ? nil : settings.username, password)
        }
        if !settings.tlsCAFile.isEmpty {
            let cert = settings.tlsCertFile.isEmpty ? nil : settings.tlsCertFile
            let key = settings.tlsKeyFile.isEmpty ? nil : settings.tlsKeyFile
            let result = mosquitto_tls_set(handle, settings.tlsCAFile, nil, cert, key, nil)
            guard result == MOSQ_ERR_SUCCESS.rawValue else {
                throw SetupError(description: "the MQTT TLS files could not be used ([gateway] mqtt-tls-*): \(String(cString: mosquitto_strerror(result)))", exitCode: 66)
            }
        }
        let offline = Array(#"{"class":"gateway","state":"offline"}"#.utf8)
        mosquitto_will_set(handle, topic("gateway"), Int32(offline.count), offline, 1, true)
        mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_reconnect_delay_set(handle, 1, 5, false)
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, object, code in MQTTPublisher.of(object).connected(code) }
        mosquitto_disconnect_callback_set(handle) { _, object, code in MQTTPublisher.of(object).disconnected(code) }
        mosquitto_publish_callback_set(handle) { _, object, id in MQTTPublisher.of(object).acknowledged(id) }
    }

    deinit { mosquitto_destroy(handle) }

    private static func of(_ object: UnsafeMutableRawPointer?) -> MQTTPublisher {
        Unmanaged<MQTTPublisher>.fromOpaque(object!).takeUnretainedValue()
    }

    /// Starts the library's network thread, which connects (now, or later
    /// when the broker cannot be reached yet) and reconnects.
    public func start() {
        let (host, port) = GatewaySettings.endpoint(settings.broker) ?? ("127.0.0.1", 1883)
        let result = mosquitto_connect_async(handle, host, Int32(port), 30)
        if result != MOSQ_ERR_SUCCESS.rawValue {
            logger.warning("MQTT broker \(settings.broker) not reachable yet (\(String(cString: mosquitto_strerror(result)))); trying again with back-off")
        }
        mosquitto_loop_start(handle)
    }

    /// Says goodbye (the retained state turns offline: a clean disconnect
    /// does not fire the will), waits up to a second for what is in flight
    /// to be acknowledged, then stops the thread.
    public func stop() {
        publish("gateway", Array(#"{"class":"gateway","state":"offline"}"#.utf8), retain: true)
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline, state.withLock({ $0.connected && $0.held > 0 }) {
            sender.sync {}
            usleep(10_000)
        }
        mosquitto_disconnect(handle)
        mosquitto_loop_stop(handle, false)
    }

    public func topic(_ name: String) -> String { "\(settings.prefix)/\(board)/\(name)" }

    /// Publishes what acceld said: events (orientation retained), device
    /// (retained), every n-th frame when asked, and whether acceld is
    /// reachable (retained). Called on the feed's thread only.
    public func route(_ updates: [DaemonFeed.Update]) {
        for update in updates {
            let outgoing = vibration?.route(update) ?? []
            if case .connected = update { discovery.withLock { $0 = outgoing } }
            for out in outgoing { publish(topic: out.topic, out.payload, retain: out.retain) }
            switch update {
            case .connected(let hello):
                publish("daemon", StreamHub.gatewayLine(connected: true, reason: nil), retain: true)
                publish("device", Array(Message.device(hello.device).json.utf8), retain: true)
            case .disconnected(let reason):
                publish("daemon", StreamHub.gatewayLine(connected: false, reason: reason), retain: true)
            case .message(let line, .event(let event)):
                publish(event.className, line, retain: event.className == "orientation")
            case .message(let line, .device):
                publish("device", line, retain: true)
            case .message(_, .watch(let reply)):
                if let rate = reply.rate, rate > 0 { frameStep = UInt64(max(1, (rate / max(settings.framesHz, 1e-9)).rounded())) }
            case .message(let line, .frame(let frame)):
                if settings.framesHz > 0 && frame.seq % frameStep == 0 { publish("frame", line) }
            case .message:
                break
            }
        }
    }

    /// Frames published are those whose seq is a multiple of this (the
    /// feed's frame rate over `mqtt-frames-hz`); set from acceld's watch
    /// reply, on the feed's thread.
    private var frameStep: UInt64 = 10

    /// Queues one message for `<prefix>/<board>/<name>` at QoS 1. When
    /// `[gateway] mqtt-queue` messages are already held, the oldest waiting
    /// one is dropped and counted.
    public func publish(_ name: String, _ payload: [UInt8], retain: Bool = false) {
        publish(topic: topic(name), payload, retain: retain)
    }

    /// Queues one message for a full topic (Home Assistant's discovery lies outside `<prefix>`).
    func publish(topic: String, _ payload: [UInt8], retain: Bool) {
        let (dropped, held) = state.withLock { state -> (Bool, Int) in
            var dropped = false
            if state.held >= settings.queue && !state.waiting.isEmpty {
                state.waiting.removeFirst()
                dropped = true
            }
            if state.held < settings.queue { state.waiting.append(Outgoing(topic: topic, payload: payload, retain: retain)) } else { dropped = true }
            return (dropped, state.held)
        }
        if dropped { metrics.mqttDropped.increment() }
        metrics.mqttQueue.set(to: Double(held))
        sender.async { self.send() }
    }

    /// Hands waiting messages to the library while connected, in order.
    private func send() {
        while true {
            let next: Outgoing? = state.withLock { state in
                guard state.connected, state.pending.count < MQTTPublisher.window, !state.waiting.isEmpty else { return nil }
                return state.waiting.removeFirst()
            }
            guard let next else { return }
            var id: Int32 = 0
            let result = next.payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle, &id, next.topic, Int32(bytes.count), bytes.baseAddress, 1, next.retain)
            }
            let sent = state.withLock { state -> Bool in
                guard result == MOSQ_ERR_SUCCESS.rawValue else {
                    // The connection went meanwhile: first in line again.
                    state.waiting.insert(next, at: 0)
                    return false
                }
                if state.earlyAcknowledgements.remove(id) == nil { state.pending.insert(id) }
                return true
            }
            guard sent else { return }
        }
    }

    private func connected(_ code: Int32) {
        guard code == 0 else {
            let first = state.withLock { state in
                defer { state.lastRefusal = code }
                return state.lastRefusal != code
            }
            // No credential is ever part of the message, only the broker's verdict.
            if first { logger.error("MQTT broker \(settings.broker) refused the connection: \(String(cString: mosquitto_connack_string(code)))") }
            return
        }
        let connections = state.withLock { state in
            state.connected = true
            state.lastRefusal = nil
            state.connections += 1
            return state.connections
        }
        metrics.mqttConnected.set(to: 1)
        metrics.mqttConnections.increment()
        logger.notice("MQTT: \(connections == 1 ? "connected to" : "reconnected to") \(settings.broker) as \(topic(""))*")
        publish("gateway", Array(#"{"class":"gateway","state":"online"}"#.utf8), retain: true)
        if connections > 1 {
            for out in discovery.withLock({ $0 }) { publish(topic: out.topic, out.payload, retain: out.retain) }
        }
        // Sent before the connection went and never acknowledged: the
        // library sends them again now; one it does not is counted dropped
        // after 10 s, so every message ends acknowledged or counted.
        let unacknowledged = state.withLock { $0.pending }
        if !unacknowledged.isEmpty {
            sender.asyncAfter(deadline: .now() + 10) {
                let lost = self.state.withLock { state in
                    let lost = state.pending.intersection(unacknowledged)
                    state.pending.subtract(lost)
                    return lost.count
                }
                if lost > 0 { self.metrics.mqttDropped.increment(by: Int64(lost)) }
                self.send()
            }
        }
    }

    private func disconnected(_ code: Int32) {
        let was = state.withLock { state in
            defer { state.connected = false }
            return state.connected
        }
        metrics.mqttConnected.set(to: 0)
        if was && code != 0 {
            logger.warning("MQTT: lost the broker \(settings.broker) (\(String(cString: mosquitto_strerror(code)))); messages wait, up to \(settings.queue)")
        }
    }

    private func acknowledged(_ id: Int32) {
        let held = state.withLock { state in
            if state.pending.remove(id) == nil { state.earlyAcknowledgements.insert(id) }
            return state.held
        }
        metrics.mqttPublished.increment()
        metrics.mqttQueue.set(to: Double(held))
        sender.async { self.send() }
    }
}
