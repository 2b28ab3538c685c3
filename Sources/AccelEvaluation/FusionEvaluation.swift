// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration
import AccelCore
import AccelDriver
import AccelMotion

/// Gravity with and without the gyroscope against Core Motion's own, on
/// coremotion/ with rotation/'s rates (issue #28's first targets). Each
/// recording is resampled to the chip rate (linear interpolation of both
/// sensors, no quantisation) and fed through the pipeline twice, with the
/// rates and without, so the two figures differ only by the fusion; then
/// again with a constant offset on the rates, and as an LSM6DSO at ±2 g
/// and ±250 dps would read the same input (`SixAxisQuantiser`).
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
        /// With the gyroscope, both sensors as an LSM6DSO at ±2 g reads
        /// them (digits, clipping, zero-rate offset, noise): at ±250 dps,
        /// then with the offset calibrated (the fusion starts from it, as
        /// after `accelctl calibrate`); at ±2000 dps, acceld's range, both ways.
        public var quantised = Errors()
        public var quantisedCalibrated = Errors()
        public var quantisedWide = Errors()
        public var quantisedWideCalibrated = Errors()

        /// The lines `accel-bench signal` prints.
        public var lines: [String] {
            ["\(rate) Hz: gravity with gyroscope: median \(fixed(withGyroscope.median, 2))°, mean \(fixed(withGyroscope.mean, 2))°, at rest median \(fixed(withGyroscope.restMedian, 2))°",
             "\(rate) Hz: gravity without gyroscope (same input): median \(fixed(withoutGyroscope.median, 2))°, mean \(fixed(withoutGyroscope.mean, 2))°, at rest median \(fixed(withoutGyroscope.restMedian, 2))°",
             "\(rate) Hz: gravity with gyroscope, \(fixed(addedBias * 180 / .pi, 1))°/s of bias on each axis: median \(fixed(withBias.median, 2))°, mean \(fixed(withBias.mean, 2))°, at rest median \(fixed(withBias.restMedian, 2))°",
             "\(rate) Hz: gravity with gyroscope, LSM6DSO-quantised: \(Self.figures(quantised)) (±2 g, ±250 dps, zero-rate offset unknown)",
             "\(rate) Hz: gravity with gyroscope, LSM6DSO-quantised, offset calibrated: \(Self.figures(quantisedCalibrated)) (±250 dps)",
             "\(rate) Hz: gravity with gyroscope, LSM6DSO-quantised at ±2000 dps (acceld's range): \(Self.figures(quantisedWide))",
             "\(rate) Hz: gravity with gyroscope, LSM6DSO-quantised at ±2000 dps, offset calibrated: \(Self.figures(quantisedWideCalibrated))"]
        }

        static func figures(_ errors: Errors) -> String {
            "median \(fixed(errors.median, 2))°, mean \(fixed(errors.mean, 2))°, at rest \(fixed(errors.restMedian, 2))°"
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
        report.quantised = try run(rate: rate, quantiser: SixAxisQuantiser(rate: rate))
        report.quantisedCalibrated = try run(rate: rate, quantiser: SixAxisQuantiser(rate: rate), calibrated: true)
        report.quantisedWide = try run(rate: rate, quantiser: SixAxisQuantiser(dps: 2000, rate: rate))
        report.quantisedWideCalibrated = try run(rate: rate, quantiser: SixAxisQuantiser(dps: 2000, rate: rate), calibrated: true)
        return report
    }

    /// With the gyroscope, both sensors read through `quantiser` (each
    /// recording from its seed); with `calibrated`, the fusion starts
    /// from the quantiser's zero-rate offset, as after `accelctl calibrate`.
    public func run(rate: Int, quantiser: SixAxisQuantiser, calibrated: Bool = false) throws -> Errors {
        var errors = Errors()
        for path in data.files(in: "coremotion") {
            let recording = try data.recording(path)
            let truth = try data.truth(for: path)
            let rotation = TraceMotion(try data.rotation(for: path))
            measure(recording, truth, rate: rate, rates: { rotation.specificForce(at: $0) }, quantiser: quantiser,
                    bias: calibrated ? quantiser.offset * (.pi / 180) : .zero, into: &errors)
        }
        return errors
    }

    private func measure(_ recording: DevelopmentData.Recording, _ truth: DevelopmentData.Truth, rate: Int,
                         rates: ((Double) -> Vector3)?, quantiser: SixAxisQuantiser? = nil, bias: Vector3 = .zero, into errors: inout Errors) {
        let motion = recording.motion
        var quantiser = quantiser
        var pipeline = MotionPipeline(settings: settings, gyroscopeRange: quantiser?.rotationRange ?? .infinity)
        pipeline.gyroscopeBias = bias
        var events: [MotionEvent] = []
        let start = recording.trace.times[0]
        let count = Int(recording.duration * Double(rate))
        for i in 0...count {
            let t = Double(i) / Double(rate)
            var g = motion.specificForce(at: t), rate = rates?(t)
            if quantiser != nil {
                g = quantiser!.acceleration(g)
                rate = rate.map { quantiser!.rotationRate($0) }
            }
            let sample = Sample(seq: UInt64(i), t: t, counts: Counts(0, 0, 0), g: g, rotationRate: rate)
            let frame = pipeline.process(sample, events: &events)
            events.removeAll(keepingCapacity: true)
            let error = angle(frame.gravity, truth.gravity(at: start + t))
            errors.all.append(error)
            if truth.activity(at: start + t) == .rest { errors.rest.append(error) }
        }
    }
}
