// SPDX-License-Identifier: Apache-2.0
import AccelCore
import AccelDriver
import AccelTools
import AccelVibration
import Testing

@Suite("Spectrum charts")
struct SpectrumChartTests {
    /// `seconds` of the built-in machine, running, at `rate`.
    func machine(seconds: Double, rate: Double = 3_330) -> [Vector3] {
        let motion = VibrationMotion.machine()
        return (0..<Int(seconds * rate)).map { motion.specificForce(at: 5 + Double($0) / rate) }
    }

    @Test("the machine's envelope: its bearing's BPFO (107.4 Hz) is the strongest line, marked with the configured orders")
    func envelope() throws {
        var settings = VibrationSettings()
        settings.shaft = .fixed(29.95)
        settings.bearing = BearingFactors(elements: 9, rollerDiameter: 7.94, pitchDiameter: 39.04)
        let chart = try SpectrumChart.render(title: "machine", samples: machine(seconds: 3), rate: 3_330, settings: settings, kind: .envelope)
        #expect(chart.windows == 5)
        #expect(abs(chart.peaks[0].frequency - 107.4) < 0.5)
        #expect(chart.svg.contains(">bpfo<") && chart.svg.contains(">shaft<") && chart.svg.contains(" Hz</text>"))
        #expect(chart.svg.contains("envelope spectrum (250–1499 Hz)"))
    }

    @Test("the machine's spectrum: the shaft's line first, its harmonics after")
    func spectrum() throws {
        let chart = try SpectrumChart.render(title: "machine", samples: machine(seconds: 2), rate: 3_330, settings: VibrationSettings(), kind: .spectrum)
        #expect(abs(chart.peaks[0].frequency - 29.95) < 0.2)
        #expect(chart.peaks.contains { abs($0.frequency - 59.9) < 0.3 })
    }

    @Test("a recording shorter than a window is refused with what to do")
    func tooShort() {
        let error = #expect(throws: SpectrumChartError.self) {
            try SpectrumChart.render(title: "short", samples: machine(seconds: 0.5), rate: 3_330, settings: VibrationSettings(), kind: .spectrum)
        }
        #expect(error?.description.contains("shorter than one 1.0 s window") == true)
    }
}
