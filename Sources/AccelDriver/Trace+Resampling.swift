// SPDX-License-Identifier: Apache-2.0
import AccelCore

extension Trace {
    /// The trace as a part sampling at `rate` (Hz) would see it: a trace
    /// recorded faster goes through `Resampler`'s anti-aliasing low-pass
    /// (40 % of `rate`) to `rate`, as the part's own filter would take it;
    /// the chip model's linear interpolation between rows alone would fold
    /// a bearing's kHz ringing into the band. A trace no faster than the
    /// rate is returned as it is.
    public func resampled(to rate: Double) -> Trace {
        guard let recorded = rateAbove(rate) else { return self }
        // Rows a little uneven (a phone's timestamps, a lost row) are put
        // on an even grid at their own rate first, as the chip model would
        // read them, so the trace keeps its span.
        let motion = TraceMotion(self)
        let grid = (0...Int((duration * recorded + 1e-6).rounded(.down))).map { Double($0) / recorded }
        let even = grid.map(motion.specificForce(at:))
        let evenRates = rotationRates.map { _ in grid.map(motion.rotationRate(at:)) }
        func axes(_ vectors: [Vector3]) -> [Vector3] {
            let x = Resampler.resample(vectors.map(\.x), from: recorded, to: rate)
            let y = Resampler.resample(vectors.map(\.y), from: recorded, to: rate)
            let z = Resampler.resample(vectors.map(\.z), from: recorded, to: rate)
            return x.indices.map { Vector3(x[$0], y[$0], z[$0]) }
        }
        var resampled = axes(even), resampledRates = evenRates.map(axes)
        var newTimes = resampled.indices.map { times[0] + Double($0) / rate }
        // The last row held to the trace's own end, so it plays as long.
        if let last = times.last, let end = newTimes.last, last - end > 1e-9 {
            newTimes.append(last)
            resampled.append(resampled[resampled.count - 1])
            resampledRates = resampledRates.map { $0 + [$0[$0.count - 1]] }
        }
        return Trace(comments: comments + ["resampled: from \(Int(recorded.rounded())) Hz to \(Int(rate.rounded())) Hz through an anti-aliasing low-pass"],
                     times: newTimes, samples: resampled, rotationRates: resampledRates)
    }

    /// The trace's rate where it is above `rate` (by more than a chip's
    /// clock is off): the traces `resampled(to:)` filters.
    func rateAbove(_ rate: Double) -> Double? {
        guard count > 1, typicalInterval > 0, 1 / typicalInterval > rate * 1.01 else { return nil }
        return 1 / typicalInterval
    }
}

extension DeviceSource {
    /// What to tell a person whose trace is resampled for `rate`, or nil.
    public static func resamplingNotice(_ motion: any MotionSource, rate: Double) -> String? {
        guard let trace = motion as? TraceMotion, let recorded = trace.trace.rateAbove(rate) else { return nil }
        return "\(trace.name) was recorded at \(Int(recorded.rounded())) Hz: it plays at \(Int(rate.rounded())) Hz through an anti-aliasing low-pass at \(Int((Resampler.cutoffFraction * rate).rounded())) Hz (docs/TRACE-FORMAT.md)"
    }

    /// `motion` as the chip model at `rate` samples it: a trace faster than
    /// the rate resampled (`Trace.resampled(to:)`), anything else as it is.
    public static func motion(_ motion: any MotionSource, sampledAt rate: Double) -> any MotionSource {
        guard let trace = motion as? TraceMotion else { return motion }
        let resampled = trace.trace.resampled(to: rate)
        return resampled == trace.trace ? trace : TraceMotion(resampled, name: trace.name)
    }
}
