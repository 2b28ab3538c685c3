// SPDX-License-Identifier: Apache-2.0
import AccelMotion

/// A property's value as D-Bus carries it.
public enum PropertyValue: Sendable, Equatable {
    case boolean(Bool)
    case number(Double)
    case string(String)
}

/// The two properties that change, as PropertiesChanged names them.
public enum ChangingProperty: String, Sendable, CaseIterable {
    case hasAccelerometer = "HasAccelerometer"
    case orientation = "AccelerometerOrientation"
}

/// What the D-Bus objects show. Only the accelerometer is live; the light,
/// proximity and compass sensors exist as iio-sensor-proxy's interface
/// has them, and report themselves absent: monitor-sensor and the
/// desktops read every Has* property and fail on one that is missing.
public struct ProxyState: Sendable, Equatable {
    public static let interface = "net.hadess.SensorProxy"
    public static let compassInterface = "net.hadess.SensorProxy.Compass"

    /// acceld answers on its socket.
    public private(set) var hasAccelerometer = false
    public private(set) var orientation = SensorProxyOrientation.undefined

    public init() {}

    /// acceld greeted: the accelerometer is there.
    public mutating func connected() -> [ChangingProperty] {
        guard !hasAccelerometer else { return [] }
        hasAccelerometer = true
        return [.hasAccelerometer]
    }

    /// acceld went away: no accelerometer, and no orientation behind the
    /// value either (the next connection reports the current one).
    public mutating func disconnected() -> [ChangingProperty] {
        var changed: [ChangingProperty] = []
        if hasAccelerometer { hasAccelerometer = false; changed.append(.hasAccelerometer) }
        if orientation != .undefined { orientation = .undefined; changed.append(.orientation) }
        return changed
    }

    /// acceld's orientation (an event, or the watch reply's current one):
    /// an upright one replaces the value, flat or unknown keep it.
    public mutating func reported(_ device: DeviceOrientation) -> [ChangingProperty] {
        guard let upright = SensorProxyOrientation(upright: device), upright != orientation else { return [] }
        orientation = upright
        return [.orientation]
    }

    /// A property's value, or nil for one the interface does not have.
    public func value(interface: String, property: String) -> PropertyValue? {
        switch (interface, property) {
        case (Self.interface, "HasAccelerometer"): .boolean(hasAccelerometer)
        case (Self.interface, "AccelerometerOrientation"): .string(orientation.rawValue)
        case (Self.interface, "HasAmbientLight"): .boolean(false)
        case (Self.interface, "LightLevelUnit"): .string("lux")
        case (Self.interface, "LightLevel"): .number(0)
        case (Self.interface, "HasProximity"): .boolean(false)
        case (Self.interface, "ProximityNear"): .boolean(false)
        case (Self.compassInterface, "HasCompass"): .boolean(false)
        // iio-sensor-proxy's "unknown" heading.
        case (Self.compassInterface, "CompassHeading"): .number(-1)
        default: nil
        }
    }
}
