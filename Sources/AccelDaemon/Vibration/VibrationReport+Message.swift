// SPDX-License-Identifier: Apache-2.0
import AccelProtocol
import AccelVibration

extension VibrationMessage {
    /// The report of the window that begins with sample `seq`, with the
    /// spectra reduced to the bins `watch` asks for.
    init(_ report: VibrationReport, seq: UInt64, watch: VibrationWatch, restarts: Int) {
        func axis(_ a: AxisVibration) -> Axis {
            Axis(rms: a.waveform.rms, peak: a.waveform.peak, peakToPeak: a.waveform.peakToPeak, crest: a.waveform.crest,
                 kurtosis: a.waveform.kurtosis, velocity: a.velocity, dominant: a.dominant.map { [$0.frequency, $0.amplitude] })
        }
        func lines(_ peaks: [SpectralPeak]) -> [[Double]] { peaks.map { [$0.frequency, $0.amplitude] } }
        func bins(_ spectrum: Spectrum, _ count: Int) -> Bins? {
            guard count > 0 else { return nil }
            let amplitudes = spectrum.reduced(to: count)
            return Bins(step: spectrum.nyquist / Double(amplitudes.count), amplitudes: amplitudes)
        }
        func triples(_ lines: [FamilyLine?]) -> [[Double]?] { lines.map { $0.map { [$0.frequency, $0.amplitude, $0.height] } } }
        let envelopeOrders = Dictionary(report.envelopeOrders.map { ($0.name, $0.harmonics.first ?? nil) }, uniquingKeysWith: { a, _ in a })
        let families = Dictionary(report.families.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.init(
            t: report.start, seq: seq, duration: report.duration, rate: report.rate,
            x: axis(report.axes[0]), y: axis(report.axes[1]), z: axis(report.axes[2]),
            rms: report.vector.rms, peak: report.vector.peak, crest: report.vector.crest, velocity: report.velocity,
            band: [report.velocityBand.lowerBound, report.velocityBand.upperBound], zone: report.zone?.rawValue,
            peaks: lines(report.peaks),
            envelopeBand: [report.envelopeBand.lowerBound, report.envelopeBand.upperBound], envelopePeaks: lines(report.envelopePeaks),
            shaft: report.shaft,
            orders: report.orders.map { order in
                let family = families[order.name]
                return Order(name: order.name, frequency: order.frequency, amplitude: order.harmonics.first??.amplitude,
                             envelope: (envelopeOrders[order.name] ?? nil)?.amplitude,
                             family: triples(family?.harmonics ?? []), sidebands: triples(family?.sidebands ?? []),
                             indicator: family?.indicator, condition: report.conditions[order.name]?.rawValue)
            },
            clipped: report.clipped, state: report.state.rawValue,
            spectrum: bins(report.spectrum, watch.spectrumBins), envelopeSpectrum: bins(report.envelopeSpectrum, watch.envelopeBins)
        )
        averaged = report.averaged
        averageSpan = report.averageSpan
        self.restarts = restarts
        bearing = report.families.filter { report.conditions[$0.name] != nil }
            .max { (report.conditions[$0.name]!, $0.indicator) < (report.conditions[$1.name]!, $1.indicator) }
            .map { Bearing(condition: report.conditions[$0.name]!.rawValue, order: $0.name, indicator: $0.indicator) }
    }
}
