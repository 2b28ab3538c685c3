// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol
import Foundation

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
/// No gyroscope: `rotationRate` is null. Orientation: `beta` and `gamma`
/// are the pitch and roll of the gravity estimate in the specification's
/// Z-X'-Y'' convention; `alpha` (the heading) is null, as on a device
/// without a compass.
public enum BrowserMotion {
    /// Standard gravity, m/s² per g.
    public static let standardGravity = 9.80665

    /// One message carrying both events: `{"motion":{…},"orientation":{…}}`.
    /// `interval` is the time between frames, ms.
    public static func message(for frame: FrameMessage, interval: Double) -> String {
        var json = #"{"motion":{"accelerationIncludingGravity":"#
        json += vector(frame.acceleration)
        json += #","acceleration":"# + vector(frame.user)
        json += #","rotationRate":null,"interval":"# + fixed(interval, 3) + "}"
        if let gravity = frame.gravity {
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

    private static func vector(_ v: Vector3?) -> String {
        guard let v else { return "null" }
        let g = standardGravity
        return #"{"x":"# + fixed(v.x * g, 4) + #","y":"# + fixed(v.y * g, 4) + #","z":"# + fixed(v.z * g, 4) + "}"
    }
}
