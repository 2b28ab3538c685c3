// SPDX-License-Identifier: Apache-2.0
import AccelCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tilt from gravity alone: pitch and roll, with yaw fixed at 0 (there is no
/// gyroscope or magnetometer). The board's attitude is R = Rx(pitch)·Ry(roll),
/// mapping board axes into a world frame whose Z points up; so at rest the
/// board feels f = Rᵀ·(0, 0, 1 g) = (−sin r·cos p, sin p, cos r·cos p).
/// Pitch is positive when the +Y edge rises; roll is positive when the +X
/// edge goes down. Angles are radians here; the wire uses degrees.
public struct Attitude: Sendable, Equatable {
    public var pitch: Double
    public var roll: Double

    public init(pitch: Double, roll: Double) {
        self.pitch = pitch
        self.roll = roll
    }

    /// The attitude that makes the board feel `gravity` (any length).
    public init(gravity f: Vector3) {
        pitch = atan2(f.y, (f.x * f.x + f.z * f.z).squareRoot())
        roll = atan2(-f.x, f.z)
    }

    public static let level = Attitude(pitch: 0, roll: 0)

    /// Unit quaternion (w, x, y, z) of Rx(pitch)·Ry(roll).
    public var quaternion: (w: Double, x: Double, y: Double, z: Double) {
        let cp = cos(pitch / 2), sp = sin(pitch / 2), cr = cos(roll / 2), sr = sin(roll / 2)
        return (cp * cr, sp * cr, cp * sr, sp * sr)
    }

    /// Rotation matrix rows of Rx(pitch)·Ry(roll).
    public var rotationMatrix: [Vector3] {
        let cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll)
        return [Vector3(cr, 0, sr), Vector3(sp * sr, cp, -sp * cr), Vector3(-cp * sr, sp, cp * cr)]
    }

    /// This attitude seen from `reference` (Core Motion's
    /// multiply(byInverseOf:)): Q = R_refᵀ·R, reported as the pitch and roll
    /// that would make the board feel Q's "up". Level at the reference.
    public func relative(to reference: Attitude) -> Attitude {
        let r = rotationMatrix, ref = reference.rotationMatrix
        // Third row of Q: (column 2 of R_ref)ᵀ · R.
        let c = Vector3(ref[0].z, ref[1].z, ref[2].z)
        let up = Vector3(
            c.x * r[0].x + c.y * r[1].x + c.z * r[2].x,
            c.x * r[0].y + c.y * r[1].y + c.z * r[2].y,
            c.x * r[0].z + c.y * r[1].z + c.z * r[2].z)
        return Attitude(gravity: up)
    }
}
