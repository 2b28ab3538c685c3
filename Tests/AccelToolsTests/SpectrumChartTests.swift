// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelTools
import AccelVibration
import Testing

@Suite("Spectrum charts")
struct SpectrumChartTests {
    /// `seconds` of the built-in machine, running, at `rate`: the samples and their times.
    func machine(seconds: Double, rate: Double = 3_330) -> (samples: [Vector3], times: [Double]) {
        let motion = VibrationMotion.machine()
        let times = (0..<Int(seconds * rate)).map { 5 + Double($0) / rate }
        return (times.map(motion.specificForce(at:)), times)
    }

    @Test("the machine's envelope: its bearing's BPFO (107.4 Hz) is the strongest line, marked with the configured orders; the title names the kurtogram's band")
    func envelope() throws {
        var settings = VibrationSettings()
        settings.shaft = .fixed(29.95)
        settings.bearing = BearingFactors(elements: 9, rollerDiameter: 7.94, pitchDiameter: 39.04)
        let recording = machine(seconds: 3)
        let chart = try SpectrumChart.render(title: "machine", samples: recording.samples, times: recording.times, settings: settings, kind: .envelope)
        #expect(chart.windows == 4, "3 s in windows of 3,360 samples (1.009 s) every half window")
        #expect(abs(chart.peaks[0].frequency - 107.4) < 0.5)
        #expect(chart.svg.contains(">bpfo<") && chart.svg.contains(">shaft<") && chart.svg.contains(" Hz</text>"))
        // The kurtogram's band, said in the title, within the part's pass band (40 % of the rate).
        let title = try #require(chart.svg.firstMatch(of: /envelope spectrum \((\d+)–(\d+) Hz\)/))
        #expect(Int(title.output.1)! < Int(title.output.2)! && Int(title.output.2)! <= 1_332, "\(title.output.0)")
    }

    @Test("the machine's spectrum: the shaft's line first, its harmonics after")
    func spectrum() throws {
        let recording = machine(seconds: 2)
        let chart = try SpectrumChart.render(title: "machine", samples: recording.samples, times: recording.times, settings: VibrationSettings(), kind: .spectrum)
        #expect(abs(chart.peaks[0].frequency - 29.95) < 0.2)
        #expect(chart.peaks.contains { abs($0.frequency - 59.9) < 0.3 })
    }

    @Test("a recording that lost samples: the rate from its intervals, no window across a hole, the lines where they were")
    func holes() throws {
        // A slow recorder lost 250 samples (75 ms) after every 6,000: 4 %
        // of them, which counted over the span would read 3,200 Hz. Two 1 s
        // windows (half overlapped) fit in each 1.8 s run, none in the last 0.87 s.
        let whole = machine(seconds: 6.5)
        let kept = whole.times.indices.filter { $0 % 6_250 < 6_000 }
        var settings = VibrationSettings()
        settings.shaft = .fixed(29.95)
        settings.bearing = BearingFactors(elements: 9, rollerDiameter: 7.94, pitchDiameter: 39.04)
        let chart = try SpectrumChart.render(title: "holes", samples: kept.map { whole.samples[$0] }, times: kept.map { whole.times[$0] },
                                             settings: settings, kind: .envelope)
        #expect(abs(chart.rate - 3_330) < 0.01 && chart.gaps == 3 && chart.windows == 6, "\(chart.rate) Hz, \(chart.gaps) gaps, \(chart.windows) windows")
        #expect(abs(chart.peaks[0].frequency - 107.4) < 0.5, "BPFO, not 4 % below it: \(chart.peaks[0].frequency)")
    }

    @Test("a recording shorter than a window is refused with what to do")
    func tooShort() {
        let error = #expect(throws: SpectrumChartError.self) {
            let recording = machine(seconds: 0.5)
            _ = try SpectrumChart.render(title: "short", samples: recording.samples, times: recording.times, settings: VibrationSettings(), kind: .spectrum)
        }
        #expect(error?.description.contains("shorter than one 1.0 s window") == true)
    }
}
