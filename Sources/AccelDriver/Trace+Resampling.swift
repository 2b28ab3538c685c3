// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// A trace recorded faster than the part that plays it, as the part reads
/// it: its rows put on an even grid at their own rate (a phone's uneven
/// timestamps, a lost row), then read at any instant through the part's
/// anti-aliasing low-pass (`Resampler.LowPass`, 40 % of the part's rate).
/// One step from the recording to the instants the chip's own clock
/// samples, whatever its rate error and phase: resampling to the part's
/// nominal rate and then interpolating between those rows took a third
/// off a 2 kHz line at 6,660 Hz and added sidebands (issue 49); linear
/// interpolation between the recording's own rows would fold a bearing's
/// kHz ringing into the band.
struct BandLimitedRows {
    let lowPass: Resampler.LowPass
    /// The grid's rate, Hz.
    let rate: Double
    let force: [Vector3]
    let rotationRates: [Vector3]?

    /// Nil for a trace no faster than `rate`: its rows are read as they are.
    init?(_ trace: Trace, playedAt rate: Double) {
        guard let recorded = trace.rateAbove(rate) else { return nil }
        let rows = TraceMotion(trace)
        let grid = (0...Int((trace.duration * recorded + 1e-6).rounded(.down))).map { Double($0) / recorded }
        self.rate = recorded
        force = grid.map(rows.specificForce(at:))
        rotationRates = trace.rotationRates.map { _ in grid.map(rows.rotationRate(at:)) }
        lowPass = Resampler.LowPass(rate: rate, inputRate: recorded)
    }

    /// The grid position of `t` (seconds from the first row), held at the ends.
    private func position(_ t: Double) -> Double { min(max(t * rate, 0), Double(force.count - 1)) }

    func force(at t: Double) -> Vector3 {
        lowPass.reading(at: position(t), count: force.count) { force[$0] }
    }

    func rotationRate(at t: Double) -> Vector3 {
        guard let rotationRates else { return .zero }
        return lowPass.reading(at: position(t), count: rotationRates.count) { rotationRates[$0] }
    }
}

extension Vector3: LowPassValue {}

extension Trace {
    /// The trace's rate where it is above `rate` (by more than a chip's
    /// clock is off): the traces a part reads through its low-pass.
    func rateAbove(_ rate: Double) -> Double? {
        guard count > 1, typicalInterval > 0, 1 / typicalInterval > rate * 1.01 else { return nil }
        return 1 / typicalInterval
    }
}

extension DeviceSource {
    /// What to tell a person whose trace is filtered for `rate`, or nil.
    public static func resamplingNotice(_ motion: any MotionSource, rate: Double) -> String? {
        guard let trace = motion as? TraceMotion, let recorded = trace.trace.rateAbove(rate) else { return nil }
        return "\(trace.name) was recorded at \(Int(recorded.rounded())) Hz: the part reads it at \(Int(rate.rounded())) Hz through an anti-aliasing low-pass at \(Int((Resampler.cutoffFraction * rate).rounded())) Hz (docs/TRACE-FORMAT.md)"
    }

    /// `motion` as the chip model at `rate` samples it: a trace faster than
    /// the rate through the part's low-pass (`BandLimitedRows`), anything
    /// else as it is.
    public static func motion(_ motion: any MotionSource, sampledAt rate: Double) -> any MotionSource {
        guard let trace = motion as? TraceMotion, trace.trace.rateAbove(rate) != nil else { return motion }
        return TraceMotion(trace.trace, name: trace.name, playedAt: rate)
    }
}
