// SPDX-License-Identifier: Apache-2.0

/// The sensors a D-Bus peer can claim: iio-sensor-proxy's four.
public enum Sensor: String, Sendable, CaseIterable {
    case accelerometer, light, proximity, compass
}

/// Who holds a claim on what, by unique bus name (":1.42"). A peer claims
/// as often as it likes and holds one claim; a release or its leaving the
/// bus ends it. Orientation is watched on acceld's socket only while
/// someone holds the accelerometer.
public struct Claims: Sendable, Equatable {
    private var holders: [Sensor: Set<String>] = [:]

    public init() {}

    /// True when this was the sensor's first claim.
    @discardableResult
    public mutating func claim(_ sensor: Sensor, by peer: String) -> Bool {
        let first = holders[sensor, default: []].isEmpty
        holders[sensor, default: []].insert(peer)
        return first
    }

    /// True when this released the sensor's last claim. Releasing what
    /// was never claimed changes nothing (iio-sensor-proxy ignores it too).
    @discardableResult
    public mutating func release(_ sensor: Sensor, by peer: String) -> Bool {
        guard holders[sensor]?.remove(peer) != nil else { return false }
        return holders[sensor]!.isEmpty
    }

    /// A peer left the bus: every claim it held goes. Returns the sensors
    /// whose last claim that was.
    public mutating func vanished(_ peer: String) -> Set<Sensor> {
        var emptied: Set<Sensor> = []
        for sensor in Sensor.allCases where release(sensor, by: peer) { emptied.insert(sensor) }
        return emptied
    }

    public func count(_ sensor: Sensor) -> Int { holders[sensor]?.count ?? 0 }
    public func holds(_ sensor: Sensor, _ peer: String) -> Bool { holders[sensor]?.contains(peer) ?? false }

    /// Whether acceld's orientation stream is wanted.
    public var wantsOrientation: Bool { count(.accelerometer) > 0 }
}
