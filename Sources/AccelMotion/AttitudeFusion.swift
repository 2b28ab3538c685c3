// SPDX-License-Identifier: Apache-2.0
import AccelCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Gyroscope and accelerometer fused into an attitude: Mahony's nonlinear
/// complementary filter on SO(3) (Mahony, Hamel and Pflimlin, IEEE TAC
/// 2008), as a quaternion. The gyroscope turns the attitude; the
/// accelerometer pulls the estimated "up" toward the measured one, and only
/// while it measures gravity:
///
/// - the pull is `restGain` while the board barely turns and `gain` while
///   it turns (a hand's strokes accelerate it: trust the gyroscope then);
/// - it fades to nothing as |a| leaves 1 g by `accelerationBand`, and stays
///   off for `rejectionHoldSeconds` after it did (an impact rings);
/// - the gyroscope's offset is learned at rest (`GyroBiasEstimator`), and
///   in motion by Mahony's integral term (`biasGain`), about the
///   horizontal axes only: the accelerometer sees no turn about the vertical;
/// - a saturated gyroscope has lied about the turn: the filter says so
///   (`isRecovering`) and pulls hard (`recoveryGain`) until the board has
///   been calm for `recoverySeconds`.
///
/// The reference frame is Core Motion's `xArbitraryZVertical`: Z up, X
/// wherever the board's X pointed horizontally at the first sample. Yaw
/// has nothing to hold it but the gyroscope and drifts with the residual
/// bias (docs/ALGORITHMS.md has the figures).
public struct AttitudeFusion: Sendable {
    public var settings: FusionSettings {
        didSet { biasEstimator.settings = settings }
    }
    /// The gyroscope's full scale, rad/s: a rate at 99 % of it is saturated.
    public var range: Double
    public private(set) var attitude = Quaternion.identity
    public private(set) var isRecovering = false
    private var biasEstimator: GyroBiasEstimator
    private var lastT: Double?
    private var lastRate = Vector3.zero
    private var rejectedAt = -Double.infinity
    private var calmSince: Double?

    /// `bias`: where the gyroscope's offset estimate starts (rad/s, board
    /// axes): the calibration's, else zero.
    public init(settings: FusionSettings = FusionSettings(), range: Double = .infinity, bias: Vector3 = .zero) {
        self.settings = settings
        self.range = range
        biasEstimator = GyroBiasEstimator(settings: settings, bias: bias)
    }

    public struct Output: Sendable, Equatable {
        /// Attitude: board axes into the reference frame (Z up).
        public var attitude: Quaternion
        /// The reference's up in board axes, 1 g: Core Motion's gravity, sign flipped.
        public var gravity: Vector3
        /// The gyroscope's rate with its bias removed, rad/s.
        public var rotationRate: Vector3
        /// The gyroscope saturated, and the attitude is being recovered.
        public var isRecovering: Bool
    }

    public var bias: Vector3 { biasEstimator.bias }

    /// Feeds one sample: specific force `a` (g) and raw rate (rad/s).
    public mutating func process(acceleration a: Vector3, rate: Vector3, t: Double) -> Output {
        let bias = biasEstimator.process(rate: rate, acceleration: a, t: t)
        let unbiased = rate - bias
        guard let last = lastT else {
            // Start at yaw 0, tilted as the accelerometer says.
            let q = Attitude(gravity: a.magnitude > 0 ? a : Vector3(0, 0, 1)).quaternion
            attitude = Quaternion(w: q.w, x: q.x, y: q.y, z: q.z)
            lastT = t
            lastRate = unbiased
            return output(unbiased)
        }
        let dt = max(t - last, 0)
        lastT = t
        if max(abs(rate.x), abs(rate.y), abs(rate.z)) >= 0.99 * range {
            isRecovering = true
            calmSince = nil
        }
        let calm = max(0, 1 - unbiased.magnitude / settings.restRate)
        var trust = max(0, 1 - abs(a.magnitude - 1) / settings.accelerationBand)
        if trust == 0 { rejectedAt = t }
        if isRecovering {
            calmSince = calm > 0 && trust > 0 ? (calmSince ?? t) : nil
            if let since = calmSince, t - since >= settings.recoverySeconds { isRecovering = false }
        } else if t - rejectedAt < settings.rejectionHoldSeconds {
            trust = 0
        }
        let gain = isRecovering ? settings.recoveryGain : settings.gain + (settings.restGain - settings.gain) * calm
        // Mahony's correction: a rate that turns the estimated up toward â.
        let error = a.magnitude > 0 ? a.normalized.cross(attitude.up) : .zero
        // The gyroscope over the interval: the mean of its two ends.
        let turn = (unbiased + lastRate) * 0.5 + error * (gain * trust)
        lastRate = unbiased
        attitude = attitude.integrated(turn, dt: dt)
        biasEstimator.nudge(by: error * (-settings.biasGain * trust * dt))
        return output(unbiased)
    }

    private func output(_ rotationRate: Vector3) -> Output {
        Output(attitude: attitude, gravity: attitude.up, rotationRate: rotationRate, isRecovering: isRecovering)
    }
}
