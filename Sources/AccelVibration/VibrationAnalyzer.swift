// SPDX-License-Identifier: Apache-2.0
import AccelCore

/// One axis's figures over a window.
public struct AxisVibration: Sendable, Equatable {
    public var waveform: WaveformFigures
    /// Velocity RMS over the report's band, mm/s.
    public var velocity: Double
    /// The axis's strongest line, nil in a window without one.
    public var dominant: SpectralPeak?
}

/// Everything one window says: the figures per axis and for the vector,
/// the strongest lines, the envelope's, the configured orders, the
/// machine's state.
public struct VibrationReport: Sendable {
    /// Time of the window's first sample, s (the samples' clock).
    public var start: Double
    public var duration: Double
    public var rate: Double
    public var axes: [AxisVibration]
    public var vector: VectorFigures
    /// The vector's velocity RMS, mm/s: the axes' summed in power.
    public var velocity: Double
    public var velocityBand: ClosedRange<Double>
    /// The ISO zone, when the settings name a machine class.
    public var zone: SeverityZone?
    public var peaks: [SpectralPeak]
    public var envelopePeaks: [SpectralPeak]
    public var envelopeBand: ClosedRange<Double>
    /// The shaft's frequency this window used (configured or estimated).
    public var shaft: Double?
    public var orders: [OrderReading]
    public var envelopeOrders: [OrderReading]
    /// Each order's family in the averaged envelope spectrum.
    public var families: [OrderFamily]
    /// Each bearing order's condition (the shaft has none).
    public var conditions: [String: BearingCondition]
    /// Windows in the average, and the span they cover, s.
    public var averaged: Int
    public var averageSpan: Double
    /// A sample reached the part's range: the figures understate the truth.
    public var clipped: Bool
    public var state: MachineState
    /// The state's changes since the last report, each dated at the block
    /// where the level crossed.
    public var transitions: [MachineTransition]
    /// The vector's spectrum and its envelope's, for clients that ask.
    public var spectrum: Spectrum
    public var envelopeSpectrum: Spectrum
}

/// Windows a stream of samples and analyses each: fed one sample at a
/// time, it returns a report every hop (the window less its overlap).
/// Pure: no clock, no I/O; the caller's samples carry the time.
public final class VibrationAnalyzer {
    public let settings: VibrationSettings
    public let rate: Double
    public let count: Int
    public let hop: Int
    private let fft: RealFFT
    private let window: HannWindow
    private let envelope: EnvelopeAnalyzer
    private var stateBlocks: StateBlocks
    private var average: EnvelopeAverage
    private var conditions: [String: BearingConditionTracker] = [:]
    private var shaftTracker: ShaftTracker?
    private var x: [Double] = [], y: [Double] = [], z: [Double] = [], times: [Double] = []

    public init(settings: VibrationSettings, rate: Double) throws(VibrationSettingsError) {
        try settings.validate(rate: rate)
        self.settings = settings
        self.rate = rate
        count = settings.samplesPerWindow(rate: rate)
        hop = max(1, Int((Double(count) * (1 - settings.overlap)).rounded()))
        fft = RealFFT(count: count)
        window = HannWindow(count: count)
        envelope = EnvelopeAnalyzer(count: count, rate: rate, band: settings.envelopeBand)
        stateBlocks = StateBlocks(settings: settings.state, rate: rate)
        average = EnvelopeAverage(capacity: settings.averagedWindows)
        if case .estimated(let range) = settings.shaft { shaftTracker = ShaftTracker(range: range) }
        for buffer in [\VibrationAnalyzer.x, \.y, \.z, \.times] { self[keyPath: buffer].reserveCapacity(count) }
    }

    /// The machine's state as the blocks so far judge it.
    public var machineState: MachineState { stateBlocks.tracker.state }

    /// Adds a sample (g) taken at `time`; the report of the window it
    /// completes, if it completes one.
    public func append(_ g: Vector3, at time: Double) -> VibrationReport? {
        x.append(g.x)
        y.append(g.y)
        z.append(g.z)
        times.append(time)
        stateBlocks.append(g, at: time)
        guard x.count == count else { return nil }
        let report = analyse()
        x.removeFirst(hop)
        y.removeFirst(hop)
        z.removeFirst(hop)
        times.removeFirst(hop)
        return report
    }

    /// Forgets a partial window and the average: after a gap in the
    /// samples, a figure across it would be a lie.
    public func reset() {
        average.reset()
        envelope.reset()
        stateBlocks.reset()
        x.removeAll(keepingCapacity: true)
        y.removeAll(keepingCapacity: true)
        z.removeAll(keepingCapacity: true)
        times.removeAll(keepingCapacity: true)
    }

    /// The rate the window's own times show (a chip's clock is a percent
    /// or two off its nominal rate, and a line found at the nominal rate
    /// would be as far off); the nominal rate when they are implausible.
    private var measuredRate: Double {
        let span = times[times.count - 1] - times[0]
        let measured = Double(times.count - 1) / span
        return span > 0 && abs(measured / rate - 1) < 0.2 ? measured : rate
    }

    private func analyse() -> VibrationReport {
        let axes = [x, y, z]
        let rate = measuredRate
        let spectra = axes.map { Spectrum($0, rate: rate, window: window, fft: fft) }
        let waveforms = axes.map { WaveformFigures($0) }
        let band = settings.velocityBand(rate: self.rate)  // the bands stay the nominal rate's
        let scanned = settings.velocityBand.lowerBound...(self.rate / 2)
        let axisFigures = zip(waveforms, spectra).map { waveform, spectrum in
            AxisVibration(
                waveform: waveform,
                velocity: VelocitySeverity.rms(spectrum, band: band),
                dominant: spectrum.peaks(count: 1, in: scanned).first
            )
        }
        let vectorSpectrum = Spectrum.sum(spectra)
        let transforms = axes.map { envelope.transform($0) }
        let envelopeBand = envelope.band(for: transforms)
        let bandwidth = envelopeBand.upperBound - envelopeBand.lowerBound
        let envelopeSpectrum = Spectrum.sum(transforms.map { envelope.spectrum(transform: $0, band: envelopeBand, rate: rate) })
        let velocity = VelocitySeverity.rms(vectorSpectrum, band: band)
        let vector = VectorFigures(x: x, y: y, z: z, means: (waveforms[0].mean, waveforms[1].mean, waveforms[2].mean))
        let shaft = shaftFrequency(in: vectorSpectrum)
        let orders = shaft.map { MachineOrders(shaft: $0, bearing: settings.bearing, harmonics: settings.harmonics) }
        let averaged = average.add(envelopeSpectrum)
        let families = orders.map {
            OrderFamily.attributed(
                averaged.families(of: $0, bins: settings.orderBins, below: bandwidth),
                present: settings.condition.watch, bins: settings.orderBins, binWidth: averaged.binWidth, modulators: $0.modulators)
        } ?? []
        let start = times[0]
        return VibrationReport(
            start: start,
            duration: Double(count) / rate,
            rate: rate,
            axes: axisFigures,
            vector: vector,
            velocity: velocity,
            velocityBand: band,
            zone: settings.machineClass?.zone(velocity: velocity),
            peaks: vectorSpectrum.peaks(count: settings.peaks, in: scanned),
            envelopePeaks: envelopeSpectrum.peaks(count: settings.peaks, in: (2 * envelopeSpectrum.binWidth)...bandwidth),
            envelopeBand: envelopeBand,
            shaft: shaft,
            orders: orders?.readings(in: vectorSpectrum, tolerance: settings.tolerance) ?? [],
            envelopeOrders: orders?.readings(in: envelopeSpectrum, tolerance: settings.tolerance) ?? [],
            families: families,
            conditions: judge(families),
            averaged: averaged.averaged,
            // The windows as cut (a length KissFFT transforms fast), not as asked.
            averageSpan: Double(count + (averaged.averaged - 1) * hop) / rate,
            clipped: isClipped(axes),
            state: stateBlocks.tracker.state,
            transitions: stateBlocks.takeTransitions(),
            spectrum: vectorSpectrum,
            envelopeSpectrum: envelopeSpectrum
        )
    }

    /// Each bearing order's condition, moved on by this report's indicator.
    private func judge(_ families: [OrderFamily]) -> [String: BearingCondition] {
        var judged: [String: BearingCondition] = [:]
        for family in families where family.name != "shaft" {
            var tracker = conditions[family.name] ?? BearingConditionTracker(settings: settings.condition)
            judged[family.name] = tracker.update(indicator: family.indicator)
            conditions[family.name] = tracker
        }
        return judged
    }

    private func shaftFrequency(in spectrum: Spectrum) -> Double? {
        if case .fixed(let hertz) = settings.shaft { return hertz }
        return shaftTracker?.update(spectrum)
    }

    /// A sample within a digit or two of the range's end: the part clipped.
    private func isClipped(_ axes: [[Double]]) -> Bool {
        guard let fullScale = settings.fullScale else { return false }
        let limit = fullScale * 0.998
        return axes.contains { $0.contains { abs($0) >= limit } }
    }
}
