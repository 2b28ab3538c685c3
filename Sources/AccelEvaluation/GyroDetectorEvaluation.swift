// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion
import AccelParts
import AccelReplay

/// Shake and free fall with and without the gyroscope (issue #28), on the
/// recordings that have rotation rates: coremotion/ with rotation/'s rates,
/// replayed through the chip model as an LSM6DSO (±2 g, its gyroscope at
/// ±2000 dps as acceld runs it) at its rate nearest the one asked for.
/// One replay per recording: the pipeline's own detectors are today's
/// (user acceleration against the accelerometer's baseline); a second pair
/// fed from the same frames takes the fused user acceleration (`a` minus
/// the fusion's gravity), a third the rotation rate, each wired as the
/// pipeline wires them. So the variants differ only by their input.
public struct GyroDetectorEvaluation {
    public let data: DevelopmentData
    public var configuration: Configuration

    public init(data: DevelopmentData, configuration: Configuration = Configuration()) {
        self.data = data
        self.configuration = configuration
    }

    public enum Variant: String, Sendable, CaseIterable {
        case accelerometer = "accelerometer only (today)"
        case fused = "fused user acceleration"
        /// The shake detector's rules on the rotation rate instead: a shake
        /// as rapid rotation reversals.
        case rotation = "rotation rate ≥ 4 rad/s, same rules"
    }

    /// The rotation variant's threshold (rad/s): Core Motion's |rate| is
    /// 2.9 rad/s median in the shake segments, 6.3 at their 90th
    /// percentile; at 6 rad/s one segment of four was found, at 4 all.
    /// (Chopping, 3.3, and driving, 2.8, turn the phone as fast.)
    public static let rotationThreshold = 4.0

    public struct Row: Sendable {
        public let recording: String
        public let variant: Variant
        public var figures: CoremotionShakeFigures
    }

    public struct Report: Sendable {
        public let rate: Int
        public var rows: [Row] = []

        /// A Markdown table: one row per recording and variant.
        public var table: String {
            var lines = ["\(rate) Hz (LSM6DSO chip model, rotation/'s rates):", "",
                         "| recording | detectors' input | shake segments found | shakes per segment | first message, median (s) | false shakes rest + drive | shakes in rest/drive labels (Core Motion shaking) | shakes while chopping | falls / warnings withdrawn |",
                         "|---|---|---|---|---|---|---|---|---|"]
            for row in rows {
                let f = row.figures
                lines.append("| \(row.recording) | \(row.variant.rawValue) | \(f.segmentsFound)/\(f.segments) | \(f.segments == 0 ? "–" : fixed(Double(f.shakesInSegments) / Double(f.segments), 1)) | \(f.delays.isEmpty ? "–" : fixed(median(f.delays), 2)) | \(f.falseShakesRestDrive) | \(f.shakesUnlabelled) | \(f.shakesChopping) | \(f.falls) / \(f.withdrawnFalls) |")
            }
            return lines.joined(separator: "\n")
        }

        public func figures(_ variant: Variant) -> [CoremotionShakeFigures] { rows.filter { $0.variant == variant }.map(\.figures) }
    }

    public func run(rate: Int) throws -> Report {
        var configuration = configuration
        configuration.device.part = ChipProfile.lsm6dso.name
        let rates = ChipProfile.lsm6dso.modes[0].rates.map(\.hertz)
        let chipRate = rates.min { abs($0 - rate) < abs($1 - rate) }!
        configuration.device.rate = chipRate
        var report = Report(rate: chipRate)
        for path in data.files(in: "coremotion") {
            let recording = try data.recording(path)
            let truth = try data.truth(for: path)
            let rotation = try data.rotation(for: path)
            guard rotation.count == recording.trace.count else {
                throw DevelopmentData.DataError(message: "rotation/\(recording.name) has \(rotation.count) rows, the recording \(recording.trace.count)")
            }
            let trace = Trace(comments: recording.trace.comments, times: recording.trace.times, samples: recording.trace.samples,
                              rotationRates: rotation.samples)
            var today = DetectorLog(), fused = DetectorLog(), turning = DetectorLog()
            var fusedDetectors = ShadowDetectors(settings: configuration.motion) { $0.user }
            var rotationSettings = configuration.motion
            rotationSettings.shake.threshold = Self.rotationThreshold
            var rotationDetectors = ShadowDetectors(settings: rotationSettings) { $0.rotationRate ?? .zero }
            try Replay(motion: TraceMotion(trace, name: path), configuration: configuration).run(
                onFrame: { frame in
                    fusedDetectors.process(frame, into: &fused)
                    rotationDetectors.process(frame, into: &turning)
                },
                onEvent: { event in today.record(event) })
            report.rows.append(Row(recording: recording.name, variant: .accelerometer, figures: CoremotionShakeFigures(today, truth: truth)))
            report.rows.append(Row(recording: recording.name, variant: .fused, figures: CoremotionShakeFigures(fused, truth: truth)))
            report.rows.append(Row(recording: recording.name, variant: .rotation, figures: CoremotionShakeFigures(turning, truth: truth)))
        }
        return report
    }
}

/// The shake and free-fall detectors fed from frames, wired as
/// `MotionPipeline` wires them (a confirmed fall ends a shake; the shake
/// detector sees calm while falling and settling); `input` is what the
/// shake detector takes from each frame.
struct ShadowDetectors {
    var shake: ShakeDetector
    var freeFall: FreeFallDetector
    let input: (Frame) -> Vector3

    init(settings: MotionSettings, input: @escaping (Frame) -> Vector3) {
        shake = ShakeDetector(settings: settings.shake)
        freeFall = FreeFallDetector(settings: settings.freeFall)
        self.input = input
    }

    mutating func process(_ frame: Frame, into log: inout DetectorLog) {
        if let fall = freeFall.process(magnitude: frame.acceleration.magnitude, t: frame.t) {
            log.record(.freeFall(fall))
            if case .confirmed = fall, let end = shake.interrupt(t: frame.t) { log.record(.shake(end)) }
        }
        let value = freeFall.isConfirmed || freeFall.isSettling ? Vector3.zero : input(frame)
        if let event = shake.process(user: value, t: frame.t) { log.record(.shake(event)) }
    }
}

/// Shakes (first message, start) and fall outcomes from a stream of events.
struct DetectorLog {
    var shakes: [Observation.Shake] = []
    var falls = 0
    var withdrawnFalls = 0

    mutating func record(_ event: MotionEvent) {
        switch event {
        case .shake(.started(let t, let start)): shakes.append(Observation.Shake(firstMessage: t, start: start))
        case .freeFall(.confirmed): falls += 1
        case .freeFall(.withdrawn): withdrawnFalls += 1
        default: break
        }
    }
}
