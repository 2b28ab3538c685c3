// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelProtocol

/// acceld's frames as REP-145 IMU messages. The frames are already in the
/// board's axes after the mount matrix; mounted as REP-103 asks (x forward,
/// y left, z up), those are the `imu_link` axes. Units become SI: g to
/// m/s² by standard gravity; rates are already rad/s.
public struct ImuConversion: Sendable {
    /// ISO 80000-3's standard acceleration of gravity, m/s² per g.
    public static let standardGravity = 9.80665

    public var frameID: String
    /// Whether the part has a gyroscope: without one, `angular_velocity`
    /// is marked "not provided" (covariance element 0 = −1).
    public var hasGyroscope: Bool

    public init(frameID: String = "imu_link", hasGyroscope: Bool) {
        self.frameID = frameID
        self.hasGyroscope = hasGyroscope
    }

    /// `imu/data_raw`: acceleration and rate, no orientation.
    public func raw(_ frame: FrameMessage, stamp: ROS2Time) -> ImuMessage? {
        guard let acceleration = frame.acceleration else { return nil }
        return ImuMessage(
            header: ROS2Header(stamp: stamp, frameID: frameID),
            orientation: nil, orientationCovariance: ImuMessage.notEstimated,
            angularVelocity: hasGyroscope ? frame.rotationRate ?? Vector3(0, 0, 0) : Vector3(0, 0, 0),
            angularVelocityCovariance: hasGyroscope ? ImuMessage.unknownCovariance : ImuMessage.notEstimated,
            linearAcceleration: acceleration * ImuConversion.standardGravity,
            linearAccelerationCovariance: ImuMessage.unknownCovariance)
    }

    /// `imu/data`: the same with the fused attitude, on parts with a
    /// gyroscope (nil without one, or before the frame carries it).
    public func fused(_ frame: FrameMessage, stamp: ROS2Time) -> ImuMessage? {
        guard hasGyroscope, let quaternion = frame.quaternion, var message = raw(frame, stamp: stamp) else { return nil }
        message.orientation = quaternion
        message.orientationCovariance = ImuMessage.unknownCovariance
        return message
    }
}
