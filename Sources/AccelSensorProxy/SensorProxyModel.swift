// SPDX-License-Identifier: Apache-2.0
import AccelMotion

/// A method of either interface, as the bus delivers it.
public enum MethodCall: Sendable, Equatable {
    case claim(Sensor)
    case release(Sensor)

    public init?(interface: String, member: String) {
        switch (interface, member) {
        case (ProxyState.interface, "ClaimAccelerometer"): self = .claim(.accelerometer)
        case (ProxyState.interface, "ReleaseAccelerometer"): self = .release(.accelerometer)
        case (ProxyState.interface, "ClaimLight"): self = .claim(.light)
        case (ProxyState.interface, "ReleaseLight"): self = .release(.light)
        case (ProxyState.interface, "ClaimProximity"): self = .claim(.proximity)
        case (ProxyState.interface, "ReleaseProximity"): self = .release(.proximity)
        case (ProxyState.compassInterface, "ClaimCompass"): self = .claim(.compass)
        case (ProxyState.compassInterface, "ReleaseCompass"): self = .release(.compass)
        default: return nil
        }
    }
}

/// What acceld's connection reports, in the order it happened.
public enum AcceldUpdate: Sendable, Equatable {
    /// Greeted, with the part and where it is, for the log.
    case connected(device: String)
    case orientation(DeviceOrientation)
    case disconnected(reason: String)
}

/// The service's whole logic, without the bus or the socket: calls,
/// peers leaving and acceld's updates in; what to signal, whether to
/// watch acceld's orientation, and what to log out.
public struct SensorProxyModel: Sendable {
    public struct Effects: Sendable, Equatable {
        /// For one PropertiesChanged, in this order.
        public var changed: [ChangingProperty] = []
        public var log: [String] = []
        public init(changed: [ChangingProperty] = [], log: [String] = []) {
            self.changed = changed
            self.log = log
        }
    }

    public private(set) var claims = Claims()
    public private(set) var state = ProxyState()

    public init() {}

    /// Whether acceld's orientation stream should be watched now.
    public var wantsOrientation: Bool { claims.wantsOrientation }

    /// One line for systemctl status (sd_notify STATUS=).
    public var status: String {
        let accel = state.hasAccelerometer ? "acceld connected" : "acceld not reachable"
        let n = claims.count(.accelerometer)
        let watching = n > 0 ? "orientation \(state.orientation.rawValue), watched for \(n) claim\(n == 1 ? "" : "s")" : "orientation not watched (no claims)"
        return "\(accel); \(watching)"
    }

    /// A method call from `sender`; nil for a member neither interface has
    /// (sd-bus answers those itself, so that is only a safeguard).
    public mutating func call(_ call: MethodCall, from sender: String) -> Effects {
        let before = wantsOrientation
        switch call {
        case .claim(let sensor): claims.claim(sensor, by: sender)
        case .release(let sensor): claims.release(sensor, by: sender)
        }
        return Effects(log: watchChange(from: before, why: "\(call.description) by \(sender)"))
    }

    /// A peer left the bus without releasing.
    public mutating func vanished(_ peer: String) -> Effects {
        let before = wantsOrientation
        let emptied = claims.vanished(peer)
        guard !emptied.isEmpty || before != wantsOrientation else { return Effects() }
        return Effects(log: watchChange(from: before, why: "\(peer) left the bus"))
    }

    public mutating func acceld(_ update: AcceldUpdate) -> Effects {
        switch update {
        case .connected(let device):
            return Effects(changed: state.connected(), log: ["acceld connected (\(device)): HasAccelerometer true"])
        case .orientation(let device):
            let changed = state.reported(device)
            return Effects(changed: changed, log: changed.isEmpty ? [] : ["orientation \(state.orientation.rawValue) (acceld: \(device.rawValue))"])
        case .disconnected(let reason):
            let changed = state.disconnected()
            return Effects(changed: changed, log: changed.isEmpty ? [] : ["acceld lost (\(reason)): HasAccelerometer false; reconnecting"])
        }
    }

    private func watchChange(from before: Bool, why: String) -> [String] {
        switch (before, wantsOrientation) {
        case (false, true): ["orientation watched on acceld's socket: \(why)"]
        case (true, false): ["orientation no longer watched, no claims left: \(why)"]
        default: []
        }
    }
}

extension MethodCall: CustomStringConvertible {
    public var description: String {
        switch self {
        case .claim(let sensor): "claim of the \(sensor.rawValue)"
        case .release(let sensor): "release of the \(sensor.rawValue)"
        }
    }
}
