// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

extension CalibrateCommand {
    /// How long the gyroscope is averaged at rest: a second at 104 Hz puts
    /// the mean within a few thousandths of a dps of the offset.
    static let gyroscopeSeconds = 1.0

    /// On a six-axis part: the gyroscope's mean rate at rest, in dps in the
    /// chip's axes, stored for the fusion to start from. Refused when the
    /// rates spread beyond the noise at rest: a mean taken while the board
    /// turned is a turn, not an offset, and would tilt every yaw after it.
    func measureGyroscope(_ driver: Accelerometer) -> Vector3? {
        guard driver.profile.gyroscope != nil else { return nil }
        print("keep the board still: measuring the gyroscope's offset at rest (\(Int(Self.gyroscopeSeconds)) s)")
        guard let rest = guarded({ try driver.gyroscopeRest(seconds: Self.gyroscopeSeconds) }) else { return nil }
        if rest.moved {
            fail(ToolError.boardMoved("the board moved while the gyroscope's offset was measured: its rates spread up to \(fixed(max(rest.spread.x, rest.spread.y, rest.spread.z), 2)) dps, at rest they stay under \(fixed(rest.stillSpread, 2)); put it down, keep it still, and run calibrate again"))
        }
        print("gyroscope offset (dps): x \(fixed(rest.mean.x, 3))  y \(fixed(rest.mean.y, 3))  z \(fixed(rest.mean.z, 3))")
        if !rest.within { print("warning: \(rest.verdict): stored all the same, but the part may be damaged or stressed") }
        return rest.mean
    }
}
