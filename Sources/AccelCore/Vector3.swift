// SPDX-License-Identifier: Apache-2.0
/// A 3-axis quantity in the board's frame: specific force in g, or counts.
public struct Vector3: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(0, 0, 0)

    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
    /// The largest |component|.
    public var maxComponent: Double { Swift.max(abs(x), abs(y), abs(z)) }

    public subscript(axis: Axis) -> Double {
        get {
            switch axis {
            case .x: x
            case .y: y
            case .z: z
            }
        }
        set {
            switch axis {
            case .x: x = newValue
            case .y: y = newValue
            case .z: z = newValue
            }
        }
    }

    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    public static func * (a: Vector3, k: Double) -> Vector3 { Vector3(a.x * k, a.y * k, a.z * k) }
    public static func * (k: Double, a: Vector3) -> Vector3 { a * k }
    public static func / (a: Vector3, k: Double) -> Vector3 { Vector3(a.x / k, a.y / k, a.z / k) }
    public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    public static func += (a: inout Vector3, b: Vector3) { a = a + b }

    /// Component-wise product (per-axis scale factors).
    public func scaled(by k: Vector3) -> Vector3 { Vector3(x * k.x, y * k.y, z * k.z) }

    /// Linear interpolation: `self` at f = 0, `other` at f = 1.
    public func lerp(to other: Vector3, _ f: Double) -> Vector3 { self + (other - self) * f }

    public var normalized: Vector3 {
        let m = magnitude
        return m > 0 ? self / m : self
    }
}

public enum Axis: String, Sendable, CaseIterable, Codable {
    case x, y, z
}
