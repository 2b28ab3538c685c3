// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelVibration

/// A recording's spectrum, or its envelope's, averaged over its windows
/// (Welch) and drawn by SVGPlot with frequency across: the strongest lines
/// labelled, and a machine's configured frequencies marked.
public enum SpectrumChart {
    public enum Kind: Sendable { case spectrum, envelope }

    public struct Chart {
        public let svg: String
        public let spectrum: Spectrum
        public let peaks: [SpectralPeak]
        public let windows: Int
        /// The sample rate the intervals show.
        public let rate: Double
        /// Holes in the recording (samples a slow recorder lost): each
        /// starts the windows again.
        public let gaps: Int
    }

    /// The chart of `samples` (g) taken at `times` (s) through `settings`'
    /// windows. The rate is the intervals' (holes left out), not the count
    /// over the span: a recording that lost samples would put every line as far
    /// off as it lost (7 % lost, BPFO at 99 Hz instead of 107), and no
    /// window spans a hole.
    public static func render(title: String, samples: [Vector3], times: [Double], settings: VibrationSettings, kind: Kind) throws -> Chart {
        let intervals = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        guard let median = intervals.isEmpty ? nil : intervals[intervals.count / 2], median > 0 else {
            throw SpectrumChartError(message: "the recording has fewer than two samples, or their times do not increase: record again")
        }
        // The mean of the intervals within the runs: the median alone is
        // one interval's rounding.
        let runs = intervals.filter { $0 <= 1.5 * median }
        let rate = Double(runs.count) / runs.reduce(0, +)
        let analyzer = try VibrationAnalyzer(settings: settings, rate: rate)
        var average: Spectrum?
        var windows = 0, gaps = 0
        var reports: [VibrationReport] = []
        for (i, sample) in samples.enumerated() {
            if i > 0, times[i] - times[i - 1] > 1.5 * median {  // a hole, as `runs` leaves out
                gaps += 1
                analyzer.reset()
            }
            guard let report = analyzer.append(sample, at: times[i]) else { continue }
            let spectrum = kind == .spectrum ? report.spectrum : report.envelopeSpectrum
            if average == nil { average = spectrum } else { average!.average(with: spectrum) }
            windows += 1
            reports.append(report)
        }
        guard let spectrum = average, let last = reports.last else {
            let holes = gaps > 0 ? " between its \(gaps) gaps" : ""
            throw SpectrumChartError(message: "the recording is shorter than one \(settings.window) s window\(holes): record longer, or pass a shorter --window")
        }
        let top = kind == .spectrum ? rate / 2 : last.envelopeBand.upperBound - last.envelopeBand.lowerBound
        let band = (2 * spectrum.binWidth)...min(top, rate / 2)
        let peaks = spectrum.peaks(count: settings.peaks, in: band)
        var markers = peaks.map { SVGPlot.Marker(t: $0.frequency, label: "\(fixed($0.frequency, 1)) Hz \(fixed($0.amplitude * 1000, 1)) mg", kind: .line) }
        if let shaft = last.shaft {
            let orders = MachineOrders(shaft: shaft, bearing: settings.bearing, harmonics: 1)
            markers += orders.frequencies.filter { band.contains($0.frequency) }
                .map { SVGPlot.Marker(t: $0.frequency, label: $0.name, kind: .orientation) }
        }
        let bins = spectrum.bins(in: band) ?? 1...1
        let what = kind == .spectrum ? "spectrum" : "envelope spectrum (\(fixed(last.envelopeBand.lowerBound, 0))–\(fixed(last.envelopeBand.upperBound, 0)) Hz)"
        let svg = SVGPlot().render(
            title: "\(title) · \(what), \(windows) windows of \(fixed(settings.window, 2)) s",
            times: bins.map { spectrum.frequency(bin: $0) },
            series: [SVGPlot.Series(name: "|a|", color: "#1f77b4", values: bins.map { spectrum.amplitude(bin: $0) * 1000 })],
            markers: markers, unit: "mg", xUnit: "Hz")
        return Chart(svg: svg, spectrum: spectrum, peaks: peaks, windows: windows, rate: rate, gaps: gaps)
    }
}

public struct SpectrumChartError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
