// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver

/// The figures of issue #14's regression table for one chip rate.
public struct SignalReport: Sendable {
    public let rate: Int

    // Gravity against Core Motion (degrees).
    public var gravityMedian = 0.0
    public var gravityMean = 0.0

    // Shake.
    public var shakeSegments = 0
    public var shakeSegmentsFound = 0
    /// Shakes reported in the coremotion shake segments (one each is ideal).
    public var shakesInSegments = 0
    /// From vigorous shaking's onset to the first shake message (s).
    public var shakeDelays: [Double] = []
    /// Shakes outside the labelled rest and drive where Core Motion saw no vigorous motion.
    public var falseShakesRestDrive = 0
    /// Shakes where the labels say rest or drive but Core Motion measured
    /// vigorous motion (the shaking went on past the label).
    public var shakesUnlabelled = 0
    public var restDriveMinutes = 0.0
    public var shakesChopping = 0
    public var chopMinutes = 0.0
    public var shakesOutsideBursts = 0
    public var gestureShakes = 0
    public var gestureShakesFound = 0
    public var shakesInOtherGestures = 0
    public var filesWithFalseShakes: [String] = []
    public var shakesOnDrops = 0
    public var shakesDaily = 0

    // Free fall.
    public var drops = 0
    public var dropsAsOneEvent = 0
    public var fallStartErrors: [Double] = []
    public var fallDurationErrors: [Double] = []
    public var fallDelays: [Double] = []
    /// Falls reported in coremotion/, gestures/ and daily/.
    public var falseFalls = 0
    public var withdrawnFalls = 0
    public var fallSeconds = 0.0
    public var filesWithFalseFalls: [String] = []
    public var coremotionSeconds = 0.0

    // Orientation.
    public var orientationAgreement = 0.0
    public var unsupportedFlips = 0
    public var motionMinutes = 0.0
    public var orientationFileFlips = 0

    // Movement.
    public var movementsRestingBoard = 0
    public var movementsRestInHand = 0
    public var restInHandHours = 0.0
    public var movementsStill = 0
    public var stillHours = 0.0
    public var movementsWalking = 0
    public var walkingHours = 0.0
    public var zeroDurationMovements = 0

    // Taps.
    public var doubleTaps = 0
    public var doubleTapsFound = 0
    public var tapsDaily = 0
    public var dailyHours = 0.0
    public var tapsOnDrops = 0
    public var tapsInOtherGestures = 0
    /// Taps on the phone in hand in coremotion/ (nobody tapped it).
    public var tapsCoremotion = 0

    public init(rate: Int) { self.rate = rate }

    public var shakeDelayMedian: Double { median(shakeDelays) }
    public var falseShakesPerMinute: Double { Double(falseShakesRestDrive) / max(restDriveMinutes, 1e-9) }
    public var fallStartErrorMedian: Double { median(fallStartErrors) }
    public var fallDurationErrorMedian: Double { median(fallDurationErrors) }
    public var fallDelayMedian: Double { median(fallDelays) }
    public var falseFallsPerHour: Double { Double(falseFalls) / max(fallSeconds / 3600, 1e-9) }
    public var withdrawnFallsPerHour: Double { Double(withdrawnFalls) / max(fallSeconds / 3600, 1e-9) }
    public var unsupportedFlipsPerMinute: Double { Double(unsupportedFlips) / max(motionMinutes, 1e-9) }
    public var movementsRestInHandPerHour: Double { Double(movementsRestInHand) / max(restInHandHours, 1e-9) }
    public var movementsStillPerHour: Double { Double(movementsStill) / max(stillHours, 1e-9) }
    public var movementsWalkingPerHour: Double { Double(movementsWalking) / max(walkingHours, 1e-9) }
    public var falseTapsPerHour: Double { Double(tapsDaily) / max(dailyHours, 1e-9) }

    /// The table's rows: figure, this rate's value, target.
    public var rows: [(figure: String, value: String, target: String)] {
        [
            ("gravity error vs Core Motion, median / mean (°)", "\(fixed(gravityMedian, 1)) / \(fixed(gravityMean, 1))", "≤ 5 / ≤ 16"),
            ("shake segments found (coremotion, physilog)", "\(shakeSegmentsFound)/\(shakeSegments)", "all"),
            ("shakes reported per coremotion shake segment (about 20 s each)", fixed(Double(shakesInSegments) / Double(max(shakeSegments - 2, 1)), 1), ""),
            ("shake: first message after vigorous shaking begins, median (s)", fixed(shakeDelayMedian, 2), "≤ 0.5"),
            ("false shakes per minute, rest + drive (Core Motion saw no shaking)", fixed(falseShakesPerMinute, 2), "≤ 0.1"),
            ("shakes per minute starting where the labels say rest or drive (labels alone)", fixed(Double(falseShakesRestDrive + shakesUnlabelled) / max(restDriveMinutes, 1e-9), 2), ""),
            ("shakes per minute while chopping", fixed(Double(shakesChopping) / max(chopMinutes, 1e-9), 2), ""),
            ("gesture shakes found (gestures/shake_*)", "\(gestureShakesFound)/\(gestureShakes)", ""),
            ("shakes in other gestures / on drops / in daily", "\(shakesInOtherGestures) / \(shakesOnDrops) / \(shakesDaily)", "0 / 0 / 0"),
            ("drops and tosses found as one fall", "\(dropsAsOneEvent)/\(drops)", "all"),
            ("fall start / duration error, median (ms)", "\(fixed(fallStartErrorMedian * 1000, 0)) / \(fixed(fallDurationErrorMedian * 1000, 0))", "≤ 15 / ≤ 20"),
            ("fall: first message after the fall starts, median (s)", fixed(fallDelayMedian, 3), "≤ 0.1"),
            ("false falls (coremotion, gestures, daily): count, per hour", "\(falseFalls), \(fixed(falseFallsPerHour, 1))", "0"),
            ("fall warnings withdrawn there, per hour", fixed(withdrawnFallsPerHour, 1), ""),
            ("orientation agreement with Core Motion at settled rest", fixed(orientationAgreement * 100, 1) + " %", "≥ 95 %"),
            ("orientation flips in motion its gravity does not support, per minute", fixed(unsupportedFlipsPerMinute, 2), "≤ 0.5"),
            ("movements on a board at rest (hover, cover, not_pickup)", String(movementsRestingBoard), "0"),
            ("movements per hour: phone at rest in hand / sitting, standing, lying", "\(fixed(movementsRestInHandPerHour, 0)) / \(fixed(movementsStillPerHour, 0))", ""),
            ("movements per hour while walking (daily)", fixed(movementsWalkingPerHour, 0), ""),
            ("movements with zero duration", String(zeroDurationMovements), "0"),
            ("double taps found (gestures/doubletap_*)", "\(doubleTapsFound)/\(doubleTaps)", "all"),
            ("false taps per hour in daily life", fixed(falseTapsPerHour, 1), "≤ 1"),
            ("taps on drops / in other gestures / in coremotion", "\(tapsOnDrops) / \(tapsInOtherGestures) / \(tapsCoremotion)", "0 / - / -"),
        ]
    }

    /// A Markdown table with one column per report (rate).
    public static func table(_ reports: [SignalReport]) -> String {
        guard let first = reports.first else { return "" }
        var lines = ["| figure | " + reports.map { "\($0.rate) Hz" }.joined(separator: " | ") + " | target |",
                     "|---|" + reports.map { _ in "---|" }.joined() + "---|"]
        for (i, row) in first.rows.enumerated() {
            lines.append("| \(row.figure) | " + reports.map { $0.rows[i].value }.joined(separator: " | ") + " | \(row.target) |")
        }
        return lines.joined(separator: "\n")
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
