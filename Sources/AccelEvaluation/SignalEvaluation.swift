// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replays every development recording at one chip rate and measures each
/// detector against what the recordings are known to contain (issue #14's
/// regression table). Deterministic: the same data and configuration give
/// the same figures.
public struct SignalEvaluation {
    public let data: DevelopmentData
    public var configuration: Configuration

    public init(data: DevelopmentData, configuration: Configuration = Configuration()) {
        self.data = data
        self.configuration = configuration
    }

    /// Files of gestures/ that are a phone lying still (a hand hovers over it
    /// or covers it, or nothing happens): a board at rest.
    public static let restingGestures = ["gestures/hover_1.csv", "gestures/hover_2.csv", "gestures/cover_2.csv", "gestures/not_pickup_1.csv"]
    /// Core Motion |user acceleration| that marks vigorous shaking (g): the
    /// onset of a shake segment is its first row at or above it.
    public static let vigorous = 1.0
    /// Slack around labelled segment boundaries (s): a label switches on a
    /// person's say-so, give or take a moment.
    public static let boundary = 1.0

    public func run(rate: Int) throws -> SignalReport {
        var report = SignalReport(rate: rate)
        try coremotion(rate: rate, into: &report)
        try shakeFiles(rate: rate, into: &report)
        try drops(rate: rate, into: &report)
        try gestures(rate: rate, into: &report)
        try daily(rate: rate, into: &report)
        try orientationFiles(rate: rate, into: &report)
        return report
    }

    func observe(_ path: String, rate: Int) throws -> (DevelopmentData.Recording, Observation) {
        let recording = try data.recording(path)
        return (recording, try Observation(recording, configuration: configuration, rate: rate))
    }

    // MARK: coremotion/: gravity, shakes, falls, orientation, movement in hand

    func coremotion(rate: Int, into report: inout SignalReport) throws {
        var errors: [Double] = []
        var agreeing = 0, settled = 0
        var restDriveSeconds = 0.0, chopSeconds = 0.0, motionSeconds = 0.0, restSeconds = 0.0
        for path in data.files(in: "coremotion") {
            let (recording, seen) = try observe(path, rate: rate)
            let truth = try data.truth(for: path)
            report.coremotionSeconds += recording.duration
            // Gravity direction against Core Motion's, every frame.
            for frame in seen.frames {
                errors.append(angle(frame.gravity, truth.gravity(at: frame.t)))
            }
            let segments = truth.segments
            for s in segments {
                let length = s.end - s.start
                switch s.activity {
                case .rest: restDriveSeconds += length; restSeconds += length
                case .drive: restDriveSeconds += length; motionSeconds += length
                case .chop: chopSeconds += length; motionSeconds += length
                case .shake: motionSeconds += length
                }
            }
            // Shake segments found and how soon; shakes elsewhere, judged
            // against what Core Motion measured (CoremotionShakeFigures).
            let shakes = CoremotionShakeFigures(shakes: seen.shakes, truth: truth)
            report.shakeSegments += shakes.segments
            report.shakeSegmentsFound += shakes.segmentsFound
            report.shakesInSegments += shakes.shakesInSegments
            report.shakeDelays += shakes.delays
            report.falseShakesRestDrive += shakes.falseShakesRestDrive
            report.shakesUnlabelled += shakes.shakesUnlabelled
            report.shakesChopping += shakes.shakesChopping
            report.falseFalls += seen.falls.count
            report.withdrawnFalls += seen.withdrawnFalls.count
            report.fallSeconds += recording.duration
            // Movement while the phone rests in the hand.
            report.movementsRestInHand += seen.movements.filter { truth.activity(at: $0.start) == .rest }.count
            report.zeroDurationMovements += seen.movements.filter { $0.duration <= 0 }.count
            report.tapsCoremotion += seen.taps.count
            // Orientation: agreement at settled rest, unsupported flips in motion.
            for frame in seen.frames {
                let i = truth.index(at: frame.t)
                guard truth.activity[i] == .rest, truth.times[i] - Self.boundary >= 0 else { continue }
                let earlier = truth.index(at: frame.t - Self.boundary)
                guard truth.activity[earlier] == .rest, angle(truth.gravity[earlier], truth.gravity[i]) < 5,
                      let face = Self.face(truth.gravity[i], within: 35) else { continue }
                settled += 1
                if frame.orientation == face { agreeing += 1 }
            }
            for change in seen.orientationChanges where truth.activity(at: change.t) != .rest {
                if Self.face(truth.gravity(at: change.t), within: 90) != change.orientation { report.unsupportedFlips += 1 }
            }
        }
        errors.sort()
        report.gravityMedian = errors.isEmpty ? .nan : errors[errors.count / 2]
        report.gravityMean = errors.reduce(0, +) / Double(max(errors.count, 1))
        report.orientationAgreement = Double(agreeing) / Double(max(settled, 1))
        report.restDriveMinutes = restDriveSeconds / 60
        report.chopMinutes = chopSeconds / 60
        report.motionMinutes = motionSeconds / 60
        report.restInHandHours = restSeconds / 3600
    }

    // MARK: shake/ and the gestures' shakes

    func shakeFiles(rate: Int, into report: inout SignalReport) throws {
        // physilog: bursts at about 14-16 s and 29.6-34 s (its README).
        let (_, seen) = try observe("shake/physilog_two_shakes.csv", rate: rate)
        let bursts: [ClosedRange<Double>] = [13.8...16.3, 29.4...34.3]
        for burst in bursts {
            report.shakeSegments += 1
            if seen.shakes.contains(where: { burst.contains($0.start) }) { report.shakeSegmentsFound += 1 }
        }
        report.shakesOutsideBursts += seen.shakes.filter { s in !bursts.contains { $0.contains(s.start) } }.count
    }

    // MARK: freefall/: every drop and toss one fall, on time

    func drops(rate: Int, into report: inout SignalReport) throws {
        for path in data.files(in: "freefall") {
            let (recording, seen) = try observe(path, rate: rate)
            let recorded = DevelopmentData.recordedFall(recording.trace)
            report.drops += 1
            if seen.falls.count == 1, let duration = seen.falls[0].duration {
                report.dropsAsOneEvent += 1
                report.fallStartErrors.append(abs(seen.falls[0].start - recorded.start))
                report.fallDurationErrors.append(abs(duration - recorded.duration))
            }
            if let first = (seen.falls + seen.withdrawnFalls).map(\.firstMessage).min() {
                report.fallDelays.append(first - recorded.start)
            }
            report.shakesOnDrops += seen.shakes.count
            report.tapsOnDrops += seen.taps.count
        }
    }

    // MARK: gestures/: what must not fire, and the double taps

    func gestures(rate: Int, into report: inout SignalReport) throws {
        for path in data.files(in: "gestures") {
            let (recording, seen) = try observe(path, rate: rate)
            report.fallSeconds += recording.duration
            report.falseFalls += seen.falls.count
            report.withdrawnFalls += seen.withdrawnFalls.count
            if !seen.falls.isEmpty { report.filesWithFalseFalls.append(recording.name) }
            if path.contains("/shake_") {
                report.gestureShakes += 1
                if !seen.shakes.isEmpty { report.gestureShakesFound += 1 }
            } else if !seen.shakes.isEmpty {
                report.shakesInOtherGestures += seen.shakes.count
                report.filesWithFalseShakes.append(recording.name)
            }
            if Self.restingGestures.contains(path) {
                report.movementsRestingBoard += seen.movements.count
            }
            report.zeroDurationMovements += seen.movements.filter { $0.duration <= 0 }.count
            if path.contains("/doubletap_"), let t = DevelopmentData.doubleTapTime(recording.trace) {
                report.doubleTaps += 1
                // The tap sensor reports after the second tap: both taps lie within 0.6 s before it.
                if seen.taps.contains(where: { $0.count == 2 && $0.t >= t - 0.6 && $0.t <= t + 0.3 }) { report.doubleTapsFound += 1 }
            } else if !path.contains("not_whip") {
                // not_whip_1 is fingers tapping the screen: taps there are right.
                report.tapsInOtherGestures += seen.taps.count
            }
        }
    }

    // MARK: daily/: ordinary life

    func daily(rate: Int, into report: inout SignalReport) throws {
        for path in data.files(in: "daily") {
            let (recording, seen) = try observe(path, rate: rate)
            let segments = DevelopmentData.dailySegments(recording.trace)
            report.dailyHours += recording.duration / 3600
            report.fallSeconds += recording.duration
            report.falseFalls += seen.falls.count
            report.withdrawnFalls += seen.withdrawnFalls.count
            if !seen.falls.isEmpty { report.filesWithFalseFalls.append(recording.name) }
            report.shakesDaily += seen.shakes.count
            report.tapsDaily += seen.taps.count
            report.zeroDurationMovements += seen.movements.filter { $0.duration <= 0 }.count
            for s in segments {
                switch s.code {
                case 1...3: report.walkingHours += (s.end - s.start) / 3600
                case 4...6: report.stillHours += (s.end - s.start) / 3600
                default: break
                }
            }
            for m in seen.movements {
                guard let s = segments.first(where: { m.start >= $0.start && m.start <= $0.end }) else { continue }
                if (1...3).contains(s.code) { report.movementsWalking += 1 }
                if (4...6).contains(s.code) { report.movementsStill += 1 }
            }
        }
    }

    // MARK: orientation/: moved along one axis, the face must hold

    func orientationFiles(rate: Int, into report: inout SignalReport) throws {
        for path in data.files(in: "orientation") {
            let (_, seen) = try observe(path, rate: rate)
            report.orientationFileFlips += max(seen.orientationChanges.count - 1, 0)
            report.zeroDurationMovements += seen.movements.filter { $0.duration <= 0 }.count
        }
    }

    // MARK: helpers

    /// The face whose axis is within `limit` degrees of `gravity`, if any.
    static func face(_ gravity: Vector3, within limit: Double) -> DeviceOrientation? {
        let best = DeviceOrientation.allCases.compactMap { face in face.up.map { (face, angle(gravity, $0)) } }.min { $0.1 < $1.1 }!
        return best.1 <= limit ? best.0 : nil
    }
}

/// Angle between two directions, degrees.
func angle(_ a: Vector3, _ b: Vector3) -> Double {
    let m = a.magnitude * b.magnitude
    guard m > 0 else { return 180 }
    return acos(min(max(a.dot(b) / m, -1), 1)) * 180 / .pi
}
