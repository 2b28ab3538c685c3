// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
#if canImport(FoundationEssentials)
import FoundationEssentials  // not all of Foundation: ICU's data would triple the static binary
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A frame in the shape of the W3C DeviceMotionEvent and
/// DeviceOrientationEvent, so that a page written for a phone runs on the
/// board (docs/GATEWAY.md has the mapping).
///
/// Axes: the board's (after the mount matrix), taken as the device's: x to
/// the right of the screen, y to its top, z out of it. Signs: acceld's
/// frames are specific force, +1 g on the axis pointing up at rest, which
/// is the sign the specification gives `accelerationIncludingGravity`
/// (face up on a table: z = +9.81). `acceleration` is the user
/// acceleration (specific force less gravity), in the same axes and signs.
/// Orientation: the specification's Z-X'-Y'' angles. Without a gyroscope
/// `beta` and `gamma` come from the gravity estimate, and `rotationRate`
/// and `alpha` are null, as on a device with neither gyroscope nor
/// compass. With one (the frame has `rotationRate` and `quaternion`) all
/// three angles come from the fused attitude, `alpha` being its heading
/// relative to the start (`absolute` stays false: no magnetometer).
///
/// Definitions: W3C DeviceOrientation Event Specification
/// (https://www.w3.org/TR/orientation-event/): `rotationRate.alpha`,
/// `.beta`, `.gamma` are deg/s about the device's Z, X and Y axes; the
/// event's `alpha` in [0, 360), `beta` in [-180, 180), `gamma` in
/// [-90, 90) are the intrinsic Z-X'-Y'' angles of R = Rz(α)·Rx(β)·Ry(γ),
/// the same composition as Core Motion's yaw, pitch and roll (`Attitude`).
public enum BrowserMotion {
    /// Standard gravity, m/s² per g.
    public static let standardGravity = 9.80665

    /// One message carrying both events: `{"motion":{…},"orientation":{…}}`.
    /// `interval` is the time between frames, ms.
    public static func message(for frame: FrameMessage, interval: Double) -> String {
        var json = #"{"motion":{"accelerationIncludingGravity":"#
        json += vector(frame.acceleration)
        json += #","acceleration":"# + vector(frame.user)
        json += #","rotationRate":"# + rate(frame.rotationRate) + #","interval":"# + fixed(interval, 3) + "}"
        if let q = frame.quaternion {
            let (alpha, beta, gamma) = angles(quaternion: q)
            json += #","orientation":{"alpha":"# + fixed(alpha, 2) + #","beta":"# + fixed(beta, 2) + #","gamma":"# + fixed(gamma, 2) + #","absolute":false}"#
        } else if let gravity = frame.gravity {
            let (beta, gamma) = angles(gravity: gravity)
            json += #","orientation":{"alpha":null,"beta":"# + fixed(beta, 2) + #","gamma":"# + fixed(gamma, 2) + #","absolute":false}"#
        }
        return json + "}"
    }

    /// W3C beta in [-180, 180) and gamma in [-90, 90), degrees, from a
    /// specific-force gravity vector f: the device's attitude is
    /// R = Rz(alpha)·Rx(beta)·Ry(gamma), so f = Rᵀ·(0, 0, 1) =
    /// (−sin γ·cos β, sin β, cos γ·cos β). With cos γ ≥ 0, cos β has the sign
    /// of f.z, |cos β| = √(f.x² + f.z²).
    public static func angles(gravity f: Vector3) -> (beta: Double, gamma: Double) {
        let sign = f.z < 0 ? -1.0 : 1.0
        let beta = atan2(f.y, sign * (f.x * f.x + f.z * f.z).squareRoot())
        let gamma = atan2(-f.x * sign, f.z * sign)
        var betaDegrees = beta * 180 / .pi, gammaDegrees = gamma * 180 / .pi
        if betaDegrees >= 180 { betaDegrees -= 360 }
        if gammaDegrees >= 90 { gammaDegrees -= 180 }
        return (betaDegrees, gammaDegrees)
    }

    /// The specification's angles of a fused attitude (board axes into a
    /// Z-up frame). Its third row is the board's "up", so beta and gamma
    /// are `angles(gravity:)` of it; R[0][1] = −sin α·cos β and
    /// R[1][1] = cos α·cos β give alpha, once cos β's sign is taken out.
    /// With the face up that is Core Motion's yaw; face down (|beta| > 90)
    /// the yaw + 180°: the specification's ranges name the same attitude
    /// with beta beyond ±90 and the heading turned half a turn.
    public static func angles(quaternion q: Quaternion) -> (alpha: Double, beta: Double, gamma: Double) {
        let up = q.up
        let (beta, gamma) = angles(gravity: up)
        let sign = up.z < 0 ? -1.0 : 1.0
        let r01 = 2 * (q.x * q.y - q.w * q.z), r11 = q.w * q.w - q.x * q.x + q.y * q.y - q.z * q.z
        // Rounded to the wire's 0.01° first, so that 359.999 is sent as 0, not 360.
        var alpha = (atan2(-r01 * sign, r11 * sign) * 180 / .pi * 100).rounded() / 100
        if alpha < 0 { alpha += 360 }
        if alpha >= 360 { alpha -= 360 }
        return (alpha, beta, gamma)
    }

    /// rad/s about the board's x, y, z to the specification's deg/s:
    /// alpha is about Z, beta about X, gamma about Y.
    public static func rotationRate(_ w: Vector3) -> (alpha: Double, beta: Double, gamma: Double) {
        (w.z * 180 / .pi, w.x * 180 / .pi, w.y * 180 / .pi)
    }

    private static func rate(_ w: Vector3?) -> String {
        guard let w else { return "null" }
        let r = rotationRate(w)
        return #"{"alpha":"# + fixed(r.alpha, 3) + #","beta":"# + fixed(r.beta, 3) + #","gamma":"# + fixed(r.gamma, 3) + "}"
    }

    private static func vector(_ v: Vector3?) -> String {
        guard let v else { return "null" }
        let g = standardGravity
        return #"{"x":"# + fixed(v.x * g, 4) + #","y":"# + fixed(v.y * g, 4) + #","z":"# + fixed(v.z * g, 4) + "}"
    }
}
