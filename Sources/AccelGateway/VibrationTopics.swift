// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelProtocol

/// What the MQTT face publishes of acceld's vibration (`[gateway]
/// vibration`), worked out apart from the broker so that it can be tested:
/// - `<prefix>/<board>/vibration`: acceld's window without its spectra (the
///   figures, a few hundred bytes), at most every `mqtt-vibration-seconds`
///   of acceld's clock, retained (the last known figures; the entities'
///   availability says when acceld is away);
/// - `<prefix>/<board>/machine`: acceld's `machine` messages, the latest
///   retained;
/// - `<prefix>/<board>/machine-state`: the state alone (`off`, `idle`,
///   `running`), retained, from the transitions and from each window's own
///   state, so that it is right after acceld restarts too (acceld then
///   begins at `off` and says no transition for a machine that stays off);
/// - Home Assistant's discovery configs, retained, at each connection to
///   an acceld that has the streams.
/// Used on the feed's thread only.
final class VibrationTopics {
    struct Outgoing: Equatable {
        /// A full topic.
        let topic: String
        let payload: [UInt8]
        let retain: Bool
    }

    private let settings: MQTTSettings
    private let base: String
    private let discovery: HomeAssistantDiscovery?
    /// The time (acceld's clock) of the last window published, the state last published.
    private var lastWindow: Double?
    private var lastState: String?

    init(settings: MQTTSettings, board: String) {
        self.settings = settings
        base = "\(settings.prefix)/\(board)"
        discovery = settings.discoveryPrefix.isEmpty ? nil
            : HomeAssistantDiscovery(base: base, board: board, discoveryPrefix: settings.discoveryPrefix)
    }

    func route(_ update: DaemonFeed.Update) -> [Outgoing] {
        switch update {
        case .connected(let hello):
            lastWindow = nil
            lastState = nil
            guard hello.protocolVersion >= DaemonFeed.vibrationProtocol, let discovery else { return [] }
            return discovery.entities(hello: hello).map {
                Outgoing(topic: discovery.topic($0), payload: Array(JSONValue.object($0.config).jsonText.utf8), retain: true)
            }
        case .message(let line, .machine(let change)):
            return [Outgoing(topic: "\(base)/machine", payload: line, retain: true)] + state(change.state)
        case .message(_, .vibration(var window)):
            var out: [Outgoing] = []
            if lastWindow.map({ window.t - $0 >= settings.vibrationSeconds }) ?? true {
                lastWindow = window.t
                window.spectrum = nil
                window.envelopeSpectrum = nil
                out.append(Outgoing(topic: "\(base)/vibration", payload: Array(Message.vibration(window).json.utf8), retain: true))
            }
            return out + state(window.state)
        default:
            return []
        }
    }

    private func state(_ state: String) -> [Outgoing] {
        guard state != lastState else { return [] }
        lastState = state
        return [Outgoing(topic: "\(base)/machine-state", payload: Array(state.utf8), retain: true)]
    }
}
