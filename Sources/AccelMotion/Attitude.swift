// SPDX-License-Identifier: Apache-2.0
import AccelCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The board's attitude as Core Motion gives it: R = Rz(yaw)·Rx(pitch)·Ry(roll),
/// mapping board axes into a world frame whose Z points up; so at rest the
/// board feels f = Rᵀ·(0, 0, 1 g) = (−sin r·cos p, sin p, cos r·cos p), and
/// yaw turns about the vertical without changing it. From gravity alone yaw
/// is 0; with a gyroscope it is the fused heading, relative to the first
/// sample's. Pitch is positive when the +Y edge rises; roll is positive
/// when the +X edge goes down; yaw is positive counter-clockwise seen from
/// above. Angles are radians here; the wire uses degrees.
public struct Attitude: Sendable, Equatable {
    public var pitch: Double
    public var roll: Double
    public var yaw: Double

    public init(pitch: Double, roll: Double, yaw: Double = 0) {
        self.pitch = pitch
        self.roll = roll
        self.yaw = yaw
    }

    /// The attitude that makes the board feel `gravity` (any length).
    public init(gravity f: Vector3) {
        pitch = atan2(f.y, (f.x * f.x + f.z * f.z).squareRoot())
        roll = atan2(-f.x, f.z)
        yaw = 0
    }

    /// The Euler angles of a fused attitude (board axes into the reference).
    public init(quaternion q: Quaternion) {
        self.init(gravity: q.up)
        // R[0][1] = −sin(yaw)·cos(pitch), R[1][1] = cos(yaw)·cos(pitch).
        yaw = atan2(-2 * (q.x * q.y - q.w * q.z), q.w * q.w - q.x * q.x + q.y * q.y - q.z * q.z)
    }

    public static let level = Attitude(pitch: 0, roll: 0)

    /// Unit quaternion (w, x, y, z) of Rz(yaw)·Rx(pitch)·Ry(roll).
    public var quaternion: (w: Double, x: Double, y: Double, z: Double) {
        let q = Quaternion(axis: Vector3(0, 0, 1), angle: yaw) * Quaternion(axis: Vector3(1, 0, 0), angle: pitch)
            * Quaternion(axis: Vector3(0, 1, 0), angle: roll)
        return (q.w, q.x, q.y, q.z)
    }

    /// Rotation matrix rows of Rz(yaw)·Rx(pitch)·Ry(roll).
    public var rotationMatrix: [Vector3] {
        let cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll), cy = cos(yaw), sy = sin(yaw)
        let r0 = Vector3(cr, 0, sr), r1 = Vector3(sp * sr, cp, -sp * cr)
        return [r0 * cy - r1 * sy, r0 * sy + r1 * cy, Vector3(-cp * sr, sp, cp * cr)]
    }

    /// This attitude seen from `reference` (Core Motion's
    /// multiply(byInverseOf:)): Q = R_refᵀ·R, reported as the pitch and roll
    /// that would make the board feel Q's "up", and Q's yaw where either
    /// has one (a gyroscope's). Level, and heading 0, at the reference.
    public func relative(to reference: Attitude) -> Attitude {
        let r = rotationMatrix, ref = reference.rotationMatrix
        // Q[i][j] = column i of R_ref · column j of R.
        func q(_ i: KeyPath<Vector3, Double>, _ j: KeyPath<Vector3, Double>) -> Double {
            ref[0][keyPath: i] * r[0][keyPath: j] + ref[1][keyPath: i] * r[1][keyPath: j] + ref[2][keyPath: i] * r[2][keyPath: j]
        }
        var relative = Attitude(gravity: Vector3(q(\.z, \.x), q(\.z, \.y), q(\.z, \.z)))
        if yaw != 0 || reference.yaw != 0 { relative.yaw = atan2(-q(\.x, \.y), q(\.y, \.y)) }
        return relative
    }
}
