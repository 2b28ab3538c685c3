// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A unit quaternion (w, x, y, z) for a rotation: here always the board's
/// attitude, turning vectors in the board's axes into the reference frame
/// whose Z points up (Core Motion's `xArbitraryZVertical`).
public struct Quaternion: Sendable, Equatable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation by `angle` radians about `axis` (any length but zero).
    public init(axis: Vector3, angle: Double) {
        let u = axis.normalized, s = sin(angle / 2)
        self.init(w: cos(angle / 2), x: u.x * s, y: u.y * s, z: u.z * s)
    }

    /// The shortest rotation that turns direction `from` into direction `to`.
    public init(from: Vector3, to: Vector3) {
        let a = from.normalized, b = to.normalized
        let axis = a.cross(b), d = a.dot(b)
        if axis.magnitude < 1e-12 {
            // Parallel or opposite: no turn, or half a turn about any perpendicular.
            let perpendicular = abs(a.x) < 0.9 ? a.cross(Vector3(1, 0, 0)) : a.cross(Vector3(0, 1, 0))
            self = d > 0 ? .identity : Quaternion(axis: perpendicular, angle: .pi)
        } else {
            self.init(axis: axis, angle: atan2(axis.magnitude, d))
        }
    }

    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    public var normalized: Quaternion {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        return n > 0 ? Quaternion(w: w / n, x: x / n, y: y / n, z: z / n) : .identity
    }

    /// `v` (board axes) in the reference frame.
    public func rotate(_ v: Vector3) -> Vector3 {
        let p = self * Quaternion(w: 0, x: v.x, y: v.y, z: v.z) * conjugate
        return Vector3(p.x, p.y, p.z)
    }

    /// The reference frame's up (0, 0, 1) in the board's axes: the third row
    /// of the rotation matrix. At rest the accelerometer reads this, in g.
    public var up: Vector3 {
        Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z)
    }

    /// The attitude after turning at `rate` (rad/s, board axes) for `dt`
    /// seconds: the exact rotation for a rate that is constant over `dt`.
    public func integrated(_ rate: Vector3, dt: Double) -> Quaternion {
        let angle = rate.magnitude * dt
        guard angle > 0 else { return self }
        return (self * Quaternion(axis: rate, angle: angle)).normalized
    }
}

extension Vector3 {
    public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
}
