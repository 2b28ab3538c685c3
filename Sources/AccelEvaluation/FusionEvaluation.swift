// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion

/// Gravity with and without the gyroscope against Core Motion's own, on
/// coremotion/ with rotation/'s rates (issue #28's first targets). Each
/// recording is resampled to the chip rate (linear interpolation of both
/// sensors, no quantisation: the chip model has no gyroscope yet) and fed
/// through the pipeline twice, with the rates and without, so the two
/// figures differ only by the fusion.
public struct FusionEvaluation {
    public let data: DevelopmentData
    public var settings: MotionSettings

    public init(data: DevelopmentData, settings: MotionSettings = MotionSettings()) {
        self.data = data
        self.settings = settings
    }

    /// Errors in degrees: every frame, and the frames Core Motion labels rest.
    public struct Errors: Sendable {
        public var all: [Double] = []
        public var rest: [Double] = []
        public var median: Double { AccelEvaluation.median(all) }
        public var mean: Double { all.reduce(0, +) / Double(max(all.count, 1)) }
        public var restMedian: Double { AccelEvaluation.median(rest) }
    }

    public struct Report: Sendable {
        public let rate: Int
        public var withGyroscope = Errors()
        public var withoutGyroscope = Errors()
        /// With the gyroscope, a constant offset added to every rate (the
        /// recordings' rates have Core Motion's bias removed; a part's have not).
        public var withBias = Errors()
        public let addedBias: Double

        /// The lines `accel-bench signal` prints.
        public var lines: [String] {
            ["\(rate) Hz: gravity with gyroscope: median \(fixed(withGyroscope.median, 2))°, mean \(fixed(withGyroscope.mean, 2))°, at rest median \(fixed(withGyroscope.restMedian, 2))°",
             "\(rate) Hz: gravity without gyroscope (same input): median \(fixed(withoutGyroscope.median, 2))°, mean \(fixed(withoutGyroscope.mean, 2))°, at rest median \(fixed(withoutGyroscope.restMedian, 2))°",
             "\(rate) Hz: gravity with gyroscope, \(fixed(addedBias * 180 / .pi, 1))°/s of bias on each axis: median \(fixed(withBias.median, 2))°, mean \(fixed(withBias.mean, 2))°, at rest median \(fixed(withBias.restMedian, 2))°"]
        }
    }

    /// `bias`: rad/s added to each axis for `withBias` (1°/s: the LSM6DSO's
    /// typical zero-rate level).
    public func run(rate: Int, bias: Double = .pi / 180) throws -> Report {
        var report = Report(rate: rate, addedBias: bias)
        for path in data.files(in: "coremotion") {
            let recording = try data.recording(path)
            let truth = try data.truth(for: path)
            let rotation = TraceMotion(try data.rotation(for: path))
            let offset = Vector3(bias, bias, bias)
            measure(recording, truth, rate: rate, rates: { rotation.specificForce(at: $0) }, into: &report.withGyroscope)
            measure(recording, truth, rate: rate, rates: nil, into: &report.withoutGyroscope)
            measure(recording, truth, rate: rate, rates: { rotation.specificForce(at: $0) + offset }, into: &report.withBias)
        }
        return report
    }

    private func measure(_ recording: DevelopmentData.Recording, _ truth: DevelopmentData.Truth, rate: Int,
                         rates: ((Double) -> Vector3)?, into errors: inout Errors) {
        let motion = recording.motion
        var pipeline = MotionPipeline(settings: settings)
        var events: [MotionEvent] = []
        let start = recording.trace.times[0]
        let count = Int(recording.duration * Double(rate))
        for i in 0...count {
            let t = Double(i) / Double(rate)
            let sample = Sample(seq: UInt64(i), t: t, counts: Counts(0, 0, 0), g: motion.specificForce(at: t),
                                rotationRate: rates?(t))
            let frame = pipeline.process(sample, events: &events)
            events.removeAll(keepingCapacity: true)
            let error = angle(frame.gravity, truth.gravity(at: start + t))
            errors.all.append(error)
            if truth.activity(at: start + t) == .rest { errors.rest.append(error) }
        }
    }
}
