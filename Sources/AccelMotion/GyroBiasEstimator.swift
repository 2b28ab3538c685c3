// SPDX-License-Identifier: Apache-2.0
import AccelCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Learns the gyroscope's zero-rate offset while the board lies still. The
/// accelerometer cannot see a bias about the vertical (yaw), and a
/// MEMS gyroscope's offset (the LSM6DSO's datasheet: ±1 dps typical, so 60°
/// a minute) moves with temperature; so acceld averages the gyroscope
/// whenever both sensors are steady, as Core Motion does at rest.
///
/// "Still" means: each rate within `stillRate` of its recent mean, the
/// acceleration within `stillAcceleration` of its recent mean, and |a|
/// near 1 g, unbroken for `stillSeconds`. A hand's tremor or a slow turn
/// breaks it. A turn at a constant rate about the vertical alone would not,
/// and would be learned: a turntable needs the offset from a calibration
/// (`accelctl calibrate` measures it at rest), where the estimate starts.
public struct GyroBiasEstimator: Sendable {
    public var settings: FusionSettings
    /// The current estimate, rad/s (board axes).
    public private(set) var bias: Vector3
    /// Whether the last sample counted as still (after `stillSeconds`).
    public private(set) var isStill = false
    private var meanRate = Vector3.zero
    private var meanAcceleration = Vector3.zero
    private var stillSince: Double?
    private var lastT: Double?

    /// `bias`: the calibration's offset measured at rest, if any.
    public init(settings: FusionSettings, bias: Vector3 = .zero) {
        self.settings = settings
        self.bias = bias
    }

    /// Feeds one raw rate (rad/s) and specific force (g); returns the bias.
    public mutating func process(rate: Vector3, acceleration a: Vector3, t: Double) -> Vector3 {
        guard let last = lastT else {
            lastT = t
            meanRate = rate
            meanAcceleration = a
            return bias
        }
        let dt = max(t - last, 0)
        lastT = t
        // Recent means over about a quarter of a second.
        let follow = 1 - exp(-dt / 0.25)
        meanRate += (rate - meanRate) * follow
        meanAcceleration += (a - meanAcceleration) * follow
        let steady = (rate - meanRate).maxComponent < settings.stillRate
            && (a - meanAcceleration).magnitude < settings.stillAcceleration
            && abs(a.magnitude - 1) < settings.accelerationBand
        guard steady else {
            stillSince = nil
            isStill = false
            return bias
        }
        let since = stillSince ?? t
        stillSince = since
        isStill = t - since >= settings.stillSeconds
        if isStill {
            bias += (rate - bias) * (1 - exp(-dt / settings.biasTimeConstant))
        }
        return bias
    }
}

extension GyroBiasEstimator {
    /// Mahony's integral term: the fusion moves the estimate by what the
    /// accelerometer's pull says is left over (rad/s).
    mutating func nudge(by delta: Vector3) { bias += delta }
}
