// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelParts
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
    /// The rate's and the acceleration's variance per axis, (rad/s)² and
    /// (m/s²)², where the datasheet gives a noise density; nil: "unknown"
    /// (zeros).
    public var angularVelocityVariance: Double?
    public var linearAccelerationVariance: Double?

    public init(frameID: String = "imu_link", hasGyroscope: Bool, angularVelocityVariance: Double? = nil,
                linearAccelerationVariance: Double? = nil) {
        self.frameID = frameID
        self.hasGyroscope = hasGyroscope
        self.angularVelocityVariance = angularVelocityVariance
        self.linearAccelerationVariance = linearAccelerationVariance
    }

    /// For the device acceld serves: the variances from the datasheet's
    /// noise densities (the table of parts) over the output's bandwidth,
    /// taken as half the rate (the digital filter's cut-off sits near it in
    /// the parts' default setting).
    public init(frameID: String, device: DeviceInfo) {
        let profile = ChipProfile.named(device.chip)
        let bandwidth = Double(device.rate) / 2
        let rate = profile?.gyroscope.map { ImuConversion.variance(noiseDensity: $0.noiseDensity * .pi / 180, bandwidth: bandwidth) }
        let acceleration = profile?.accelerometerNoiseDensity.map {
            ImuConversion.variance(noiseDensity: $0 * ImuConversion.standardGravity, bandwidth: bandwidth)
        }
        self.init(frameID: frameID, hasGyroscope: device.gyroscope != nil, angularVelocityVariance: device.gyroscope != nil ? rate : nil,
                  linearAccelerationVariance: acceleration)
    }

    /// σ² of white noise of `noiseDensity` per √Hz over `bandwidth` Hz.
    public static func variance(noiseDensity: Double, bandwidth: Double) -> Double {
        noiseDensity * noiseDensity * bandwidth
    }

    private static func diagonal(_ variance: Double?) -> [Double] {
        guard let variance else { return ImuMessage.unknownCovariance }
        return [variance, 0, 0, 0, variance, 0, 0, 0, variance]
    }

    /// `imu/data_raw`: acceleration and rate, no orientation.
    public func raw(_ frame: FrameMessage, stamp: ROS2Time) -> ImuMessage? {
        guard let acceleration = frame.acceleration else { return nil }
        return ImuMessage(
            header: ROS2Header(stamp: stamp, frameID: frameID),
            orientation: nil, orientationCovariance: ImuMessage.notEstimated,
            angularVelocity: hasGyroscope ? frame.rotationRate ?? Vector3(0, 0, 0) : Vector3(0, 0, 0),
            angularVelocityCovariance: hasGyroscope ? ImuConversion.diagonal(angularVelocityVariance) : ImuMessage.notEstimated,
            linearAcceleration: acceleration * ImuConversion.standardGravity,
            linearAccelerationCovariance: ImuConversion.diagonal(linearAccelerationVariance))
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
