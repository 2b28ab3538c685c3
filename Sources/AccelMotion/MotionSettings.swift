// SPDX-License-Identifier: Apache-2.0
/// Every tunable of the pipeline, with its default and the reason for it.
/// docs/ALGORITHMS.md explains each; the configuration file sets them.
public struct MotionSettings: Sendable, Equatable {
    public var gravity = GravitySettings()
    public var orientation = OrientationSettings()
    public var shake = ShakeSettings()
    public var freeFall = FreeFallSettings()
    public var movement = MovementSettings()
    public var tap = TapSettings()
    public var fusion = FusionSettings()
    public init() {}
}

public struct GravitySettings: Sendable, Equatable {
    public enum Filter: String, Sendable, CaseIterable {
        /// new = f·sample + (1 − f)·previous per sample: the classic iPhone
        /// tutorial filter. Its cut-off moves with the rate; kept for comparison.
        case classic
        /// One-pole low-pass specified by cut-off frequency (rate-independent).
        case exponential
        /// Low-pass whose cut-off drops from `cutoffHz` to `motionCutoffHz` as
        /// |a| moves away from 1 g: it follows tilts quickly while the board is
        /// only under gravity and barely moves while it is being accelerated.
        case adaptive
    }
    public var filter = Filter.adaptive
    public var cutoffHz = 2.0
    /// Measured against Core Motion's gravity on coremotion/ (100 Hz):
    /// 0.1 Hz with a 0.15 g band gave 10.3° median / 20.4° mean error,
    /// 0.5 Hz with 0.6 g gives 7.1° / 15.1° (docs/ALGORITHMS.md).
    public var motionCutoffHz = 0.5
    /// |(|a| − 1 g)| at which the adaptive filter is fully slowed, in g.
    public var adaptiveBand = 0.6
    public var classicFactor = 0.1
    /// The detectors (shake, movement, tap) take user acceleration against
    /// their own, steadier baseline: the same filter, slowed to this
    /// cut-off ...
    public var baselineMotionCutoffHz = 0.1
    /// ... once |(|a| − 1 g)| reaches this (g). A tap's 2 g spike or a
    /// whip must not drag the baseline, or its own wake looks like motion.
    public var baselineAdaptiveBand = 0.15
    public init() {}

    /// The settings of the detectors' baseline filter.
    public var baseline: GravitySettings {
        var settings = self
        settings.motionCutoffHz = baselineMotionCutoffHz
        settings.adaptiveBand = baselineAdaptiveBand
        return settings
    }
}

public struct OrientationSettings: Sendable, Equatable {
    /// A neighbour must be this much closer than the current face (in angle
    /// from its axis) before it wins: between two faces the switch happens at
    /// 45° ± half of this, not at 45°.
    public var deadZoneDegrees = 20.0
    /// No face is entered unless gravity is within this angle of its axis.
    public var tiltLimitDegrees = 40.0
    /// No decision while |a| differs from 1 g by more than this (g).
    public var magnitudeTolerance = 0.25
    /// A new face must hold this long before the event fires (s).
    public var settleSeconds = 0.3
    /// No decision while the sample's direction is more than this from the
    /// gravity estimate's (degrees). On coremotion/, 20° or more leaves two
    /// flips to landscape mid-chop that Core Motion's gravity puts 56° away
    /// (0.45 per minute of motion); 10° leaves none at 400 Hz, one at 100 Hz,
    /// and agreement at rest stays 100 %.
    public var agreementDegrees = 10.0
    public init() {}
}

public struct ShakeSettings: Sendable, Equatable {
    /// A sample is active when |user acceleration| reaches this (g).
    public var threshold = 1.2
    /// The window the fractions and reversals are taken over (s): long
    /// enough for two back-and-forth cycles of a 3 Hz shake.
    public var windowSeconds = 0.75
    /// Fraction of the window's samples that must be active to start.
    /// Measured on shared/data/shake at 100 Hz: the bursts reach 0.47 (the
    /// second, jerky one) to 0.82; handling between them stays below 0.27.
    public var fraction = 0.35
    /// Direction reversals (against the stroke's direction) needed to start:
    /// four is two full cycles. A whip (out and back) or a slam (down and
    /// stop) makes three at most in gestures/; every shake segment makes four
    /// within 0.4 s (median) of its onset.
    public var minimumReversals = 4
    /// From first to last active sample in the window, at least (s).
    public var minimumSpanSeconds = 0.25
    /// The shake ends (and re-arms) when the active fraction falls below this.
    public var rearmFraction = 0.1
    /// Quiet time after a shake before another may start (s).
    public var minimumIntervalSeconds = 1.0
    /// It ends only after no sample has been active for this long: a person
    /// shaking a phone pauses between strokes without stopping (s).
    public var endSeconds = 0.5
    public init() {}
}

public struct FreeFallSettings: Sendable, Equatable {
    /// Free fall while |a| is below this (g).
    public var threshold = 0.4
    /// The early warning (`phase: start`) once it has lasted this long (s).
    public var minimumSeconds = 0.08
    /// Confirmed (`phase: confirmed`) once it has lasted this long, longer
    /// than any gesture's low phase (s).
    public var confirmSeconds = 0.2
    /// ... and only while the mean |a| since it began is at most this (g):
    /// free fall is |a| ≈ 0, a gesture only passes through low values.
    public var confirmMagnitude = 0.25
    /// It ends when |a| reaches this (g): above `threshold`, so a wobble in
    /// mid-air does not cut a fall in two.
    public var exitThreshold = 0.8
    /// After a fall, |a| must stay above `threshold` this long before another
    /// can start: bounces after the landing belong to the same drop (s).
    public var rearmSeconds = 0.5
    public init() {}
}

public struct MovementSettings: Sendable, Equatable {
    /// A movement starts when |user acceleration| reaches this (g).
    public var startThreshold = 0.3
    /// The direction is taken from the user acceleration summed over this
    /// long after the start: the push, before the braking (s).
    public var decisionSeconds = 0.05
    /// It ends after |user acceleration| stays below this (g) ...
    public var lullThreshold = 0.1
    /// ... for this long (s).
    public var lullSeconds = 0.2
    /// Longer "movements" are someone handling the board, not a gesture,
    /// and are not reported (s).
    public var maximumSeconds = 1.5
    /// It is reported only if |user acceleration| held `startThreshold` this
    /// long at a stretch (s). The Qt gesture phone's one-sample glitches of
    /// 0.5 g (on a board at rest) hold it for 20 ms at most.
    public var minimumPushSeconds = 0.05
    public init() {}
}

public struct TapSettings: Sendable, Equatable {
    /// A spike of |user acceleration| at or above this is a tap candidate (g).
    public var threshold = 0.5
    /// The spike, from rising through half the threshold to falling back
    /// below it, lasts at most this long (s).
    public var maximumSeconds = 0.06
    /// The board is still while the mean |user acceleration| over
    /// `quietSeconds` is at most this (g).
    public var quietLevel = 0.07
    /// Still over this long before a tap (s).
    public var quietSeconds = 0.5
    /// A tap rings this long: a second spike sooner than this after the
    /// first is not a second tap, and nothing is judged in it (s).
    public var latencySeconds = 0.1
    /// After the ringing, |user| stays below half the threshold this long
    /// before a double tap is reported (s).
    public var settleSeconds = 0.1
    /// A second tap must begin within this of the first; a single tap is
    /// reported when it has passed (s).
    public var doubleTapSeconds = 0.4
    public init() {}
}

/// The gyroscope's fusion (`AttitudeFusion`), for parts that have one.
/// Measured against Core Motion's gravity on coremotion/ with rotation/'s
/// rates (docs/ALGORITHMS.md): the error is flat within 0.1° for `gain`
/// 0.1 to 0.3 and `accelerationBand` 0.05 to 0.15; the rest gain and the
/// hold matter most.
public struct FusionSettings: Sendable, Equatable {
    /// The accelerometer's pull while the board turns (1/s): a time
    /// constant of 5 s, so a hand's strokes, which accelerate the board for
    /// a fraction of a second, barely move the attitude.
    public var gain = 0.2
    /// ... and while it barely turns (1/s): 0.33 s, so the estimate settles
    /// onto the accelerometer's mean at rest (0.6° from Core Motion's at
    /// rest, against 1.6° for 1 1/s).
    public var restGain = 3.0
    /// The pull goes from `restGain` to `gain` as |rate| rises to this (rad/s, 29°/s).
    public var restRate = 0.5
    /// It fades to nothing as ||a| − 1 g| rises to this (g).
    public var accelerationBand = 0.1
    /// ... and stays off this long after it did (s): a chop or an impact
    /// rings, and passes through 1 g on the way.
    public var rejectionHoldSeconds = 0.2
    /// Still, for the bias: each rate within this of its recent mean
    /// (rad/s, 1.7°/s; a datasheet noise is a hundredth of it) ...
    public var stillRate = 0.03
    /// ... the acceleration within this of its recent mean (g) ...
    public var stillAcceleration = 0.03
    /// ... for this long (s).
    public var stillSeconds = 1.0
    /// The bias follows the still gyroscope with this time constant (s).
    public var biasTimeConstant = 2.0
    /// Mahony's integral gain (1/s²): the bias learned in motion from the
    /// accelerometer's pull. A phone in hand is never still, so only this
    /// finds an offset there.
    public var biasGain = 0.02
    /// After saturation, the pull while calm (1/s: 0.2 s) ...
    public var recoveryGain = 5.0
    /// ... until the board has been calm this long (s).
    public var recoverySeconds = 1.0
    public init() {}
}
